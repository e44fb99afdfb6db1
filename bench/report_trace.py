"""When each request of one report call is sent, gets its head and its last byte.

Run by hand: ``python bench/report_trace.py [tool] [calls]`` (default ``sevdesk_open_items``,
3 calls); never imported by tests. The fake sevDesk of ``latency_bench.py`` serves the large
account (10,000 invoices, 2,000 contacts, 20,000 transactions) from a child process with
``BENCH_LATENCY_MS`` (default 70) per request. One warm-up call renders every answer; then each
call runs on a fresh account (full token bucket, cold reference cache) and prints its wall and
CPU time and one line per request: path, status filter, offset, and the milliseconds since the
call began at which the request was sent, its head arrived and its body was read. Read against
the floor of ``latency_bench.py``, it shows where a call waits: for the first page, for an
in-flight slot, or for the event loop while other pages are converted.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from latency_bench import _start_server

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.cli.run import pacer_of
from sevdesk_mcp.config import Config, load_config
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from tests.wire import open_wire


class Stamp:
    """One request: what it asked for and when (``time.perf_counter``) it went and came."""

    def __init__(self, request: httpx.Request) -> None:
        params = request.url.params
        self.path = request.url.path.split("/api/v1", 1)[-1]
        self.status = params.get("status", "")
        self.offset = params.get("offset", "")
        self.sent = time.perf_counter()
        self.head = 0.0
        self.body = 0.0
        self.size = 0


class Timing(httpx.AsyncBaseTransport):
    """Stamps every request it passes on."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.stamps: list[Stamp] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        stamp = Stamp(request)
        self.stamps.append(stamp)
        response = await self.inner.handle_async_request(request)
        stamp.head = time.perf_counter()
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Stamped(response.stream, stamp),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Stamped(httpx.AsyncByteStream):
    def __init__(self, inner: Any, stamp: Stamp) -> None:
        self._inner, self._stamp = inner, stamp

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._stamp.size += len(chunk)
            yield chunk
        self._stamp.body = time.perf_counter()

    async def aclose(self) -> None:
        await self._inner.aclose()


def _app(facts: dict[str, Any], config: Config, transport: httpx.AsyncBaseTransport) -> McpApp:
    client = SevdeskClient(
        base_url=config.api_url,
        token=Secret(facts["token"]),
        gate=WriteGate(tiers=config.tiers, read_only=True),
        pacer=pacer_of(config),
        transport=transport,
    )
    today = dt.date.fromisoformat(facts["today"])
    account = AccountContext(config=config, client=client, demo=True, today=lambda: today)
    return ServerFactory(config).build(account)


async def _call(app: McpApp, tool: str) -> tuple[float, float, float]:
    """:returns: when the call began, its wall and its CPU seconds."""
    async with open_wire(app) as wire:
        began, cpu = time.perf_counter(), time.process_time()
        answer = await wire.modern("tools/call", {"name": tool, "arguments": {}})
        wall = time.perf_counter() - began
    assert not answer["result"].get("isError"), answer
    return began, wall, time.process_time() - cpu


async def _trace(facts: dict[str, Any], tool: str, calls: int) -> None:
    config = load_config({"SEVDESK_API_URL": facts["url"]})
    await _call(_app(facts, config, httpx.AsyncHTTPTransport()), tool)  # renders every answer
    for _ in range(calls):
        timing = Timing(httpx.AsyncHTTPTransport())
        began, wall, cpu = await _call(_app(facts, config, timing), tool)
        print(f"\n{tool}: wall {wall * 1000:.0f} ms, CPU {cpu * 1000:.0f} ms")
        print(f"{'path':32} {'status':>6} {'offset':>6} {'sent':>7} {'head':>7} {'body':>7} bytes")
        for s in sorted(timing.stamps, key=lambda stamp: stamp.sent):
            times = (1000 * (t - began) for t in (s.sent, s.head, s.body))
            sent, head, body = times
            print(
                f"{s.path[:32]:32} {s.status:>6} {s.offset:>6} "
                f"{sent:7.1f} {head:7.1f} {body:7.1f} {s.size}"
            )


def main() -> None:
    tool = sys.argv[1] if len(sys.argv) > 1 else "sevdesk_open_items"
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    server = _start_server({"large": True})
    try:
        facts = json.loads(server.stdout.readline())  # type: ignore[union-attr]
        anyio.run(_trace, facts, tool, calls)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
