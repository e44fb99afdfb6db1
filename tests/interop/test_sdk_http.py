"""The official MCP Python SDK client over Streamable HTTP with a bearer header, both eras.

The server is ``mcp-server-sevdesk --http --demo`` as a subprocess on an ephemeral loopback port;
the conformance fixture server (in-process) covers what the demo books cannot: sampling and
roots input requests through the SDK's callbacks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from sevdesk_mcp.http.settings import HttpSettings
from tests.http.conformance.server import LIMITS, app_factory
from tests.http.helpers import HANG_GUARD_S, SECRET, running
from tests.http.process import HttpProcess, http_env, http_server
from tests.security.test_approval_binding import FINALIZE, FINALIZE_DRAFT
from tests.writes.helpers import DRAFT_ID

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


@pytest.fixture
async def demo() -> AsyncIterator[HttpProcess]:
    async with http_server("--demo") as server:
        yield server


@asynccontextmanager
async def client(
    url: str, mode: str = "auto", secret: str = SECRET, **kwargs: Any
) -> AsyncIterator[Any]:
    headers = {"Authorization": f"Bearer {secret}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, cache=None, **kwargs) as c:
            yield c


async def test_auto_mode_speaks_2026_over_http_against_the_demo_books(demo: HttpProcess) -> None:
    async with client(demo.url) as c:
        assert c.protocol_version == "2026-07-28"
        tools = await c.list_tools()
        found = await c.call_tool("sevdesk_search_contacts", {"query": "Brandt"})
        contact_id = found.structured_content["contacts"][0]["id"]
        contact = await c.call_tool("sevdesk_get_contact", {"contact_id": contact_id})
    names = [t.name for t in tools.tools]
    assert "sevdesk_search_contacts" in names and names == sorted(names, key=names.index)
    assert all(t.annotations.read_only_hint for t in tools.tools)
    assert contact.is_error is not True and contact.structured_content["addresses"]


async def test_legacy_mode_speaks_2025_over_http_without_a_session(demo: HttpProcess) -> None:
    async with client(demo.url, mode="legacy") as c:
        assert c.protocol_version == "2025-11-25"
        tools = await c.list_tools()
        info = await c.call_tool("sevdesk_account_info", {})
        status = await c.call_tool("sevdesk_server_status", {})
    assert any(t.name == "sevdesk_account_info" for t in tools.tools)
    assert "Holzwerk Sonnenberg GmbH" in info.content[0].text
    assert status.structured_content is None  # 2025 clients get text only (auto mode)


async def test_a_wrong_secret_is_refused_before_anything_is_served(demo: HttpProcess) -> None:
    with pytest.raises(ExceptionGroup):  # the SDK reports the 401 as a generic failure
        async with client(demo.url, secret="wrong-" + SECRET):
            pass
    with anyio.fail_after(HANG_GUARD_S):
        while not (statuses := _mcp_statuses(demo)):  # noqa: ASYNC110 - another process's log
            await anyio.sleep(0.01)
    assert statuses == {401}


def _mcp_statuses(server: HttpProcess) -> set[int]:
    access = [json.loads(line) for line in server.stderr if line.startswith("{")]
    return {record["status"] for record in access if record["path"] == "/mcp"}


async def test_sampling_and_roots_input_requests_reach_the_sdk_callbacks() -> None:
    asked: list[str] = []

    async def sample(ctx: Any, params: Any) -> Any:
        asked.append("sampling")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Paris"), model="m"
        )

    async def roots(ctx: Any) -> Any:
        asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///books", name="books")])

    settings = HttpSettings(host="127.0.0.1", port=0)
    async with running(settings=settings, build=app_factory(), limits=LIMITS) as server:
        url = f"{server.url}/mcp"
        async with client(url, sampling_callback=sample, list_roots_callback=roots) as c:
            sampled = await c.call_tool("test_input_required_result_sampling", {})
            listed = await c.call_tool("test_input_required_result_list_roots", {})
    assert asked == ["sampling", "roots"]
    assert sampled.content[0].text == "The model said: Paris"
    assert listed.content[0].text == "Roots: file:///books"


async def test_an_approval_over_http_in_the_2025_era_names_the_real_reason() -> None:
    """Issue 14, point 1: the client declared form elicitation; the transport is what cannot ask
    (sessions off; with sessions it is asked: test_sdk_http_sessions.py)."""
    asked: list[str] = []

    async def answer(ctx: Any, params: Any) -> Any:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    env = http_env(SEVDESK_ALLOW="write,commit", SEVDESK_HTTP_SESSIONS="off")
    async with (
        http_server("--demo", env=env) as server,
        client(server.url, mode="legacy", elicitation_callback=answer) as c,
    ):
        result = await c.call_tool(FINALIZE, FINALIZE_DRAFT)
        draft = await c.call_tool(
            "sevdesk_get_document", {"kind": "invoice", "document_id": DRAFT_ID}
        )
    text = result.content[0].text
    assert result.is_error is True and asked == []
    assert "without a session" in text and "whatever the client supports" in text
    assert "2026-07-28" in text and "stdio" in text and "Nothing was changed." in text
    assert "cannot show approval forms" not in text
    assert json.loads(draft.content[0].text)["document"]["status"] == "draft"
