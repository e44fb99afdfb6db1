"""Issue 14, point 6: in bearer mode the OAuth discovery paths say that this server uses a
static bearer secret (404 with a JSON body), and the 401 keeps its hint."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from sevdesk_mcp.http.auth import BEARER_DISCOVERY_MESSAGE, DISCOVERY_PATHS
from tests.http.helpers import bearer_settings, http, running
from tests.interop.oauth_sdk_support import MemoryStorage, consent_with_httpx, provider

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


async def test_every_discovery_path_answers_404_naming_the_bearer_secret() -> None:
    async with running(settings=bearer_settings()) as server, http(server) as client:
        answers = {path: await client.get(path) for path in sorted(DISCOVERY_PATHS)}
        unauthorized = await client.post("/mcp", json={})
        other = await client.get("/.well-known/something-else")
    for answer in answers.values():
        assert answer.status_code == 404
        assert answer.headers["content-type"] == "application/json"
        assert answer.json() == {"error": BEARER_DISCOVERY_MESSAGE}
    assert "Authorization: Bearer <secret>" in BEARER_DISCOVERY_MESSAGE
    assert unauthorized.status_code == 401
    assert "Authorization: Bearer <secret>" in unauthorized.json()["error"]
    assert "not OAuth" in unauthorized.json()["error"]
    assert other.json() == {"error": "Not found."}


async def test_the_sdks_oauth_client_learns_there_is_no_oauth_here() -> None:
    async with running(settings=bearer_settings()) as server:
        auth = provider(f"{server.url}/mcp", MemoryStorage(), consent_with_httpx("unused"))
        with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK's own error shape
            async with (
                httpx2.AsyncClient(auth=auth, timeout=60) as client,
                Client(streamable_http_client(f"{server.url}/mcp", http_client=client)),
            ):
                pass
        records = server.log_records()
    tried = {r["path"]: r["status"] for r in records if r["path"].startswith("/.well-known/")}
    assert tried and set(tried.values()) == {404}
    assert set(tried) <= DISCOVERY_PATHS
