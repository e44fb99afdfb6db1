"""Scale-out benchmark (issue 25): requests per second of three instances sharing one Redis
against one instance, on the floor tool and the read tool.

Run by hand: ``python bench/scaleout_bench.py`` (needs Debian's ``redis-server``). Never
imported by tests.

Setups, each ``--http --demo`` with a bearer secret (the demo books in each process, so the
instances share the state of the HTTP stack, not the books):

- ``memory x1``: one instance, every store in its process (no Redis): the reference;
- ``redis x1``: one instance with ``SEVDESK_HTTP_STATE_URL``: what the shared state costs
  (the rate limit per client and the sevDesk pacer take a Redis round trip per request);
- ``redis x3``: three instances on one Redis, the clients spread over them evenly.

Scenarios: the floor tool (``sevdesk_server_status``, no sevDesk request) and the read tool
(``sevdesk_search_contacts``, one paced request to the demo books), 2026-07-28,
``BENCH_CLIENTS`` (32) keep-alive clients in all, ``BENCH_SECONDS`` (5) per run, ``BENCH_ROUNDS``
(3) rounds; figures are medians. The load generator runs in this process (``loadgen``); on a
machine with few cores the instances, Redis and the load generator share them, so the gain of
three instances is bounded by the cores, not by the shared state: the report prints the
machine's core count beside the figures.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

from http_bench import FLOOR_TOOL, ROOT, call_request, free_port, server_env, wait_ready
from loadgen import Tally, closed_loop

CLIENTS = int(os.environ.get("BENCH_CLIENTS", "32"))
DURATION_S = float(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
READ_TOOL = "sevdesk_search_contacts"
SETUPS = (("memory x1", False, 1), ("redis x1", True, 1), ("redis x3", True, 3))


@contextmanager
def redis_server() -> Iterator[str]:
    """:yields: the URL of a private ``redis-server`` on a loopback port (stopped after)."""
    port = free_port()
    folder = tempfile.mkdtemp(prefix="bench-redis-")
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    command += ["--appendonly", "no", "--dir", folder]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        wait_ready(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait()


@contextmanager
def instances(count: int, state_url: str | None) -> Iterator[list[int]]:
    """:yields: the ports of ``count`` instances (sharing ``state_url`` if given)."""
    ports = [free_port() for _ in range(count)]
    processes = []
    for port in ports:
        env = server_env(port)
        if state_url is not None:
            env |= {"SEVDESK_HTTP_STATE_URL": state_url, "SEVDESK_HTTP_STATE_NAMESPACE": "bench"}
        command = [sys.executable, "-m", "sevdesk_mcp", "--http", "--demo"]
        processes.append(
            subprocess.Popen(
                command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        )
    try:
        for port in ports:
            wait_ready(port)
        time.sleep(0.5)
        yield ports
    finally:
        for process in processes:
            process.terminate()
            process.wait()


def spread(ports: list[int], tool: str) -> float:
    """:returns: requests per second of ``CLIENTS`` clients spread evenly over ``ports``."""

    async def run() -> list[Tally]:
        share = [CLIENTS // len(ports) + (i < CLIENTS % len(ports)) for i in range(len(ports))]
        return await asyncio.gather(
            *(
                closed_loop(port, call_request(port, tool), n, DURATION_S)
                for port, n in zip(ports, share, strict=True)
            )
        )

    tallies = asyncio.run(run())
    failed = sum(n for t in tallies for s, n in t.statuses.items() if not 200 <= s < 300)
    if failed or any(t.failures for t in tallies):
        raise RuntimeError(f"{failed} answers were not 2xx: the figure would mean nothing")
    return sum(len(t.latencies_s) for t in tallies) / DURATION_S


def main() -> None:
    results: dict[tuple[str, str], list[float]] = {}
    with redis_server() as url:
        for _ in range(ROUNDS):
            for name, shared, count in SETUPS:
                with instances(count, url if shared else None) as ports:
                    for tool in (FLOOR_TOOL, READ_TOOL):
                        results.setdefault((name, tool), []).append(spread(ports, tool))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{CLIENTS} clients, {DURATION_S:g} s x {ROUNDS} rounds, {cores} cores")
    for tool in (FLOOR_TOOL, READ_TOOL):
        base = statistics.median(results[("redis x1", tool)])
        for name, _, _ in SETUPS:
            rps = statistics.median(results[(name, tool)])
            print(f"{tool:28} {name:10} {rps:8.0f} req/s  {rps / base:4.2f}x redis x1")


if __name__ == "__main__":
    main()
