"""OAuth mode of two instances sharing their grants on Redis, over HTTP: a client registered on
one signs in through the other, its tokens work on both, a refresh token replayed on the other
instance ends the family, a code redeemed twice across them ends its grant; Redis stopped is a
503 naming it, never a fallback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import httpx
import pytest

from sevdesk_mcp.cli.oauth import OAuthSeams
from sevdesk_mcp.http.oauth.redis_store import RedisGrantStore
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.http.helpers import HANG_GUARD_S, SECRET
from tests.http.oauth_support import (
    call_tool,
    code_for,
    exchange,
    oauth_server,
    refresh,
    register,
)
from tests.redis_server import RedisProcess

STATE_SECRET = "test-secret-" + "x" * 32  # the shared_state fixture's
PUBLIC = "http://localhost:8443"  # one public URL in front of both, as behind a load balancer


@asynccontextmanager
async def instance(folder: Path, state: SharedState) -> AsyncIterator[httpx.AsyncClient]:
    """An OAuth-mode server on its own port and folder, its grants in ``state``."""
    seams = OAuthSeams(store=RedisGrantStore(state))
    env = {"SEVDESK_HTTP_PUBLIC_URL": PUBLIC}
    async with oauth_server(folder, env=env, seams=seams) as server:
        where = f"http://127.0.0.1:{server.service.http.port}"
        async with httpx.AsyncClient(base_url=where, timeout=HANG_GUARD_S, trust_env=False) as http:
            yield http


@asynccontextmanager
async def two_instances(
    tmp_path: Path, shared_state: SharedState, redis_url: str
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    other = open_state(redis_url, [STATE_SECRET], namespace=shared_state.keys.namespace)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(other.aclose)
        one = await stack.enter_async_context(instance(tmp_path / "one", shared_state))
        two = await stack.enter_async_context(instance(tmp_path / "two", other))
        yield one, two


@pytest.mark.anyio
async def test_a_grant_made_on_one_instance_works_and_ends_on_the_other(
    tmp_path: Path, shared_state: SharedState, redis_url: str
) -> None:
    async with two_instances(tmp_path, shared_state, redis_url) as (one, two):
        client_id = await register(one)
        code, verifier = await code_for(two, client_id)  # the registration is shared
        first = await exchange(one, client_id, code, verifier)
        assert first.status_code == 200, first.text
        tokens = first.json()
        served = await call_tool(two, tokens["access_token"], "sevdesk_account_info", {})
        rotated = await refresh(two, client_id, tokens["refresh_token"])
        replayed = await refresh(one, client_id, tokens["refresh_token"])  # the old token
        newest = await refresh(two, client_id, rotated.json()["refresh_token"])
        after = await call_tool(one, rotated.json()["access_token"], "sevdesk_account_info", {})
    assert served.status_code == 200 and "result" in served.json()
    assert rotated.status_code == 200
    assert replayed.json()["error"] == "invalid_grant"
    assert newest.json()["error"] == "invalid_grant"  # the whole family ended
    assert after.status_code == 401


@pytest.mark.anyio
async def test_a_code_redeemed_on_both_instances_works_once_and_ends_its_grant(
    tmp_path: Path, shared_state: SharedState, redis_url: str
) -> None:
    async with two_instances(tmp_path, shared_state, redis_url) as (one, two):
        client_id = await register(two)
        code, verifier = await code_for(one, client_id)
        first = await exchange(one, client_id, code, verifier)
        second = await exchange(two, client_id, code, verifier)
        after = await call_tool(one, first.json()["access_token"], "sevdesk_account_info", {})
    assert first.status_code == 200
    assert second.json()["error"] == "invalid_grant"
    assert after.status_code == 401  # RFC 6749 4.1.2: the leaked code's grant is revoked


@pytest.mark.anyio
async def test_redis_stopped_is_a_503_naming_it_and_a_restart_serves_again(
    tmp_path: Path,
) -> None:
    server = RedisProcess().start()
    state = open_state(server.url, [SECRET])
    try:
        async with instance(tmp_path, state) as http:
            client_id = await register(http)
            code, verifier = await code_for(http, client_id)
            tokens = (await exchange(http, client_id, code, verifier)).json()
            server.stop()
            token = await refresh(http, client_id, tokens["refresh_token"])
            mcp = await call_tool(http, tokens["access_token"], "sevdesk_account_info", {})
            registration = await http.post("/register", json={"redirect_uris": [PUBLIC]})
            server.start()
            again = await http.post("/register", json={"redirect_uris": [f"{PUBLIC}/cb"]})
    finally:
        server.stop()
        await state.aclose()
    for answer in (token, mcp, registration):
        assert answer.status_code == 503, answer.text
        assert "SEVDESK_HTTP_STATE_URL" in answer.text
        assert answer.headers["retry-after"] == "5"
    assert again.status_code == 201
