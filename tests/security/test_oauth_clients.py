"""Clients of OAuth mode (issue 35): client names a human cannot read as they are (finding 4)
and clients of a host the operator removed from the allowlist (finding 6).

Everything runs OAuth mode on 127.0.0.1 (``tests.http.oauth_support``); metadata documents are
served over https on 127.0.0.1 with the test's own certificate authority."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest

from sevdesk_mcp.cli.oauth import OAuthSeams
from sevdesk_mcp.errors import UnsafeClientError
from sevdesk_mcp.http.oauth.cimd import CimdFetcher
from sevdesk_mcp.http.oauth.consent_page import ConsentView, consent_page, error_page
from sevdesk_mcp.http.oauth.store import RegisteredClient
from sevdesk_mcp.safety.tiers import Tier
from tests.http.oauth_support import (
    REDIRECT,
    authorize_query,
    browserless,
    code_for,
    exchange,
    oauth_server,
    pkce,
    refresh,
)
from tests.interop.oauth_sdk_support import DocumentServer, document_server
from tests.redis_server import free_port

pytestmark = pytest.mark.anyio
RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: what follows it is shown reversed
SPOOFED = f"Claude {RLO}moc.elgoog"  # shown as "Claude google.com"
HIDDEN_NAMES = [SPOOFED, "Claude\u200b", "Claude\u2066x\u2069", "Claude\u00ad", "Claude\x07"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[DocumentServer]:
    with document_server(tmp_path) as server:
        yield server


def view(client_name: str, client_host: str = "example.com") -> ConsentView:
    return ConsentView(
        client_name=client_name,
        client_host=client_host,
        redirect_host="127.0.0.1",
        redirect_local=True,
        request="sealed",
        csrf="csrf",
        offered=(Tier.READ, Tier.WRITE),
        checked=frozenset({Tier.READ}),
        other_lang_url="/authorize?lang=de",
    )


@pytest.mark.threat("I35-4")
@pytest.mark.parametrize("name", HIDDEN_NAMES)
async def test_registration_refuses_a_client_name_with_hidden_characters(
    tmp_path: Path, name: str
) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        answer = await http.post(
            "/register", json={"redirect_uris": [REDIRECT], "client_name": name}
        )
    assert answer.status_code == 400, answer.text
    error = answer.json()
    assert error["error"] == "invalid_client_metadata"
    assert "client_name" in error["error_description"]
    assert "U+" in error["error_description"]
    assert name not in answer.text


@pytest.mark.threat("I35-4")
async def test_a_metadata_document_with_a_hidden_character_in_its_name_is_refused(
    served: DocumentServer,
) -> None:
    served.document["client_name"] = SPOOFED
    fetch = CimdFetcher(allow_loopback=True, verify=served.trust)
    with pytest.raises(UnsafeClientError) as caught:
        await fetch.fetch(served.url)
    assert "client_name" in caught.value.description
    assert "U+202E" in caught.value.description


@pytest.mark.threat("I35-4")
@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_consent_page_shows_hidden_characters_visibly(lang: str) -> None:
    page = consent_page(view(SPOOFED, f"ex{RLO}ample.com"), "en" if lang == "en" else "de")
    text = page.decode()
    assert RLO not in text
    assert "Claude &lt;U+202E&gt;moc.elgoog" in text
    assert "ex&lt;U+202E&gt;ample.com" in text


@pytest.mark.threat("I35-4")
async def test_a_stored_client_with_a_hidden_character_is_shown_escaped(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        store = server.service.server.store
        await store.add_client(
            RegisteredClient(
                client_id="c_stored", client_name=SPOOFED, redirect_uris=(REDIRECT,), created=0
            )
        )
        _, challenge = pkce()
        page = await http.get(f"/authorize?{urlencode(authorize_query('c_stored', challenge))}")
    assert page.status_code == 200, page.text
    assert RLO not in page.text
    assert "Claude <U+202E>moc.elgoog" in html.unescape(page.text)


@pytest.mark.threat("I35-4")
@pytest.mark.parametrize(
    "url",
    [f"https://ex{RLO}ample.com/client.json", "https://example.com/cl\u200bient.json"],
)
async def test_a_client_id_url_with_a_hidden_character_gets_an_error_page_without_it(
    tmp_path: Path, url: str
) -> None:
    with pytest.raises(UnsafeClientError, match="ASCII"):
        CimdFetcher().check_url(url)
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        _, challenge = pkce()
        page = await http.get(f"/authorize?{urlencode(authorize_query(url, challenge))}")
    assert page.status_code == 400, page.text
    assert "ASCII" in page.text
    assert RLO not in page.text and "\u200b" not in page.text


@pytest.mark.threat("I35-4")
def test_the_error_page_shows_hidden_characters_visibly() -> None:
    text = error_page(f"Clients from ex{RLO}ample.com are not allowed here.", "en").decode()
    assert RLO not in text
    assert "ex&lt;U+202E&gt;ample.com" in text


async def list_tools(http: httpx.AsyncClient, access: str) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return await http.post("/mcp", json=body, headers={"authorization": f"Bearer {access}"})


@pytest.mark.threat("I35-6")
async def test_a_removed_client_host_can_no_longer_refresh_and_its_grant_ends(
    served: DocumentServer, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    seams = OAuthSeams(verify=served.trust)
    allowed = {
        "SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS": "1",
        "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS": "127.0.0.1",
        "SEVDESK_HTTP_PORT": str(free_port()),  # the same audience after each restart
    }
    removed = {**allowed, "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS": "claude.ai"}
    async with oauth_server(state, env=allowed, seams=seams) as server, browserless(server) as http:
        code, verifier = await code_for(http, served.url)
        issued = (await exchange(http, served.url, code, verifier)).json()
        assert (await list_tools(http, issued["access_token"])).status_code == 200
    async with oauth_server(state, env=removed, seams=seams) as server, browserless(server) as http:
        assert (await list_tools(http, issued["access_token"])).status_code == 401
        refused = await refresh(http, served.url, issued["refresh_token"])
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == "invalid_grant"
    assert "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS" in refused.json()["error_description"]
    assert "127.0.0.1" in refused.json()["error_description"]
    async with oauth_server(state, env=allowed, seams=seams) as server, browserless(server) as http:
        again = await refresh(http, served.url, issued["refresh_token"])
        assert (await list_tools(http, issued["access_token"])).status_code == 401
    assert again.status_code == 400, again.text  # the grant ended: adding the host back is no
    assert again.json()["error"] == "invalid_grant"  # way around signing in again


@pytest.mark.threat("I35-6")
async def test_refresh_still_works_while_the_host_is_allowed(
    served: DocumentServer, tmp_path: Path
) -> None:
    env = {
        "SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS": "1",
        "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS": "127.0.0.1",
    }
    seams = OAuthSeams(verify=served.trust)
    async with oauth_server(tmp_path, env=env, seams=seams) as server, browserless(server) as http:
        code, verifier = await code_for(http, served.url)
        issued = (await exchange(http, served.url, code, verifier)).json()
        renewed = await refresh(http, served.url, issued["refresh_token"])
    assert renewed.status_code == 200, renewed.text
