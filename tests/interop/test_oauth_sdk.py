"""Issue 16: the official Python SDK client's OAuth flow against OAuth mode on real sockets,
through a Client ID Metadata Document (served by the test on loopback https) and through
dynamic client registration; then tool calls in both eras, refresh with rotation, replay of an
old refresh token revoking the family, and revocation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client

from sevdesk_mcp.cli.oauth import OAuthSeams
from sevdesk_mcp.fake import DEMO_TOKEN
from tests.http.oauth_support import TOKEN_B, OAuthRunning, oauth_server, refresh
from tests.interop.oauth_sdk_support import (
    MemoryStorage,
    consent_with_httpx,
    document_server,
    provider,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


@asynccontextmanager
async def sdk(url: str, auth: OAuthClientProvider, mode: str = "auto") -> AsyncIterator[Any]:
    async with (
        httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(60)) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def mcp_url(server: OAuthRunning) -> str:
    return server.service.site.mcp_url


async def test_the_sdk_signs_in_with_a_metadata_document_and_calls_tools_in_both_eras(
    tmp_path: Path,
) -> None:
    with document_server(tmp_path) as documents:
        seams = OAuthSeams(verify=documents.trust)
        env = {"SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS": "1"}
        async with oauth_server(tmp_path / "state", env=env, seams=seams) as server:
            storage = MemoryStorage()
            auth = provider(
                mcp_url(server),
                storage,
                consent_with_httpx(DEMO_TOKEN),
                client_metadata_url=documents.url,
            )
            async with sdk(mcp_url(server), auth) as client:
                assert client.protocol_version == "2026-07-28"
                info = await client.call_tool("sevdesk_account_info", {})
                tools = await client.list_tools()
            async with sdk(mcp_url(server), auth, mode="legacy") as client:
                assert client.protocol_version == "2025-11-25"
                legacy = await client.call_tool("sevdesk_account_info", {})
            grants = await server.service.server.store.grants()
    assert "Holzwerk Sonnenberg GmbH" in info.content[0].text
    assert "Holzwerk Sonnenberg GmbH" in legacy.content[0].text
    assert any(t.name == "sevdesk_create_contact" for t in tools.tools)  # the write tier
    assert not any(t.name == "sevdesk_finalize_document" for t in tools.tools)  # not granted
    assert documents.fetches == ["/oauth/client.json"]  # cached for the second session
    assert [g.client_id for g in grants] == [documents.url]
    assert storage.client is not None and storage.client.client_id == documents.url


async def test_the_sdk_registers_dynamically_then_refresh_rotates_replay_revokes_the_family(
    tmp_path: Path,
) -> None:
    async with oauth_server(tmp_path / "state") as server:
        storage = MemoryStorage()
        auth = provider(mcp_url(server), storage, consent_with_httpx(TOKEN_B, tiers=()))
        async with sdk(mcp_url(server), auth) as client:
            first = await client.call_tool("sevdesk_account_info", {})
            tools = await client.list_tools()
        assert storage.client is not None and storage.tokens is not None
        client_id, old = storage.client.client_id, storage.tokens.refresh_token
        assert client_id.startswith("c_") and old is not None
        async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=60) as http:
            rotated = await refresh(http, client_id, old)
            assert rotated.status_code == 200
            storage.tokens = storage.tokens.model_copy(
                update={
                    "access_token": rotated.json()["access_token"],
                    "refresh_token": rotated.json()["refresh_token"],
                }
            )
            async with sdk(mcp_url(server), auth) as client:
                second = await client.call_tool("sevdesk_account_info", {})
            replay = await refresh(http, client_id, old)
            newest = await refresh(http, client_id, rotated.json()["refresh_token"])
            after = await http.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                headers={"authorization": f"Bearer {rotated.json()['access_token']}"},
            )
    assert "Zweite GmbH" in first.content[0].text and "Zweite GmbH" in second.content[0].text
    assert not any(t.name == "sevdesk_create_contact" for t in tools.tools)  # read only chosen
    assert replay.json()["error"] == "invalid_grant"
    assert newest.json()["error"] == "invalid_grant"  # the whole family is gone
    assert after.status_code == 401


async def test_revocation_ends_the_sdk_clients_grant_at_once(tmp_path: Path) -> None:
    async with oauth_server(tmp_path / "state") as server:
        storage = MemoryStorage()
        auth = provider(mcp_url(server), storage, consent_with_httpx(DEMO_TOKEN))
        async with sdk(mcp_url(server), auth) as client:
            await client.list_tools()
        assert storage.tokens is not None and storage.client is not None
        access = storage.tokens.access_token
        async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=60) as http:
            revoked = await http.post(
                "/revoke", data={"token": access, "client_id": storage.client.client_id}
            )
            after = await http.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                headers={"authorization": f"Bearer {access}"},
            )
    assert revoked.status_code == 200
    assert after.status_code == 401
    assert 'error="invalid_token"' in after.headers["www-authenticate"]
    assert await server.service.server.store.grants() == []
