"""Two HTTP servers sharing 2025-era sessions on one Redis, as behind a load balancer without
sticky sessions (issue 25): the session begun on one is served by the other, and the client's
answer to an elicitation asked on one, posted to the other, reaches the waiting call."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest

from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore
from sevdesk_mcp.shared.redis import open_state
from tests.http.test_sessions import _events as first_event
from tests.http.test_sessions import _subscribe, cancel_while_asking
from tests.security.test_http_sessions import HEADERS, INITIALIZE, PING, _in, _session, serving

pytestmark = pytest.mark.anyio

SECRET = "http-instances-" + "z" * 32
STORES: list[RedisSessionStore] = []  # the two instances' stores, for the test in progress
DETAILS = {"username": "ada", "email": "ada@example.org"}


@pytest.fixture
async def servers(redis_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    namespace = f"t{uuid.uuid4().hex}"
    states = [open_state(redis_url, [SECRET], namespace=namespace) for _ in range(2)]
    STORES.clear()
    STORES.extend(RedisSessionStore(state) for state in states)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(serving(store, "bearer")) for store in STORES]
        yield clients[0], clients[1]
    keys = [k async for k in states[0].client.scan_iter(match=f"{namespace}:*")]
    if keys:
        await states[0].client.delete(*keys)
    for state in states:
        await state.aclose()


def _events(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in lines if line.startswith("data: ")]


async def test_an_elicitation_asked_on_one_is_answered_through_the_other(
    servers: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    a, b = servers
    initialize = {
        **INITIALIZE,
        "params": {**INITIALIZE["params"], "capabilities": {"elicitation": {}}},
    }
    started = await a.post("/mcp", json=initialize, headers=HEADERS)
    session = started.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await b.post("/mcp", json=initialized, headers=_in(session))).status_code == 202
    call = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "test_elicitation", "arguments": {}},
    }
    lines: list[str] = []
    async with a.stream("POST", "/mcp", json=call, headers=_in(session)) as stream:
        received = stream.aiter_lines()
        async for line in received:
            lines.append(line)
            asked = [e for e in _events(lines) if e.get("method") == "elicitation/create"]
            if asked:
                break
        answer = {
            "jsonrpc": "2.0",
            "id": asked[0]["id"],
            "result": {"action": "accept", "content": DETAILS},
        }
        routed = await b.post("/mcp", json=answer, headers=_in(session))
        lines.extend([line async for line in received])
    assert routed.status_code == 202
    final = [e for e in _events(lines) if e.get("id") == 5]
    assert "action=accept" in final[0]["result"]["content"][0]["text"]
    assert "ada@example.org" in final[0]["result"]["content"][0]["text"]
    ended = await b.delete("/mcp", headers=_in(session))
    after = await a.post("/mcp", json=PING, headers=_in(session))
    assert ended.status_code == 204 and after.status_code == 404


async def test_a_session_begun_on_one_is_served_by_the_other(
    servers: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    a, b = servers
    session = (await a.post("/mcp", json=INITIALIZE, headers=HEADERS)).headers["mcp-session-id"]
    level = {"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "debug"}}
    set_on_b = await b.post("/mcp", json=level, headers=_in(session))
    pinged = await a.post("/mcp", json=PING, headers=_in(session))
    assert set_on_b.status_code == 200 and set_on_b.json()["result"] == {}
    assert pinged.status_code == 200 and pinged.json()["result"] == {}


async def test_a_cancellation_sent_to_one_stops_the_call_on_the_other(
    servers: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    lines, status = await cancel_while_asking(*servers)
    assert status == 202
    assert any("elicitation/create" in line for line in lines)  # the call was waiting
    assert not any('"id":5' in line for line in lines)  # and ended without any answer


async def test_the_get_stream_on_one_gets_updates_made_on_the_other_and_resumes_there(
    servers: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    a, b = servers
    session = await _session(a)
    subscribed = await b.post("/mcp", json=_subscribe("test://watched"), headers=_in(session))
    assert subscribed.json()["result"] == {}
    assert await STORES[1].resource_updated("test://watched") == 1
    assert await STORES[0].resource_updated("test://watched") == 1
    assert await first_event(a, session) == ["id: 1"]
    assert await first_event(b, session, **{"last-event-id": "1"}) == ["id: 2"]
