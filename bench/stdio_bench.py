"""Stdio benchmarks, ours against the official SDK's MCPServer, in one run, alternating.

Run by hand: ``make bench`` (or ``python bench/stdio_bench.py``). Never imported by tests.

Scenarios (section 3.3 of the team's performance notes: 1 protocol floor, 2 realistic read
tool, 4 stdio session from cold start):

- cold start: process start until the answer to ``initialize`` arrives, and until the answer
  to the ``tools/list`` sent right after it (so work deferred past ``initialize`` still counts);
- per call: sequential ``tools/call`` round trips on one connection, for a tool that does no
  sevDesk work (the floor) and for ``sevdesk_search_contacts`` on the in-memory demo books,
  alternating call by call; then the floor again in alternating blocks of 50 calls (warm);
- peak RSS (VmHWM) of each server process after the calls.

The package's bytecode is compiled first (as installing a wheel does), so neither server pays
for compiling our modules on every start when ``PYTHONDONTWRITEBYTECODE`` is set.
"""

from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVERS = {
    "ours": [sys.executable, "-m", "sevdesk_mcp", "--demo", "--stdio"],
    "peer": [sys.executable, str(ROOT / "bench" / "peer_server.py")],
}
COLD_STARTS = int(os.environ.get("BENCH_COLD_STARTS", "10"))
CALLS = int(os.environ.get("BENCH_CALLS", "300"))
BLOCK = 50
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


@dataclass
class Figures:
    cold_s: list[float] = field(default_factory=list)
    listed_s: list[float] = field(default_factory=list)
    floor_s: list[float] = field(default_factory=list)
    read_s: list[float] = field(default_factory=list)
    warm_s: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)


class Session:
    """One server process spoken to line by line."""

    def __init__(self, command: list[str]) -> None:
        # The client's pacing (4 requests/s by default) is lifted for both servers: the
        # benchmark measures the MCP layer, not the politeness towards sevDesk.
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SEVDESK_RATE_PER_S": "1000"}
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
        )
        self.next_id = 1

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, request_id: int) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            message: dict[str, Any] = json.loads(self.proc.stdout.readline())
            if message.get("id") == request_id:
                return message

    def call(self, name: str, arguments: dict[str, Any]) -> float:
        self.next_id += 1
        start = time.perf_counter()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        answer = self.answer(self.next_id)
        assert "result" in answer and not answer["result"].get("isError"), answer
        return time.perf_counter() - start

    def peak_rss_kib(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1])

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def initialized(command: list[str]) -> tuple[Session, float]:
    session = Session(command)
    session.send(INIT)
    session.answer(0)
    elapsed = time.perf_counter() - session.started
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return session, elapsed


def compile_bytecode() -> None:
    """Compile the package's bytecode once, as installing a wheel does."""
    compileall.compile_dir(ROOT / "sevdesk_mcp", quiet=1)


def cold_start(command: list[str], figures: Figures) -> None:
    session, elapsed = initialized(command)
    figures.cold_s.append(elapsed)
    session.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    session.answer(1)
    figures.listed_s.append(time.perf_counter() - session.started)
    session.close()


def run() -> dict[str, Figures]:
    compile_bytecode()
    figures = {name: Figures() for name in SERVERS}
    for _ in range(COLD_STARTS):
        for name, command in SERVERS.items():
            cold_start(command, figures[name])
    sessions = {name: initialized(command)[0] for name, command in SERVERS.items()}
    for _ in range(CALLS):
        for name, session in sessions.items():
            figures[name].floor_s.append(session.call("sevdesk_server_status", {}))
            figures[name].read_s.append(
                session.call("sevdesk_search_contacts", {"query": "Brandt"})
            )
    warm_calls(sessions, figures)
    for name, session in sessions.items():
        figures[name].rss_kib.append(session.peak_rss_kib())
        session.close()
    return figures


def warm_calls(sessions: dict[str, Session], figures: dict[str, Figures]) -> None:
    """Floor calls in blocks of :data:`BLOCK` per server, still alternating block by block.

    Call by call, each server runs right after the other one and starts with cold caches,
    which costs a small server relatively more; blocks show the steady per-call cost.
    """
    for _ in range(max(1, CALLS // BLOCK)):
        for name, session in sessions.items():
            for _ in range(BLOCK):
                figures[name].warm_s.append(session.call("sevdesk_server_status", {}))


def shared_work_s(calls: int = 300) -> float:
    """:returns: the median time of the read tool's domain work alone (client, fake, parsing),
    in this process: both servers run exactly this code, so it is the same on both sides."""
    import anyio

    from sevdesk_mcp.domain.contacts import read as contacts
    from sevdesk_mcp.fake import DEMO_TOKEN, build_demo
    from sevdesk_mcp.safety.redact import Secret
    from sevdesk_mcp.safety.tiers import Tier
    from sevdesk_mcp.sevdesk.client import SevdeskClient
    from sevdesk_mcp.sevdesk.gate import WriteGate
    from sevdesk_mcp.sevdesk.pacing import Pacer

    url = "https://demo.sevdesk.invalid/api/v1"
    client = SevdeskClient(
        base_url=url,
        token=Secret(DEMO_TOKEN),
        gate=WriteGate(tiers=frozenset({Tier.READ})),
        transport=build_demo().transport(),
        pacer=Pacer(rate_per_s=1000, burst=50),
    )
    times: list[float] = []

    async def measure() -> None:
        for _ in range(calls):
            start = time.perf_counter()
            await contacts.search_contacts(client, url, query="Brandt", category="any", limit=25)
            times.append(time.perf_counter() - start)

    anyio.run(measure)
    return statistics.median(times)


def p99(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.99) - 1)]


def report(figures: dict[str, Figures]) -> None:
    ours, peer = figures["ours"], figures["peer"]
    rows = [
        (
            "cold start to initialize (median s)",
            statistics.median(ours.cold_s),
            statistics.median(peer.cold_s),
        ),
        (
            "cold start to tools/list (median s)",
            statistics.median(ours.listed_s),
            statistics.median(peer.listed_s),
        ),
        (
            "floor tool call (median ms)",
            1000 * statistics.median(ours.floor_s),
            1000 * statistics.median(peer.floor_s),
        ),
        ("floor tool call (p99 ms)", 1000 * p99(ours.floor_s), 1000 * p99(peer.floor_s)),
        (
            f"floor, blocks of {BLOCK} (median ms)",
            1000 * statistics.median(ours.warm_s),
            1000 * statistics.median(peer.warm_s),
        ),
        (
            "read tool call (median ms)",
            1000 * statistics.median(ours.read_s),
            1000 * statistics.median(peer.read_s),
        ),
        ("read tool call (p99 ms)", 1000 * p99(ours.read_s), 1000 * p99(peer.read_s)),
        ("peak RSS (MiB)", ours.rss_kib[0] / 1024, peer.rss_kib[0] / 1024),
    ]
    shared = 1000 * shared_work_s()
    rows.append(
        (
            "read tool minus shared work (median ms)",
            1000 * statistics.median(ours.read_s) - shared,
            1000 * statistics.median(peer.read_s) - shared,
        )
    )
    print(f"{'measure':40} {'ours':>10} {'peer':>10} {'ours/peer':>10}")
    for label, mine, theirs in rows:
        print(f"{label:40} {mine:10.3f} {theirs:10.3f} {mine / theirs:10.2f}")
    print(f"shared work of the read tool, in-process (median ms): {shared:.3f}")
    print(f"\n{COLD_STARTS} cold starts and {CALLS} calls per tool and server, alternating.")


if __name__ == "__main__":
    report(run())
