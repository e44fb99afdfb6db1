"""Shutdown: /healthz turns 503, new requests are refused, running ones get their grace."""

from __future__ import annotations

import anyio
import httpx
import pytest

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.service.serve import HttpService, bind_service
from sevdesk_mcp.http.settings import HttpSettings
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.types import InputRequired, JsonObject, ToolResult
from tests.fixture_app import FixtureTools, fixture_app
from tests.http.helpers import HANG_GUARD_S, modern_body, modern_headers

pytestmark = pytest.mark.anyio
LONG_GRACE_S = 10 * HANG_GUARD_S  # a grace no call outlives here


class GatedTools(FixtureTools):
    """Adds ``gated``: runs until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = anyio.Event()

    async def call_tool(
        self, name: str, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        if name == "gated":
            return await self._gated()
        return await super().call_tool(name, arguments, ctx)

    async def _gated(self) -> ToolResult:
        self.started.set()
        try:
            await self.gate.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled = True
            raise
        return ToolResult(content=[{"type": "text", "text": "finished"}])


async def serve(tools: GatedTools, limits: Limits) -> HttpService:
    return await bind_service(
        HttpSettings(host="127.0.0.1", port=0),
        lambda: fixture_app(tools=tools),
        principal="bearer",
        limits=limits,
        access_log=AccessLog(sink=lambda line: None),
    )


async def call_gated(url: str, results: list[httpx.Response | Exception]) -> None:
    body = modern_body("tools/call", {"name": "gated"})
    async with httpx.AsyncClient(timeout=HANG_GUARD_S, trust_env=False) as client:
        try:
            response = await client.post(
                url, json=body, headers=modern_headers("tools/call", "gated")
            )
        except httpx.HTTPError as exc:
            results.append(exc)
        else:
            results.append(response)


async def test_running_requests_finish_while_health_checks_fail_and_new_calls_are_refused() -> None:
    tools = GatedTools()
    # A grace past the guard: the gated call is let go well within it however slow the
    # machine, and the server must stop once it has finished (not at the grace's end).
    service = await serve(tools, Limits(shutdown_grace_s=LONG_GRACE_S))
    base = f"http://127.0.0.1:{service.port}"
    stop, results = anyio.Event(), list[httpx.Response | Exception]()
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(service.run, stop)
            tg.start_soon(call_gated, f"{base}/mcp", results)
            await tools.started.wait()
            stop.set()
            async with httpx.AsyncClient(
                base_url=base, trust_env=False, timeout=HANG_GUARD_S
            ) as client:
                health = await client.get("/healthz")
                refused = await client.post(
                    "/mcp", json=modern_body("tools/list"), headers=modern_headers("tools/list")
                )
            tools.gate.set()
    assert health.status_code == 503 and refused.status_code == 503
    finished = results[0]
    assert isinstance(finished, httpx.Response) and finished.status_code == 200
    assert finished.json()["result"]["content"][0]["text"] == "finished"
    with pytest.raises(OSError, match="connect"):  # the listener closed with the service
        await anyio.connect_tcp("127.0.0.1", service.port)


async def test_requests_still_running_after_the_grace_are_cancelled() -> None:
    tools = GatedTools()
    service = await serve(tools, Limits(shutdown_grace_s=0.2))
    stop, results = anyio.Event(), list[httpx.Response | Exception]()
    async with anyio.create_task_group() as tg:
        tg.start_soon(service.run, stop)
        tg.start_soon(call_gated, f"http://127.0.0.1:{service.port}/mcp", results)
        with anyio.fail_after(HANG_GUARD_S):
            await tools.started.wait()
        stop.set()
    assert tools.cancelled
    assert isinstance(results[0], httpx.HTTPError)  # the connection closed without an answer
