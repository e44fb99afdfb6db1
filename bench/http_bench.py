"""HTTP benchmarks: ours, the official SDK's MCPServer and the stack's floor, alternating.

Run by hand: ``python bench/http_bench.py`` (or ``make bench-http``). Never imported by tests.

Scenarios of the team's performance notes over Streamable HTTP on 127.0.0.1, with the server
pinned to CPU 0 and the load generator (``loadgen``, raw asyncio sockets) to CPU 1:

1. protocol floor and 2. realistic read tool: N keep-alive clients sending ``tools/call``
   requests back to back for a fixed time: requests per second, median, p99; the floor tool in
   both eras (2026-07-28 with its ``_meta`` envelope and ``Mcp-*`` headers, and 2025-11-25);
3. auth path: the floor with the right bearer secret, with a wrong one of the same length (401)
   and with none (401), each alone; then the right one while other clients hammer wrong secrets;
   and in-process, the median cost of our bearer check for right, wrong, one-bit-flipped and
   missing secrets (its timing must not tell them apart);
5. slow clients: the floor at 8 clients, unloaded and for ``BENCH_SLOW_SECONDS`` (20 s, longer
   than our 15 s header deadline) while ``BENCH_SLOW`` (200) slowloris connections each drip one
   header byte a second and reconnect when closed: p99 loaded against unloaded, how often the
   server closed a slow connection, and its open file descriptors at the end.

Every scenario runs against ours, then the peer, then the floor, ``BENCH_ROUNDS`` (3) times;
figures are medians. The floor (``floor_server.py``: anyio + h11 + msgspec, keep-alive, decodes
the body, answers a fixed result) takes part in the floor-tool rows of scenario 1 only: it has
no tools, no authentication and no slow-client rules. Each row says ours as a fraction of the
peer and of the floor. ``BENCH_BASELINE=/path/to/a/checkout`` adds a fourth server, "base": the
same ``--http --demo`` run from that checkout's code (a before/after comparison in one run).

Ours runs ``--http --demo`` with a bearer secret; the peer runs ``MCPServer`` stateless with JSON
answers on uvicorn and checks the same secret in a small ASGI wrapper (``peer_server.py``). Both
lift the client's pacing towards the fake and ours lifts its per-client limits, so the
benchmark measures the MCP layer. Peak RSS (VmHWM) is read after the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from loadgen import Tally, closed_loop, request_bytes

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-" + "x" * 40
WRONG = "bench-secret-" + "y" * 40
DURATION_S = float(os.environ.get("BENCH_SECONDS", "5"))
CLIENTS = [int(n) for n in os.environ.get("BENCH_CLIENTS", "1,32").split(",")]
SLOW_CONNECTIONS = int(os.environ.get("BENCH_SLOW", "200"))
SERVER_CPU, LOAD_CPU = 0, 1
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
SLOW_SECONDS = float(os.environ.get("BENCH_SLOW_SECONDS", "20"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
BASELINE = Path(os.environ["BENCH_BASELINE"]) if os.environ.get("BENCH_BASELINE") else None
FLOOR_TOOL = "sevdesk_server_status"
Row = tuple[str, dict[str, float]]


@dataclass(frozen=True)
class Target:
    """A running server: its name, where it listens and its process id."""

    name: str
    port: int
    pid: int

    def open_fds(self) -> int:
        """:returns: how many file descriptors the server has open."""
        return len(os.listdir(f"/proc/{self.pid}/fd"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(port: int, root: Path = ROOT) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(root),
        "SEVDESK_RATE_PER_S": "1000",
        "SEVDESK_HTTP_AUTH": "bearer",
        "SEVDESK_HTTP_SECRET": SECRET,
        "SEVDESK_HTTP_PORT": str(port),
        "SEVDESK_HTTP_RATE_PER_S": "100000",
        "SEVDESK_HTTP_INFLIGHT_PER_CLIENT": "128",
    }


def servers() -> dict[str, tuple[list[str], Path]]:
    """:returns: each server's command (the port is appended where it takes one) and code root."""
    table = {
        "ours": ([sys.executable, "-m", "sevdesk_mcp", "--http", "--demo"], ROOT),
        "peer": ([sys.executable, str(ROOT / "bench" / "peer_server.py"), "--http"], ROOT),
        "floor": ([sys.executable, str(ROOT / "bench" / "floor_server.py")], ROOT),
    }
    if BASELINE is not None:
        table["base"] = ([sys.executable, "-m", "sevdesk_mcp", "--http", "--demo"], BASELINE)
    return table


def start(name: str, port: int) -> subprocess.Popen[bytes]:
    command, root = servers()[name]
    if name in ("peer", "floor"):
        command = [*command, str(port)]
    if shutil.which("taskset"):
        command = ["taskset", "-c", str(SERVER_CPU), *command]
    return subprocess.Popen(
        command,
        env=server_env(port, root),
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_ready(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server on port {port} did not start")


def call_request(
    port: int, tool: str, token: str | None = SECRET, *, era: str = "2026-07-28"
) -> bytes:
    """:returns: a ``tools/call`` of ``tool`` in ``era`` (2026-07-28, or 2025-11-25: no
    ``_meta`` envelope and no ``Mcp-*`` routing headers)."""
    modern = era == "2026-07-28"
    params = {"name": tool, "arguments": {}, **({"_meta": META} if modern else {})}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": era,
    }
    if modern:
        headers |= {"Mcp-Method": "tools/call", "Mcp-Name": tool}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return request_bytes(port, "/mcp", headers, json.dumps(body).encode())


def load(port: int, request: bytes, clients: int) -> dict[str, float]:
    tally = asyncio.run(closed_loop(port, request, clients, DURATION_S))
    return _checked(tally)


def _checked(tally: Tally) -> dict[str, float]:
    summary = tally.summary(DURATION_S)
    summary["non_2xx"] = float(sum(n for s, n in tally.statuses.items() if not 200 <= s < 300))
    return summary


def throughput(target: Target) -> list[Row]:
    """The floor tool in both eras, then the read tool (not on the floor server: no tools)."""
    port = target.port
    cases = [(FLOOR_TOOL, "2026-07-28"), (FLOOR_TOOL, "2025-11-25")]
    if target.name != "floor":
        cases.append(("sevdesk_search_contacts", "2026-07-28"))
    return [
        (f"{tool} {era[:4]} c={clients}", load(port, call_request(port, tool, era=era), clients))
        for tool, era in cases
        for clients in CLIENTS
    ]


def auth_path(target: Target) -> list[Row]:
    if target.name == "floor":
        return []
    port = target.port
    floor = "sevdesk_server_status"
    rows = [
        ("auth: right secret c=8", load(port, call_request(port, floor), 8)),
        ("auth: wrong secret c=8 (401)", load(port, call_request(port, floor, WRONG), 8)),
        ("auth: no secret c=8 (401)", load(port, call_request(port, floor, None), 8)),
    ]
    good, bad = call_request(port, floor), call_request(port, floor, WRONG)

    async def mixed() -> Tally:
        attack = asyncio.ensure_future(closed_loop(port, bad, 8, DURATION_S))
        tally = await closed_loop(port, good, 8, DURATION_S)
        await attack
        return tally

    rows.append(("auth: right c=8 while wrong c=8", _checked(asyncio.run(mixed()))))
    return rows


def verify_timing(rounds: int = 20_000) -> None:
    """Print the in-process cost of our bearer check: right, wrong, one bit flipped, missing."""
    from sevdesk_mcp.errors import HttpError
    from sevdesk_mcp.http.auth import BearerAuth
    from sevdesk_mcp.http.messages import Headers
    from sevdesk_mcp.safety.redact import Secret

    auth = BearerAuth([Secret(SECRET)])
    flipped = SECRET[:-1] + chr(ord(SECRET[-1]) ^ 1)
    cases = {"right": SECRET, "wrong": WRONG, "one bit flipped": flipped, "missing": None}
    for label, token in cases.items():
        raw = [] if token is None else [(b"authorization", f"Bearer {token}".encode())]
        headers = Headers(raw)
        samples = []
        for _ in range(rounds):
            start = time.perf_counter_ns()
            with contextlib.suppress(HttpError):  # the 401 of a refused secret is measured too
                auth.check(headers)
            samples.append(time.perf_counter_ns() - start)
        print(f"bearer check, {label:16} median {statistics.median(samples) / 1000:6.2f} µs")


async def slowloris(port: int, connections: int, stop: asyncio.Event) -> int:
    """Hold ``connections`` connections that drip one header byte per second; a connection the
    server closes is opened again at once.

    :returns: how many times the server closed one of them.
    """
    head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000
    closed = 0

    async def drip() -> None:
        nonlocal closed
        while not stop.is_set():
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                for byte in head:
                    if stop.is_set():
                        break
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(1.0)
                writer.close()
            except (ConnectionError, OSError):
                closed += 1
                await asyncio.sleep(0.1)

    await asyncio.gather(*(drip() for _ in range(connections)))
    return closed


def slow_clients(target: Target) -> list[Row]:
    if target.name == "floor":
        return []
    port = target.port
    request = call_request(port, "sevdesk_server_status")
    unloaded = load(port, request, 8)

    async def attacked() -> tuple[Tally, int, int]:
        stop = asyncio.Event()
        attack = asyncio.ensure_future(slowloris(port, SLOW_CONNECTIONS, stop))
        await asyncio.sleep(1.0)  # let the slow connections open first
        tally = await closed_loop(port, request, 8, SLOW_SECONDS)
        fds = target.open_fds()
        stop.set()
        return tally, await attack, fds

    tally, dropped, fds = asyncio.run(attacked())
    loaded = tally.summary(SLOW_SECONDS)
    loaded["non_2xx"] = float(sum(n for s, n in tally.statuses.items() if not 200 <= s < 300))
    loaded["p99_vs_unloaded"] = loaded["p99_ms"] / unloaded["p99_ms"]
    loaded["slow_closed_by_server"] = float(dropped)
    loaded["open_fds_at_end"] = float(fds)
    return [
        ("slow: floor c=8 unloaded", unloaded),
        (f"slow: floor c=8, {SLOW_CONNECTIONS} slowloris, {SLOW_SECONDS:g} s", loaded),
    ]


def peak_rss_mib(process: subprocess.Popen[bytes]) -> float:
    status = Path(f"/proc/{process.pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


Scenario = Callable[[Target], list[Row]]


def measure(scenarios: Sequence[Scenario]) -> dict[str, list[Row]]:
    """Run every scenario against each server in turn, then the next scenario, ``ROUNDS``
    times, so that all see the same state of the machine; each figure is the median."""
    ports = {name: free_port() for name in servers()}
    processes = {name: start(name, port) for name, port in ports.items()}
    targets = {name: Target(name, ports[name], processes[name].pid) for name in ports}
    rounds: dict[str, list[list[Row]]] = {name: [] for name in ports}
    try:
        for name, port in ports.items():
            wait_ready(port)
            if name != "floor":
                load(port, call_request(port, "sevdesk_search_contacts"), 4)  # builds the books
            load(port, call_request(port, FLOOR_TOOL), 4)
        for _ in range(ROUNDS):
            for name in ports:
                rounds[name].append([])
            for scenario in scenarios:
                for name, target in targets.items():
                    rounds[name][-1] += scenario(target)
        rows = {name: _medians(runs) for name, runs in rounds.items()}
        for name, process in processes.items():
            rows[name].append(("peak RSS (MiB)", {"rps": peak_rss_mib(process)}))
        return rows
    finally:
        for process in processes.values():
            process.terminate()
            process.wait(10)


def _medians(runs: list[list[Row]]) -> list[Row]:
    """:returns: the rows of the first run, each figure the median over all runs."""
    return [
        (label, {key: statistics.median(run[i][1][key] for run in runs) for key in figures})
        for i, (label, figures) in enumerate(runs[0])
    ]


def _ratio(mine: dict[str, float] | None, theirs: dict[str, float] | None) -> str:
    if mine is None or theirs is None:
        return "-"
    return f"{mine['rps'] / max(theirs['rps'], 1e-9):.2f}"


def _latency(figures: dict[str, float] | None, key: str) -> str:
    return "-" if figures is None or key not in figures else f"{figures[key]:.2f}"


def report(rows: dict[str, list[Row]]) -> None:
    """Print one line per scenario: requests per second of every server, ours as a fraction of
    the peer, the floor and the baseline, and the latencies."""
    names = list(rows)
    table = {name: dict(rows[name]) for name in names}
    others = [n for n in ("peer", "floor", "base") if n in names]
    print(
        f"{'scenario':40}"
        + "".join(f" {n + ' rps':>10}" for n in names)
        + "".join(f" {'/' + n:>6}" for n in others)
        + "".join(f" {n + ' p50':>9} {n + ' p99':>9}" for n in names)
        + f" {'!2xx':>9}"
    )
    for label, mine in rows["ours"]:
        cells = [table[n].get(label) for n in names]
        print(
            f"{label:40}"
            + "".join(f" {'-' if c is None else format(c['rps'], '.0f'):>10}" for c in cells)
            + "".join(f" {_ratio(mine, table[n].get(label)):>6}" for n in others)
            + "".join(f" {_latency(c, 'median_ms'):>9} {_latency(c, 'p99_ms'):>9}" for c in cells)
            + f" {'/'.join(format(c.get('non_2xx', 0), '.0f') for c in cells if c):>9}"
        )
        for key in ("p99_vs_unloaded", "slow_closed_by_server", "open_fds_at_end", "failures"):
            values = {n: c.get(key, 0) for n, c in zip(names, cells, strict=True) if c}
            if any(values.values()):
                shown = "  ".join(f"{n} {v:.2f}" for n, v in values.items())
                print(f"{'':42}{key}: {shown}")
    print(
        f"\nMedians of {ROUNDS} rounds of {DURATION_S:g} s per cell; latencies in ms; "
        f"servers on CPU {SERVER_CPU}, load generator on CPU {LOAD_CPU}."
    )


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {LOAD_CPU})
    chosen = os.environ.get("BENCH_SCENARIOS", "throughput,auth,slow").split(",")
    table = {"throughput": throughput, "auth": auth_path, "slow": slow_clients}
    scenarios = [table[name] for name in chosen]
    if "auth" in chosen:
        verify_timing()
    report(measure(scenarios))


if __name__ == "__main__":
    main()
