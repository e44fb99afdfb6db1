"""Scenario 6, backend fault storm: our sevDesk client against plain httpx defaults.

Run by hand: ``python bench/fault_bench.py`` (or ``make bench-faults``). Never imported by tests.

Both sides talk to their own copy of the demo books through a transport that injects a fault
into ``BENCH_STORM_SHARE`` (20%) of the requests before the fake sees them, drawn from the same
seeded sequence: 429 with ``Retry-After: 1``, 503, a connection reset, a stall of
``BENCH_STALL_S`` (5 s), or (for a write) a timeout after the write was applied. ``BENCH_CALLS``
read calls (what ``sevdesk_search_contacts`` does) and half as many write calls (``POST
/Contact`` with a unique name) run with 16 in flight.

Counted at the fake: backend requests per call and retried writes (a unique body received more
than once). Ours is the product's ``SevdeskClient`` (GETs retried within a budget, writes sent
at most once); the peer is what a tool written with plain httpx defaults does (no retries). The
MCP layer adds no backend requests, so this runs in-process without it.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import httpx

from sevdesk_mcp.domain.contacts import read as contacts
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, build_demo
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer

URL = "https://demo.sevdesk.invalid/api/v1"
SHARE = float(os.environ.get("BENCH_STORM_SHARE", "0.2"))
STALL_S = float(os.environ.get("BENCH_STALL_S", "5"))
CALLS = int(os.environ.get("BENCH_CALLS", "300"))
IN_FLIGHT = 16
KINDS = ("429", "503", "reset", "stall", "timeout-after-write")
Call = Callable[[int], Awaitable[None]]


class Storm(httpx.AsyncBaseTransport):
    """Injects a fault into a share of the requests, then lets the fake answer."""

    def __init__(self, fake: FakeSevdesk, seed: int) -> None:
        self._fake = fake
        self._inner = fake.transport()
        self._rng = random.Random(seed)  # noqa: S311 - a repeatable draw, not a secret
        self.injected: Counter[str] = Counter()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the fake's answer, after the fault drawn for this request."""
        if self._rng.random() < SHARE:
            kind = self._rng.choice(KINDS)
            self.injected[kind] += 1
            faults = self._fake.faults
            if kind == "429":
                faults.fail_next(429, retry_after="1")
            elif kind == "503":
                faults.fail_next(503)
            elif kind == "reset":
                faults.reset_next()
            elif kind == "stall":
                await anyio.sleep(STALL_S)
            else:
                faults.timeout_after_write_next()  # taken by the next write only
        return await self._inner.handle_async_request(request)


@dataclass
class Outcome:
    """What one side saw."""

    ok: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    latencies_s: list[float] = field(default_factory=list)


def ours(transport: Storm) -> tuple[Call, Call]:
    client = SevdeskClient(
        base_url=URL,
        token=Secret(DEMO_TOKEN),
        gate=WriteGate(tiers=frozenset({Tier.READ, Tier.WRITE})),
        pacer=Pacer(rate_per_s=1000, burst=50),
        transport=transport,
    )

    async def read(_: int) -> None:
        await contacts.search_contacts(client, URL, query="Brandt", category="any", limit=25)

    async def write(n: int) -> None:
        await client.send("POST", "/Contact", tier=Tier.WRITE, json=_contact(n))

    return read, write


def peer(transport: Storm) -> tuple[Call, Call]:
    http = httpx.AsyncClient(
        base_url=URL, headers={"Authorization": DEMO_TOKEN}, transport=transport
    )

    async def read(_: int) -> None:
        response = await http.get("/Contact", params={"depth": 1, "limit": 1000})
        response.raise_for_status()
        response.json()

    async def write(n: int) -> None:
        (await http.post("/Contact", json=_contact(n))).raise_for_status()

    return read, write


def _contact(n: int) -> JsonObject:
    return {"name": f"Storm {n:05d}", "category": {"id": 3, "objectName": "Category"}}


async def storm(calls: tuple[Call, Call]) -> Outcome:
    read, write = calls
    outcome = Outcome()
    plan = [("read", n) for n in range(CALLS)] + [("write", n) for n in range(CALLS // 2)]
    random.Random(7).shuffle(plan)  # noqa: S311 - a repeatable order, not a secret
    limiter = anyio.Semaphore(IN_FLIGHT)

    async def one(kind: str, n: int) -> None:
        async with limiter:
            start = time.perf_counter()
            try:
                await (read if kind == "read" else write)(n)
                outcome.ok[kind] += 1
            except Exception:  # every failure counts the same here
                outcome.failed[kind] += 1
            outcome.latencies_s.append(time.perf_counter() - start)

    async with anyio.create_task_group() as tg:
        for kind, n in plan:
            tg.start_soon(one, kind, n)
    return outcome


def at_the_fake(fake: FakeSevdesk) -> dict[str, float]:
    reads = [r for r in fake.requests if r.method == "GET"]
    writes = Counter(r.body for r in fake.requests if r.method == "POST")
    return {
        "read_requests_per_call": len(reads) / CALLS,
        "write_requests_per_call": sum(writes.values()) / (CALLS // 2),
        "requests_per_call": len(fake.requests) / (CALLS + CALLS // 2),
        "retried_writes": float(sum(n - 1 for n in writes.values() if n > 1)),
    }


def run(side: Callable[[Storm], tuple[Call, Call]]) -> tuple[Outcome, dict[str, float], Storm]:
    fake = build_demo()
    transport = Storm(fake, seed=2026)
    outcome = asyncio.run(storm(side(transport)))
    return outcome, at_the_fake(fake), transport


def show(name: str, outcome: Outcome, counted: dict[str, float], transport: Storm) -> None:
    ordered = sorted(outcome.latencies_s)
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    print(f"{name}: faults injected {dict(transport.injected)}")
    for kind, total in (("read", CALLS), ("write", CALLS // 2)):
        print(f"  {kind} calls succeeded: {outcome.ok[kind]}/{total}")
    print(
        f"  backend requests per call: {counted['requests_per_call']:.2f} "
        f"(reads {counted['read_requests_per_call']:.2f}, "
        f"writes {counted['write_requests_per_call']:.2f}); "
        f"retried writes at the fake: {counted['retried_writes']:.0f}"
    )
    print(f"  latency per call: median {statistics.median(ordered):.3f} s, p99 {p99:.3f} s")


def main() -> None:
    for name, side in (("ours (SevdeskClient)", ours), ("peer (plain httpx)", peer)):
        show(name, *run(side))
    print(f"\n{SHARE:.0%} of requests faulted; stall {STALL_S:g} s; {IN_FLIGHT} calls in flight.")


if __name__ == "__main__":
    main()
