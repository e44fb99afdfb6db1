"""HTTP benchmarks, ours against the official SDK's MCPServer, in one run, one after the other.

Run by hand: ``python bench/http_bench.py``. Never imported by tests.

Scenario 1 (protocol floor) and 2 (realistic read tool) of the team's performance notes over
Streamable HTTP on 127.0.0.1: a load generator of our own (httpx, N concurrent clients, each
sending 2026-07-28 ``tools/call`` requests back to back for a fixed time) reports requests per
second, median and p99 latency. Ours runs ``--http --demo`` with a bearer secret; the peer runs
``MCPServer`` stateless with JSON responses. Both lift the client's pacing towards the fake.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-" + "x" * 40
DURATION_S = float(os.environ.get("BENCH_SECONDS", "5"))
CLIENTS = [int(n) for n in os.environ.get("BENCH_CLIENTS", "1,32").split(",")]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(name: str, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SEVDESK_RATE_PER_S": "1000",
        "SEVDESK_HTTP_AUTH": "bearer",
        "SEVDESK_HTTP_SECRET": SECRET,
        "SEVDESK_HTTP_PORT": str(port),
        "SEVDESK_HTTP_RATE_PER_S": "100000",
        "SEVDESK_HTTP_INFLIGHT_PER_CLIENT": "128",
    }
    if name == "ours":
        command = [sys.executable, "-m", "sevdesk_mcp", "--http", "--demo"]
    else:
        command = [sys.executable, str(ROOT / "bench" / "peer_server.py"), "--http", str(port)]
    return subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
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


async def worker(
    client: httpx.AsyncClient, url: str, tool: str, until: float, latencies: list[float]
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": META},
    }
    headers = {
        "Authorization": f"Bearer {SECRET}",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
        "Accept": "application/json, text/event-stream",
    }
    while time.perf_counter() < until:
        start = time.perf_counter()
        response = await client.post(url, json=body, headers=headers)
        assert response.status_code == 200, response.text[:200]
        latencies.append(time.perf_counter() - start)


async def load(port: int, tool: str, clients: int) -> dict[str, float]:
    url = f"http://127.0.0.1:{port}/mcp"
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        until = time.perf_counter() + DURATION_S
        await asyncio.gather(*(worker(client, url, tool, until, latencies) for _ in range(clients)))
    ordered = sorted(latencies)
    return {
        "rps": len(latencies) / DURATION_S,
        "median_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * ordered[max(0, int(len(ordered) * 0.99) - 1)],
    }


def measure(name: str) -> dict[tuple[str, int], dict[str, float]]:
    port = free_port()
    process = start(name, port)
    try:
        wait_ready(port)
        return {
            (tool, n): asyncio.run(load(port, tool, n))
            for tool in ("sevdesk_server_status", "sevdesk_search_contacts")
            for n in CLIENTS
        }
    finally:
        process.terminate()
        process.wait(10)


def main() -> None:
    results: dict[str, Any] = {name: measure(name) for name in ("ours", "peer")}
    print(
        f"{'tool':26} {'clients':>7} {'ours rps':>9} {'peer rps':>9} {'ratio':>6} "
        f"{'ours p50':>9} {'peer p50':>9} {'ours p99':>9} {'peer p99':>9}"
    )
    for key, mine in results["ours"].items():
        theirs = results["peer"][key]
        print(
            f"{key[0]:26} {key[1]:7d} {mine['rps']:9.0f} {theirs['rps']:9.0f} "
            f"{mine['rps'] / theirs['rps']:6.2f} {mine['median_ms']:9.2f} "
            f"{theirs['median_ms']:9.2f} {mine['p99_ms']:9.2f} {theirs['p99_ms']:9.2f}"
        )
    print(f"\n{DURATION_S:g} s per cell; latencies in ms; the load generator shares the 2 cores.")


if __name__ == "__main__":
    main()
