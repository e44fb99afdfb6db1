"""Capacity of one HTTP instance in OAuth mode (issue 38): many signed-in accounts, open
2025-era sessions with GET streams, memory per account and per session, p99 at a fixed rate.

Run by hand (never a timing assertion in a test)::

    python bench/capacity_bench.py                       # memory and Redis state, 3 rounds
    python bench/capacity_bench.py --state memory --accounts 1000 --sessions 500 \\
        --streams 100 --rate 500 --seconds 10 --rounds 3

Setup, per round and state backend: a fake sevDesk in a child process (``--serve-fake``)
that knows ``--accounts`` accounts, each its own token and ``SevClient`` id (empty books); one
``python -m sevdesk_mcp --http`` in OAuth mode against it, pinned to CPU 0 (``taskset``), with
its state in memory or in a private ``redis-server`` (``SEVDESK_HTTP_STATE_URL``); the client
side (this process) on CPU 1. One client is registered (``/register``); every account signs in
through the real consent flow (``GET``/``POST /authorize``, ``POST /token``) and makes one
stateless ``tools/call`` so its account context is live. Then ``--sessions`` 2025-era sessions
(``initialize`` with elicitation, sampling and roots, ``notifications/initialized``) spread
over the accounts, and ``--streams`` of them open their ``GET /mcp`` event stream and hold it
(from the source addresses 127.0.0.2 to 127.0.0.5, as the per-address connection cap wants).

Memory is the server's VmRSS (``/proc/PID/status``) after each step; per account and per
session are the differences divided by the counts; the peak is VmHWM at the end. Latency: an
open-loop load at ``--rate`` requests per second of the floor tool (``sevdesk_server_status``,
no sevDesk request, so its whole time is what the server adds), alternating a stateless
2026-07-28 call of one account and a 2025-era call inside one session, over ``--connections``
keep-alive connections, each latency counted from the request's scheduled time (a late send
counts). It runs twice: "idle" right after the first sign-in of ``--accounts-idle`` accounts
and two sessions, and "full" with every account, session and stream; added p99 is full minus
idle, and the full p99 itself is what the server adds to a request.

Limits the numbers meet (``sevdesk_mcp/http/limits.py``): an open GET stream holds a
connection and one of the stream places (half the connections), not a place among the 128
requests in flight; the bench sets ``SEVDESK_HTTP_MAX_CONNECTIONS`` to twice the streams plus
the load's connections (at least the default 256), and the server raises its open-files limit
to match.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_bench import ROOT, free_port, wait_ready
from loadgen import Client, percentile, request_bytes
from scaleout_bench import redis_server

# BENCH_CODE=/path/to/a/copy runs the server (and the fake) from that code root instead
CODE = Path(os.environ.get("BENCH_CODE") or ROOT)
SECRET = "capacity-bench-secret-" + "z" * 40
TOOL = "sevdesk_server_status"
OLD = "2025-11-25"
NEW = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": NEW,
    "io.modelcontextprotocol/clientCapabilities": {},
}
CAPABILITIES = {"elicitation": {"form": {}}, "sampling": {}, "roots": {"listChanged": True}}
REDIRECT = "http://127.0.0.1:9/callback"
STREAM_SOURCES = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
SERVER_CPU, CLIENT_CPU = "0", "1"
MIB = 1024 * 1024
_HIDDEN = re.compile(r'<input type="hidden" name="(request|csrf)" value="([^"]*)">')


def token_of(number: int) -> str:
    """:returns: account ``number``'s sevDesk API token (32 hex digits, sevDesk's shape)."""
    return f"ca{number:030x}"


# --- the fake sevDesk with many accounts (child process) --------------------------------------


def serve_fake(port: int, accounts: int) -> None:
    """Serve ``accounts`` fake sevDesk accounts on 127.0.0.1:``port``, routed by token."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qsl, unquote

    from sevdesk_mcp.fake import FakeSevdesk
    from sevdesk_mcp.fake.exchange import Action, Incoming
    from sevdesk_mcp.fake.models import SevClient
    from sevdesk_mcp.fake.transport import api_path

    fakes: dict[str, FakeSevdesk] = {}

    def fake_for(token: str) -> FakeSevdesk | None:
        if token not in fakes and token.startswith("ca"):
            number = int(token[2:], 16)
            if number < accounts:
                fake = FakeSevdesk(token)
                fake.store.client = SevClient(id=10_000 + number, name=f"Konto {number} GmbH")
                fakes[token] = fake
        return fakes.get(token)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            split = urlsplit(self.path)
            incoming = Incoming(
                method=self.command,
                path=api_path(unquote(split.path)),
                query=dict(parse_qsl(split.query, keep_blank_values=True)),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length) if length else b"",
            )
            fake = fake_for(self.headers.get("Authorization", ""))
            if fake is None:
                self.send_response(401)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            outcome = fake.handle(incoming)
            if outcome.action is not Action.ANSWER:
                self.close_connection = True
                return
            self.send_response(outcome.status)
            for name, value in outcome.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(outcome.body)))
            self.end_headers()
            self.wfile.write(outcome.body)

        do_POST = do_PUT = do_DELETE = do_GET

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()


# --- processes ------------------------------------------------------------------------------


def _pinned(command: list[str], cpu: str) -> list[str]:
    return ["taskset", "-c", cpu, *command] if shutil.which("taskset") else command


@contextmanager
def fake_process(accounts: int) -> Iterator[str]:
    """:yields: the API URL of the fake sevDesk (a child process, stopped after)."""
    port = free_port()
    command = [sys.executable, __file__, "--serve-fake", str(port), str(accounts)]
    env = {**os.environ, "PYTHONPATH": str(CODE)}
    process = subprocess.Popen(_pinned(command, CLIENT_CPU), env=env, cwd=CODE)
    try:
        wait_ready(port)
        yield f"http://127.0.0.1:{port}/api/v1"
    finally:
        process.terminate()
        process.wait()


@dataclass
class Server:
    port: int
    pid: int

    def status(self, field_name: str) -> int:
        """:returns: a ``/proc/PID/status`` figure (``VmRSS``, ``VmHWM``) in bytes."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024
        raise KeyError(field_name)


@contextmanager
def oauth_server(api_url: str, state_url: str | None, max_connections: int) -> Iterator[Server]:
    """:yields: a running OAuth-mode instance (stopped after)."""
    port = free_port()
    state_dir = tempfile.mkdtemp(prefix="bench-capacity-")
    env = {
        **os.environ,
        "PYTHONPATH": str(CODE),
        "SEVDESK_HTTP_AUTH": "oauth",
        "SEVDESK_HTTP_SECRET": SECRET,
        "SEVDESK_HTTP_PORT": str(port),
        "SEVDESK_HTTP_STATE_DIR": state_dir,
        "SEVDESK_ALLOW": "read",
        "SEVDESK_API_URL": api_url,
        "SEVDESK_RATE_PER_S": "1000",
        "SEVDESK_HTTP_RATE_PER_S": "100000",
        "SEVDESK_HTTP_INFLIGHT_PER_CLIENT": "128",
        "SEVDESK_HTTP_CONNECTIONS_PER_CLIENT": str(max_connections),
        "SEVDESK_HTTP_MAX_CONNECTIONS": str(max_connections),
    }
    env.pop("SEVDESK_API_TOKEN", None)
    if state_url is not None:
        env |= {"SEVDESK_HTTP_STATE_URL": state_url, "SEVDESK_HTTP_STATE_NAMESPACE": "capacity"}
    command = _pinned([sys.executable, "-m", "sevdesk_mcp", "--http"], SERVER_CPU)
    process = subprocess.Popen(
        command, env=env, cwd=CODE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_ready(port)
        time.sleep(0.3)
        yield Server(port, process.pid)
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(state_dir, ignore_errors=True)


# --- the client side --------------------------------------------------------------------------


def _headers(era: str, method: str, access: str, session: str | None = None) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": era,
        "Authorization": f"Bearer {access}",
    }
    if era == NEW:
        headers |= {"Mcp-Method": method, **({"Mcp-Name": TOOL} if method == "tools/call" else {})}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    return headers


def _call_body(era: str) -> dict[str, Any]:
    params: dict[str, Any] = {"name": TOOL, "arguments": {}}
    if era == NEW:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}


async def register(http: httpx.AsyncClient) -> str:
    metadata = {"redirect_uris": [REDIRECT], "client_name": "Capacity Bench"}
    answer = await http.post("/register", json=metadata)
    answer.raise_for_status()
    return str(answer.json()["client_id"])


async def sign_in(http: httpx.AsyncClient, client_id: str, number: int) -> str:
    """Run the consent flow for account ``number``; :returns: its access token."""
    verifier = secrets.token_urlsafe(48)
    import base64
    import hashlib

    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
        "state": f"s{number}",
        "scope": "sevdesk:read",
    }
    # a client of its own per flow (its own consent cookie), on the shared connection pool
    # (not closed: closing it would close the shared pool)
    flow = httpx.AsyncClient(
        base_url=http.base_url, transport=http._transport, timeout=60, trust_env=False
    )
    return await _consent(http, flow, client_id, number, query, verifier)


async def _consent(  # noqa: PLR0913, PLR0917
    http: httpx.AsyncClient,
    flow: httpx.AsyncClient,
    client_id: str,
    number: int,
    query: dict[str, str],
    verifier: str,
) -> str:
    page = await flow.get(f"/authorize?{urlencode(query)}")
    page.raise_for_status()
    form = {name: html.unescape(value) for name, value in _HIDDEN.findall(page.text)}
    form |= {"sevdesk_token": token_of(number), "decision": "allow"}
    answer = await flow.post("/authorize", data=form)
    if answer.status_code != 303:
        raise RuntimeError(f"consent of account {number}: {answer.status_code} {answer.text[:300]}")
    code = parse_qs(urlsplit(answer.headers["location"]).query)["code"][0]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "client_id": client_id,
        "redirect_uri": REDIRECT,
    }
    answer = await http.post("/token", data=form)
    answer.raise_for_status()
    access = str(answer.json()["access_token"])
    call = await http.post(
        "/mcp", json=_call_body(NEW), headers=_headers(NEW, "tools/call", access)
    )
    call.raise_for_status()
    return access


async def open_session(http: httpx.AsyncClient, access: str) -> str:
    """Initialize a 2025-era session; :returns: its id."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": OLD,
            "capabilities": CAPABILITIES,
            "clientInfo": {"name": "capacity-bench", "version": "1"},
        },
    }
    headers = _headers(OLD, "initialize", access)
    del headers["MCP-Protocol-Version"]
    answer = await http.post("/mcp", json=body, headers=headers)
    answer.raise_for_status()
    session = answer.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    done = await http.post("/mcp", json=note, headers=_headers(OLD, "x", access, session))
    if done.status_code != 202:
        raise RuntimeError(f"notifications/initialized: {done.status_code}")
    return session


@dataclass
class Stream:
    writer: asyncio.StreamWriter
    drain: asyncio.Task[None]


async def open_stream(port: int, source: str, access: str, session: str) -> Stream:
    """Open a session's ``GET /mcp`` event stream and keep reading it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    lines = [
        "GET /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Accept: text/event-stream",
        f"MCP-Protocol-Version: {OLD}",
        f"Mcp-Session-Id: {session}",
        f"Authorization: Bearer {access}",
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"GET stream: {head[:200]!r}")

    async def drain() -> None:
        while await reader.read(65536):
            pass

    return Stream(writer, asyncio.create_task(drain()))


@dataclass
class Load:
    latencies_s: list[float] = field(default_factory=list)
    bad: int = 0


class Sender(Client):
    """A keep-alive connection that sends whichever request it is given."""

    async def send_bytes(self, request: bytes) -> int:
        self._request = request
        return await self.send()


async def open_loop(
    port: int, requests: list[bytes], rate: float, seconds: float, connections: int
) -> Load:
    """Send ``rate`` requests per second for ``seconds``, each latency from its scheduled time."""
    load = Load()
    queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

    async def worker() -> None:
        sender = Sender(port, b"")
        while (item := await queue.get()) is not None:
            scheduled, request = item
            try:
                status = await sender.send_bytes(request)
            except (ConnectionError, OSError):
                load.bad += 1
                continue
            load.latencies_s.append(time.perf_counter() - scheduled)
            if not 200 <= status < 300:
                load.bad += 1
        sender.close()

    workers = [asyncio.create_task(worker()) for _ in range(connections)]
    start = time.perf_counter() + 0.05
    total = int(rate * seconds)
    for number in range(total):
        scheduled = start + number / rate
        delay = scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        queue.put_nowait((scheduled, requests[number % len(requests)]))
    for _ in workers:
        queue.put_nowait(None)
    await asyncio.gather(*workers)
    return load


def load_requests(port: int, accesses: list[str], sessions: list[tuple[str, str]]) -> list[bytes]:
    """:returns: alternately a stateless 2026-07-28 call and a 2025-era call in a session."""
    out = []
    for number in range(max(len(accesses), len(sessions))):
        access = accesses[number % len(accesses)]
        body = _json(_call_body(NEW))
        out.append(request_bytes(port, "/mcp", _headers(NEW, "tools/call", access), body))
        owner, session = sessions[number % len(sessions)]
        headers = _headers(OLD, "tools/call", owner, session)
        headers["Accept"] = "application/json, text/event-stream"
        out.append(request_bytes(port, "/mcp", headers, _json(_call_body(OLD))))
    return out


def _json(value: Any) -> bytes:
    import json

    return json.dumps(value).encode()


# --- one round ------------------------------------------------------------------------------


@dataclass
class Options:
    accounts: int
    accounts_idle: int
    sessions: int
    streams: int
    rate: float
    seconds: float
    connections: int


async def _gather_limited(coroutines: list[Any], limit: int = 8) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coroutine: Any) -> Any:
        async with gate:
            return await coroutine

    return await asyncio.gather(*(one(c) for c in coroutines))


def _latency(load: Load, options: Options) -> dict[str, float]:
    ordered = sorted(load.latencies_s) or [0.0]
    return {
        "p50_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * percentile(ordered, 0.99),
        "sent_rps": len(load.latencies_s) / options.seconds,
        "bad": float(load.bad),
    }


async def measure(server: Server, options: Options) -> dict[str, float]:
    """Sign in, open sessions and streams, load; :returns: the round's figures."""
    port = server.port
    base = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(max_connections=8)
    figures: dict[str, float] = {"rss_start": server.status("VmRSS")}
    async with httpx.AsyncClient(base_url=base, timeout=60, trust_env=False, limits=limits) as http:
        client_id = await register(http)
        idle = min(options.accounts_idle, options.accounts)
        accesses = await _gather_limited([sign_in(http, client_id, n) for n in range(idle)])
        first = [
            (accesses[n % idle], await open_session(http, accesses[n % idle])) for n in range(2)
        ]
        figures["rss_idle"] = server.status("VmRSS")
        idle_load = await open_loop(
            port,
            load_requests(port, accesses, first),
            options.rate,
            options.seconds,
            options.connections,
        )
        figures |= {f"idle_{k}": v for k, v in _latency(idle_load, options).items()}
        rss_before_accounts = server.status("VmRSS")
        started = time.perf_counter()
        accesses += await _gather_limited(
            [sign_in(http, client_id, n) for n in range(idle, options.accounts)]
        )
        figures["signin_s"] = time.perf_counter() - started
        rss_accounts = server.status("VmRSS")
        figures["per_account_kib"] = (
            (rss_accounts - rss_before_accounts) / max(1, options.accounts - idle) / 1024
        )
        owners = [accesses[n % len(accesses)] for n in range(options.sessions - len(first))]
        sessions = first + list(
            zip(owners, await _gather_limited([open_session(http, a) for a in owners]), strict=True)
        )
        rss_sessions = server.status("VmRSS")
        figures["per_session_kib"] = (
            (rss_sessions - rss_accounts) / max(1, options.sessions - len(first)) / 1024
        )
    streams = []
    for number, (access, session) in enumerate(sessions[: options.streams]):
        source = STREAM_SOURCES[number % len(STREAM_SOURCES)]
        streams.append(await open_stream(port, source, access, session))
    await asyncio.sleep(0.5)
    rss_streams = server.status("VmRSS")
    figures["per_stream_kib"] = (rss_streams - rss_sessions) / max(1, len(streams)) / 1024
    figures["rss_full"] = rss_streams
    full_load = await open_loop(
        port,
        load_requests(port, accesses, sessions),
        options.rate,
        options.seconds,
        options.connections,
    )
    figures |= {f"full_{k}": v for k, v in _latency(full_load, options).items()}
    figures["added_p99_ms"] = figures["full_p99_ms"] - figures["idle_p99_ms"]
    figures["rss_end"] = server.status("VmRSS")
    figures["hwm"] = server.status("VmHWM")
    for stream in streams:
        stream.drain.cancel()
        stream.writer.close()
    return figures


def _connections(options: Options) -> int:
    """:returns: connections the instance needs: each stream counts twice (half the connections
    may be streams), plus the load's and a margin; at least the default 256."""
    return max(256, 2 * options.streams + options.connections + 32)


def one_round(state: str, options: Options, redis_url: str | None) -> dict[str, float]:
    with (
        fake_process(options.accounts) as api_url,
        oauth_server(
            api_url, redis_url if state == "redis" else None, _connections(options)
        ) as server,
    ):
        return asyncio.run(measure(server, options))


ROWS = (
    ("rss_start", "RSS after start (MiB)", MIB),
    ("rss_idle", "RSS, idle accounts signed in (MiB)", MIB),
    ("rss_full", "RSS, all accounts, sessions, streams (MiB)", MIB),
    ("rss_end", "RSS after the full load (MiB)", MIB),
    ("hwm", "peak RSS, VmHWM (MiB)", MIB),
    ("per_account_kib", "per signed-in account (KiB)", 1),
    ("per_session_kib", "per idle session (KiB)", 1),
    ("per_stream_kib", "per open GET stream (KiB)", 1),
    ("signin_s", "sign-in of the accounts (s)", 1),
    ("idle_p50_ms", "idle: p50 (ms)", 1),
    ("idle_p99_ms", "idle: p99 (ms)", 1),
    ("full_p50_ms", "full: p50 (ms)", 1),
    ("full_p99_ms", "full: p99 (ms)", 1),
    ("added_p99_ms", "added p99, full - idle (ms)", 1),
    ("full_sent_rps", "full: answered per second", 1),
    ("full_bad", "full: failed or non-2xx", 1),
)


def report(state: str, rounds: list[dict[str, float]]) -> None:
    print(f"\n{state} state, {len(rounds)} rounds: median [min .. max]")
    for key, label, unit in ROWS:
        values = [r[key] / unit for r in rounds]
        print(
            f"  {label:44} {statistics.median(values):9.1f}"
            f"  [{min(values):.1f} .. {max(values):.1f}]"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--state", choices=("memory", "redis", "both"), default="both")
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--accounts-idle", type=int, default=10)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--rate", type=float, default=500)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve-fake", nargs=2, type=int, metavar=("PORT", "ACCOUNTS"))
    args = parser.parse_args(argv)
    if args.serve_fake:
        serve_fake(*args.serve_fake)
        return 0
    if shutil.which("taskset"):
        os.sched_setaffinity(0, {int(CLIENT_CPU)})
    options = Options(
        args.accounts,
        args.accounts_idle,
        max(2, args.sessions),
        args.streams,
        args.rate,
        args.seconds,
        args.connections,
    )
    states = ("memory", "redis") if args.state == "both" else (args.state,)
    print(
        f"{options.accounts} accounts, {options.sessions} sessions, {options.streams} GET streams,"
        f" {options.rate:g} req/s for {options.seconds:g} s over {options.connections}"
        f" connections, {args.rounds} rounds; load average {os.getloadavg()[0]:.2f}"
    )
    results: dict[str, list[dict[str, float]]] = {s: [] for s in states}
    with redis_server() if "redis" in states else _nothing() as redis_url:
        for _ in range(args.rounds):
            for state in states:
                results[state].append(one_round(state, options, redis_url))
    for state in states:
        report(state, results[state])
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    sys.exit(main())
