"""The OAuth endpoints' answers to requests off the happy path (issue 16)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest

from sevdesk_mcp.fake import DEMO_TOKEN
from tests.http.oauth_support import (
    TOKEN_B,
    authorize_query,
    browserless,
    code_for,
    consent,
    exchange,
    form_fields,
    oauth_server,
    pkce,
    register,
    tokens,
)

pytestmark = pytest.mark.anyio


async def test_metadata_answers_cors_preflights_and_names_every_endpoint(tmp_path: Path) -> None:
    env = {"SEVDESK_HTTP_OAUTH_REGISTRATION": "off"}
    async with oauth_server(tmp_path, env=env) as server, browserless(server) as http:
        root = await http.get("/.well-known/oauth-protected-resource")
        preflight = await http.options(
            "/token",
            headers={"origin": "https://claude.ai", "access-control-request-method": "POST"},
        )
        metadata = (await http.get("/.well-known/oauth-authorization-server")).json()
        register = await http.post("/register", json={})
    assert root.json()["resource"] == f"{server.url}/mcp"
    assert root.headers["access-control-allow-origin"] == "*"
    assert preflight.status_code == 204
    assert "registration_endpoint" not in metadata and register.status_code == 404


async def test_the_consent_page_speaks_german_and_english(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        _, challenge = pkce()
        query = authorize_query(client_id, challenge)
        german = await http.get(
            f"/authorize?{urlencode(query)}", headers={"accept-language": "de-DE"}
        )
        english = await http.get(f"/authorize?{urlencode({**query, 'lang': 'en'})}")
    assert '<html lang="de">' in german.text and "Erlauben" in german.text
    assert '<html lang="en">' in english.text and "Allow" in english.text
    assert 'label for="token"' in english.text and "registered client" in english.text


async def test_a_bad_or_refused_sevdesk_token_shows_the_page_again_with_the_reason(
    tmp_path: Path,
) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        _, challenge = pkce()
        query = authorize_query(client_id, challenge, lang="de")
        malformed = await consent(http, query, token="Bearer x y")
        refused = await consent(http, query, token="0" * 32)
        unreachable_fake = server.fake_a
        unreachable_fake.faults.fail_next(503, times=3)
        down = await consent(http, query)
        page = await http.get(f"/authorize?{urlencode(query)}")
        expired = await http.post(
            "/authorize", data={**form_fields(page.text), "request": "A" * 60, "lang": "de"}
        )
        not_form = await http.post("/authorize", json={})
    assert malformed.status_code == 400 and "not a sevDesk API token" in malformed.text
    assert "sevDesk refused this token" in refused.text and "could not be asked" in down.text
    assert expired.status_code == 400 and "abgelaufen" in expired.text
    assert not_form.status_code == 400


async def test_token_and_revoke_refuse_what_they_cannot_serve(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id, answer = await tokens(http)
        unsupported = await http.post(
            "/token", data={"grant_type": "password", "client_id": client_id}
        )
        anonymous = await http.post("/token", data={"grant_type": "authorization_code"})
        two_ids = await http.post(
            "/token",
            data={"grant_type": "refresh_token", "client_id": "other"},
            headers={"authorization": "Basic " + "b3RoZXI6"},  # "other:"
        )
        revoke_nothing = await http.post("/revoke", data={})
        revoke_junk = await http.post("/revoke", data={"token": "junk"})
        revoke_foreign = await http.post(
            "/revoke", data={"token": answer["refresh_token"], "client_id": "c_other"}
        )
        still = len(await server.service.server.store.grants())
        revoke_refresh = await http.post("/revoke", data={"token": answer["refresh_token"]})
    assert unsupported.json()["error"] == "unsupported_grant_type"
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "invalid_client"
    assert two_ids.status_code == 200 or two_ids.json()["error"] in (
        "invalid_grant",
        "invalid_request",
    )
    assert revoke_nothing.json()["error"] == "invalid_request"
    assert revoke_junk.status_code == 200 and revoke_foreign.status_code == 200
    assert still == 1 and revoke_refresh.status_code == 200
    assert await server.service.server.store.grants() == []


async def test_a_refresh_ends_the_grant_when_sevdesk_no_longer_knows_the_token(
    tmp_path: Path,
) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id, answer = await tokens(http, token=TOKEN_B)
        server.fake_b.token = "changed-" + TOKEN_B  # the user revoked the token in sevDesk
        form = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"]}
        refused = await http.post("/token", data={**form, "client_id": client_id})
    assert (
        refused.json()["error"] == "invalid_grant"
        and "sevDesk" in refused.json()["error_description"]
    )
    assert await server.service.server.store.grants() == []


async def test_registration_needs_json(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        form = await http.post("/register", data={"redirect_uris": "https://a.example/cb"})
        broken = await http.post(
            "/register", content=b"{", headers={"content-type": "application/json"}
        )
        code, verifier = await code_for(http, await register(http), token=DEMO_TOKEN)
        assert (await exchange(http, "c_x", code, verifier)).status_code == 400
    assert form.json()["error"] == broken.json()["error"] == "invalid_client_metadata"
