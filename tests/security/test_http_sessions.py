"""2025-era sessions over HTTP refuse what does not belong to them (issue 17): a session id
replayed by another principal, an expired session, and an answer to a request never sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.service.serve import bind_service
from sevdesk_mcp.http.sessions import SESSION_IDLE_S, MemorySessionStore, SessionStore
from sevdesk_mcp.http.settings import HttpSettings
from tests.clock import Clock
from tests.http.conformance.server import LIMITS, app_factory
from tests.http.helpers import HANG_GUARD_S

pytestmark = [pytest.mark.anyio, pytest.mark.threat("J09")]  # session attacks

INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}},
}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@asynccontextmanager
async def serving(
    store: SessionStore, principal: str, build_app: Any = None, limits: Limits = LIMITS
) -> AsyncIterator[httpx.AsyncClient]:
    """A server on 127.0.0.1 whose every request acts for ``principal``, with ``store`` (its
    background task started as the composition root does)."""
    settings = HttpSettings(host="127.0.0.1", port=0)
    service = await bind_service(
        settings, build_app or app_factory(), principal=principal, limits=limits, sessions=store
    )
    stop = anyio.Event()
    async with anyio.create_task_group() as routing:
        await routing.start(store.serve)
        async with anyio.create_task_group() as tg:
            tg.start_soon(service.run, stop)
            url = f"http://127.0.0.1:{service.port}"
            try:
                async with httpx.AsyncClient(
                    base_url=url, timeout=HANG_GUARD_S, trust_env=False
                ) as client:
                    yield client
            finally:
                stop.set()
        routing.cancel_scope.cancel()


async def _session(client: httpx.AsyncClient) -> str:
    response = await client.post("/mcp", json=INITIALIZE, headers=HEADERS)
    assert response.status_code == 200
    return response.headers["mcp-session-id"]


def _in(session: str) -> dict[str, str]:
    return {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}


PING: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}


async def test_a_session_id_replayed_by_another_principal_is_unknown() -> None:
    store = MemorySessionStore()
    async with serving(store, "oauth:1:alice") as alice, serving(store, "oauth:2:bob") as bob:
        session = await _session(alice)
        stolen = [
            await bob.post("/mcp", json=PING, headers=_in(session)),
            await bob.get("/mcp", headers=_in(session)),
            await bob.delete("/mcp", headers=_in(session)),
        ]
        still = await alice.post("/mcp", json=PING, headers=_in(session))
    assert [r.status_code for r in stolen] == [404, 404, 404]
    assert "initialize again" in stolen[0].json()["error"]
    assert still.status_code == 200 and still.json()["result"] == {}
    assert len(session) == 43  # 256 random bits, base64url


async def test_an_expired_session_is_unknown() -> None:
    clock = Clock(1000.0)
    store = MemorySessionStore(clock=clock)
    async with serving(store, "bearer") as client:
        session = await _session(client)
        fresh = await client.post("/mcp", json=PING, headers=_in(session))
        clock.now += SESSION_IDLE_S + 1
        expired = await client.post("/mcp", json=PING, headers=_in(session))
        ended = await client.delete("/mcp", headers=_in(session))
    assert fresh.status_code == 200
    assert expired.status_code == 404 and ended.status_code == 404
    assert await store.count() == 0


@pytest.mark.parametrize("request_id", ["srv-1", "srv-99", 7])
async def test_an_answer_to_a_request_never_sent_is_refused(request_id: object) -> None:
    answer = {"jsonrpc": "2.0", "id": request_id, "result": {"action": "accept"}}
    async with serving(MemorySessionStore(), "bearer") as client:
        session = await _session(client)
        response = await client.post("/mcp", json=answer, headers=_in(session))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32600 and "no request with the id" in error["message"]


async def test_a_deleted_session_is_gone_and_its_id_is_refused() -> None:
    async with serving(MemorySessionStore(), "bearer") as client:
        session = await _session(client)
        ended = await client.delete("/mcp", headers=_in(session))
        after = await client.post("/mcp", json=PING, headers=_in(session))
        malformed = await client.post("/mcp", json=PING, headers=_in("bad id\x7f"[:6]))
    assert ended.status_code == 204 and after.status_code == 404
    assert malformed.status_code in (400, 404)


async def test_many_grants_of_one_account_cannot_crowd_out_the_others() -> None:
    """Review finding: the caps were per grant only, so one sevDesk account with many grants
    could fill the whole server (503 for everyone). Now one account holds at most four grants'
    worth, and at the server's cap the least recently used idle session makes room."""
    store = MemorySessionStore(max_sessions=50, per_principal=5)
    other = await store.create("oauth:acct-b:grant-1")
    for grant in range(30):
        for _ in range(5):
            await store.create(f"oauth:acct-a:grant-{grant}")
    mine = [s for s in store._sessions.values() if s.principal.startswith("oauth:acct-a:")]
    assert len(mine) <= 20 and await store.get(other.id, other.principal) is other
    for number in range(60):  # past the server's cap: the oldest idle ones make room
        await store.create(f"oauth:acct-{number}:grant-1")
    assert len(store._sessions) <= 50
