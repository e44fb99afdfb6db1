"""Where the microseconds of one HTTP request go (the floor tool, 2026-07-28, bearer auth).

Run by hand: ``python bench/http_profile.py`` (``BENCH_BASELINE=/path/to/a/checkout`` adds that
checkout's server as "base"). Never imported by tests. Two parts:

1. Server CPU per request: each server (ours, the floor server, and "base") answers one client
   back to back for ``BENCH_SECONDS``; its CPU time (user and system, from ``/proc``) divided by
   the requests answered, and the median wall time per request as the client saw it. CPU time
   is what a busy machine disturbs least; ``BENCH_ROUNDS`` rounds, medians.
2. In process, each step of a floor call alone, repeated, median µs per call: h11, the rules of
   the router, the rate limiter, the bearer check, decoding and encoding JSON-RPC, the
   per-request server instance, the whole dispatch and, inside it, the tool's own work, the
   output check and the redaction pass, the access log line (to ``/dev/null``), and the
   per-request task pattern of the old connection (a task group with a watcher task cancelled
   at the end) against what the connection does now (one cancel scope, a callback armed).

3. With ``BENCH_PYSPY=/path/to/py-spy`` (not a dependency; ``pip install py-spy`` elsewhere),
   each server is sampled (2,000 a second, without pausing it: pausing slowed the servers
   fourfold; a few stacks are torn and land in the wrong step) while one client loads it, and
   every busy sample is charged to the innermost step of :data:`STEPS` on its stack: µs of
   busy time per request.
   The loopback send shows up as ``socket send``: py-spy sees the thread busy in the system
   call, but the kernel's network work is not all charged to the process's CPU time (part 1).

The parts do not add up to part 1 exactly: alone they run on warm caches, and part 1 includes
the event loop and the socket system calls.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace

import anyio
import anyio.abc
import h11
from http_bench import (
    DURATION_S,
    FLOOR_TOOL,
    ROUNDS,
    call_request,
    free_port,
    server_env,
    servers,
    start,
    wait_ready,
)
from loadgen import closed_loop

BATCH = 200
BATCHES = 100
SAMPLES_PER_S = 2000
STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (  # innermost match wins; first one listed
    ("socket send (system call)", ("_SelectorSocketTransport.write ",)),
    ("access log line", ("AccessLog.write ", "HttpConnection._log ")),
    ("redaction pass over the answer", ("Redactor.scrub_object ", "Redactor.scrub_encoded ")),
    ("output check", ("check_output ",)),
    ("the status tool's own work", ("_status (sevdesk_mcp/tools/meta/status.py",)),
    ("argument parsing", ("parse_arguments ",)),
    ("per-request server instance", ("ServerFactory.build ",)),
    ("JSON-RPC decode and encode", ("decode (sevdesk_mcp/mcp/jsonrpc", "encode (sevdesk_mcp")),
    ("dispatcher, registry, MRTR (rest)", ("Dispatcher.handle ", "Dispatcher.handle_encoded ")),
    ("bearer check", ("BearerAuth.check ",)),
    ("rate limiter", ("RateLimiter.retry_after_s ",)),
    ("watcher task (old connection)", ("HttpConnection._watch ", "TaskGroup.__a")),
    ("reader task (new connection)", ("Reader.run ",)),
    ("MCP route (rest: headers, era, JSON)", ("McpRoute.__call__ ",)),
    ("router rules (rest)", ("Router.__call__ ",)),
    ("h11: parse the request", ("Connection.next_event ",)),
    ("h11: write the response", ("HttpConnection.send ", "Exchange.respond ", "_response (")),
    ("request checks and reading (rest)", ("HttpConnection._next_request ", "read_body ")),
    ("per-request cancel scopes", ("CancelScope.__enter__ ", "CancelScope.__exit__ ")),
)


def cpu_seconds(pid: int) -> tuple[float, float]:
    """:returns: the user and the system CPU time of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def server_cost(name: str) -> dict[str, float]:
    """:returns: CPU µs (user, system) and wall µs per floor-tool request of server ``name``,
    one client."""
    port = free_port()
    process = start(name, port)
    try:
        wait_ready(port)
        request = call_request(port, FLOOR_TOOL)
        asyncio.run(closed_loop(port, request, 4, 1.0))  # warm up
        runs: list[dict[str, float]] = []
        for _ in range(ROUNDS):
            user, system = cpu_seconds(process.pid)
            tally = asyncio.run(closed_loop(port, request, 1, DURATION_S))
            user_after, system_after = cpu_seconds(process.pid)
            per = 1e6 / len(tally.latencies_s)
            runs.append(
                {
                    "user_us": per * (user_after - user),
                    "system_us": per * (system_after - system),
                    "wall_us": 1e6 * statistics.median(tally.latencies_s),
                }
            )
        return {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    finally:
        process.terminate()
        process.wait(10)


def spied(name: str, pyspy: str) -> dict[str, float]:
    """:returns: busy µs per request of server ``name`` per step of :data:`STEPS` (py-spy)."""
    port = free_port()
    process = start(name, port)
    out = Path(tempfile.gettempdir()) / f"http-profile-{name}-{port}.txt"  # scratch
    try:
        wait_ready(port)
        request = call_request(port, FLOOR_TOOL)
        asyncio.run(closed_loop(port, request, 4, 1.0))  # warm up
        command = [pyspy, "record", "--pid", str(process.pid), "--rate", str(SAMPLES_PER_S)]
        command += ["--format", "raw", "--nonblocking", "--output", str(out)]
        spy = subprocess.Popen(
            [*command, "--duration", str(int(DURATION_S) + 1)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.5)
        tally = asyncio.run(closed_loop(port, request, 1, DURATION_S))
        spy.wait()
        return charged(out.read_text(), len(tally.latencies_s))
    finally:
        process.terminate()
        process.wait(10)
        out.unlink(missing_ok=True)


def charged(folded: str, requests: float) -> dict[str, float]:
    """:returns: busy µs per request per step, from py-spy's folded stacks."""
    per_step: dict[str, float] = {label: 0.0 for label, _ in STEPS}
    per_step["event loop, anyio, connection (rest)"] = 0.0
    for line in folded.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if "select (selectors.py" in frames[-1]:
            continue  # idle: waiting for the client
        per_step[_step(frames)] += int(count) * 1e6 / SAMPLES_PER_S / requests
    return per_step


def _step(frames: list[str]) -> str:
    for frame in reversed(frames):
        for label, markers in STEPS:
            if any(marker in frame + " " for marker in markers):
                return label
    return "event loop, anyio, connection (rest)"


def cost_us(step: Callable[[], object]) -> float:
    """:returns: the median cost of one call of ``step``, in µs."""
    samples = []
    for _ in range(BATCHES):
        started = time.perf_counter_ns()
        for _ in range(BATCH):
            step()
        samples.append((time.perf_counter_ns() - started) / BATCH / 1000)
    return statistics.median(samples)


async def acost_us(step: Callable[[], Awaitable[object]]) -> float:
    """:returns: the median cost of one awaited call of ``step``, in µs."""
    samples = []
    for _ in range(BATCHES):
        started = time.perf_counter_ns()
        for _ in range(BATCH):
            await step()
        samples.append((time.perf_counter_ns() - started) / BATCH / 1000)
    return statistics.median(samples)


class Parts:
    """The objects a floor call meets, built as ``--http --demo`` builds them."""

    def __init__(self) -> None:
        from sevdesk_mcp.cli import demo
        from sevdesk_mcp.config import load_config
        from sevdesk_mcp.http.auth import BearerAuth
        from sevdesk_mcp.http.limits import Limits
        from sevdesk_mcp.http.log import AccessLog, install_access_logger
        from sevdesk_mcp.http.ratelimit import InflightLimiter, RateLimiter
        from sevdesk_mcp.http.settings import derive_site, load_http_settings
        from sevdesk_mcp.server import ServerFactory

        env = server_env(8080)
        self.settings = load_http_settings(env)  # registers the secret with the redactor
        self.site = derive_site(self.settings, 8080)
        config = load_config(env)
        self.factory = ServerFactory(config)
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the access log's sink, for the run
        self.account = demo.demo_account(config)
        install_access_logger()
        self.log = AccessLog()
        limits = Limits(rate_per_s=100_000, max_inflight_per_client=128)
        self.rates = RateLimiter(limits)
        self.inflight = InflightLimiter(limits)
        self.auth = BearerAuth(self.settings.secrets)
        self.raw = call_request(8080, FLOOR_TOOL)
        self.body = self.raw.split(b"\r\n\r\n", 1)[1]


def h11_steps(raw: bytes) -> dict[str, float]:
    conn = h11.Connection(h11.SERVER)
    answer = b"x" * 1474
    head = h11.Response(
        status_code=200, headers=[("content-type", "application/json"), ("content-length", "1474")]
    )

    def cycle() -> None:
        conn.receive_data(raw)
        while not isinstance(conn.next_event(), h11.EndOfMessage):
            pass
        for event in (head, h11.Data(data=answer), h11.EndOfMessage()):
            conn.send(event)
        conn.start_next_cycle()

    return {"h11: parse the request, write the response": cost_us(cycle)}


def rule_steps(parts: Parts) -> dict[str, float]:
    from sevdesk_mcp.http import hardening
    from sevdesk_mcp.http.messages import Headers

    conn = h11.Connection(h11.SERVER)
    conn.receive_data(parts.raw)
    event = conn.next_event()
    assert isinstance(event, h11.Request)
    headers = Headers(event.headers)

    def rules() -> None:
        hardening.check_path("/mcp")
        client = hardening.client_address("127.0.0.1", headers, 0)
        hardening.client_key(client)
        hardening.host_allowed(headers, parts.site)
        hardening.origin_allowed(headers, parts.site)

    def slot() -> None:
        with parts.inflight.slot("127.0.0.1"):
            pass

    return {
        "request headers indexed (Headers)": cost_us(lambda: Headers(event.headers)),
        "router rules (path, client, Host, Origin)": cost_us(rules),
        "rate limiter (token bucket)": cost_us(lambda: parts.rates.retry_after_s("127.0.0.1")),
        "bearer check": cost_us(lambda: parts.auth.check(headers)),
        "in-flight slot": cost_us(slot),
    }


def log_step(parts: Parts) -> dict[str, float]:
    from sevdesk_mcp.http.log import AccessRecord

    notes = {"route": "/mcp", "mcp_method": "tools/call", "era": "modern"}
    record = AccessRecord("POST", "/mcp", 200, 1474, 0.0004, "127.0.0.1", notes)
    label = "access log line (JSON, masked, redacted, to /dev/null)"
    return {label: cost_us(lambda: parts.log.write(record))}


async def dispatch_steps(parts: Parts) -> dict[str, float]:
    from sevdesk_mcp.http.service.mcp_route import HttpPeer
    from sevdesk_mcp.mcp import jsonrpc
    from sevdesk_mcp.mcp.dispatcher import Connection, Dispatcher
    from sevdesk_mcp.safety.redact import REDACTOR
    from sevdesk_mcp.tools.meta import status as meta
    from sevdesk_mcp.tools.registry import check_output

    request = jsonrpc.decode(parts.body)
    assert isinstance(request, jsonrpc.Request)
    app = parts.factory.build(parts.account)
    answer = await Dispatcher(app).handle(
        request, Connection(peer=HttpPeer(None), principal="bearer")
    )
    ctx = SimpleNamespace(
        account=parts.account,
        registered=[tool.name for tool in parts.factory.surface(parts.account.config)[0]],
        request=SimpleNamespace(protocol_version="2026-07-28"),
    )
    status_input = meta.StatusInput()
    output = await meta.SERVER_STATUS.handler(status_input, ctx)  # type: ignore[arg-type]

    async def dispatch() -> None:  # as the HTTP route calls it: redacted on the encoded text
        await Dispatcher(parts.factory.build(parts.account)).handle_encoded(
            request, Connection(peer=HttpPeer(None), principal="bearer")
        )

    return {
        "JSON-RPC decode of the body": cost_us(lambda: jsonrpc.decode(parts.body)),
        "per-request server instance (factory.build)": cost_us(
            lambda: parts.factory.build(parts.account)
        ),
        "whole dispatch incl. build (tools/call of the floor tool)": await acost_us(dispatch),
        "  the status tool's own work": await acost_us(
            lambda: meta.SERVER_STATUS.handler(status_input, ctx)  # type: ignore[arg-type]
        ),
        "  the output check (to_builtins + convert)": cost_us(
            lambda: check_output(meta.SERVER_STATUS, output)
        ),
        "  the redaction pass over the answer (its one encode included)": cost_us(
            lambda: REDACTOR.scrub_encoded(answer, jsonrpc.encode)
        ),
        "JSON-RPC encode of the answer": cost_us(lambda: jsonrpc.encode(answer)),
    }


async def task_steps() -> dict[str, float]:
    """The old per-request watcher pattern against the new per-request scope, on a socket."""
    left, right = socket.socketpair()
    stream = await anyio.abc.SocketStream.from_socket(left)
    try:

        async def watch(started: anyio.Event) -> None:
            started.set()
            try:
                await stream.receive()
            except anyio.EndOfStream:
                return

        async def watcher() -> None:
            async with anyio.create_task_group() as tg:
                started = anyio.Event()
                tg.start_soon(watch, started)
                with anyio.move_on_after(120):
                    await started.wait()
                tg.cancel_scope.cancel()

        async def scope() -> None:
            with anyio.CancelScope(deadline=anyio.current_time() + 120) as cancel:
                callback = cancel.cancel
                await anyio.lowlevel.checkpoint()
                del callback

        return {
            "old: task group + watcher task + cancel, per request": await acost_us(watcher),
            "new: one cancel scope + armed callback, per request": await acost_us(scope),
        }
    finally:
        await stream.aclose()
        right.close()


def report_spied(spies: dict[str, dict[str, float]]) -> None:
    names = list(spies)
    print(f"\n{'busy µs per request (py-spy), by step':42}" + "".join(f" {n:>8}" for n in names))
    for label in spies[names[0]]:
        print(f"{label:42}" + "".join(f" {spies[n][label]:8.1f}" for n in names))
    print(f"{'total':42}" + "".join(f" {sum(spies[n].values()):8.1f}" for n in names))


def report(costs: dict[str, dict[str, float]], steps: dict[str, float]) -> None:
    print(f"{'server':8} {'user µs/req':>12} {'system µs/req':>14} {'wall µs/req (c=1)':>18}")
    for name, f in costs.items():
        print(f"{name:8} {f['user_us']:12.1f} {f['system_us']:14.1f} {f['wall_us']:18.1f}")
    print(f"\n{'step (in process, median of ' + str(BATCHES) + ' batches)':62} {'µs':>8}")
    for label, value in steps.items():
        print(f"{label:62} {value:8.2f}")


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {1})
    costs = {}
    names = [name for name in servers() if name != "peer"]
    if os.environ.get("BENCH_SERVERS", "1") != "0":
        costs = {name: server_cost(name) for name in names}
    pyspy = os.environ.get("BENCH_PYSPY")
    spies = {name: spied(name, pyspy) for name in names} if pyspy else {}
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    parts = Parts()
    steps = {**h11_steps(parts.raw), **rule_steps(parts), **log_step(parts)}
    steps |= anyio.run(dispatch_steps, parts)
    steps |= anyio.run(task_steps)
    sys.stderr = sys.__stderr__
    report(costs, steps)
    if spies:
        report_spied(spies)


if __name__ == "__main__":
    main()
