"""Stdio benchmarks, ours against the official SDK's MCPServer, in one run, alternating.

Run by hand: ``make bench`` (or ``python bench/stdio_bench.py``). Never imported by tests.

Scenarios (section 3.3 of the team's performance notes: 1 protocol floor, 2 realistic read
tool, 4 stdio session from cold start):

- cold start: process start until the answer to ``initialize`` arrives;
- per call: sequential ``tools/call`` round trips on one connection, for a tool that does no
  sevDesk work (the floor) and for ``sevdesk_search_contacts`` on the in-memory demo books;
- peak RSS (VmHWM) of each server process after the calls.
"""

from __future__ import annotations

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
    floor_s: list[float] = field(default_factory=list)
    read_s: list[float] = field(default_factory=list)
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


def run() -> dict[str, Figures]:
    figures = {name: Figures() for name in SERVERS}
    for _ in range(COLD_STARTS):
        for name, command in SERVERS.items():
            session, elapsed = initialized(command)
            figures[name].cold_s.append(elapsed)
            session.close()
    sessions = {name: initialized(command)[0] for name, command in SERVERS.items()}
    for _ in range(CALLS):
        for name, session in sessions.items():
            figures[name].floor_s.append(session.call("sevdesk_server_status", {}))
            figures[name].read_s.append(
                session.call("sevdesk_search_contacts", {"query": "Brandt"})
            )
    for name, session in sessions.items():
        figures[name].rss_kib.append(session.peak_rss_kib())
        session.close()
    return figures


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
            "floor tool call (median ms)",
            1000 * statistics.median(ours.floor_s),
            1000 * statistics.median(peer.floor_s),
        ),
        ("floor tool call (p99 ms)", 1000 * p99(ours.floor_s), 1000 * p99(peer.floor_s)),
        (
            "read tool call (median ms)",
            1000 * statistics.median(ours.read_s),
            1000 * statistics.median(peer.read_s),
        ),
        ("read tool call (p99 ms)", 1000 * p99(ours.read_s), 1000 * p99(peer.read_s)),
        ("peak RSS (MiB)", ours.rss_kib[0] / 1024, peer.rss_kib[0] / 1024),
    ]
    print(f"{'measure':40} {'ours':>10} {'peer':>10} {'ours/peer':>10}")
    for label, mine, theirs in rows:
        print(f"{label:40} {mine:10.3f} {theirs:10.3f} {mine / theirs:10.2f}")
    print(f"\n{COLD_STARTS} cold starts and {CALLS} calls per tool and server, alternating.")


if __name__ == "__main__":
    report(run())
