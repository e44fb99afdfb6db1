"""Threat cases O01-O14: the OAuth authorization server and resource server (issue 16).

Every test runs OAuth mode on 127.0.0.1 with accounts on fake sevDesks and a client without a
browser (``tests.http.oauth_support``); the consent page itself is driven by Chromium in
``tests/browser/test_oauth_chromium.py``.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import httpx
import msgspec
import pytest

from sevdesk_mcp.cli.oauth import OAuthSeams
from sevdesk_mcp.fake import DEMO_TOKEN
from sevdesk_mcp.http.oauth.claims import AccessClaims, encode
from sevdesk_mcp.http.oauth.seal import Sealer
from sevdesk_mcp.http.oauth_settings import ACCESS_TTL_S, CLOCK_SKEW_S, CODE_TTL_S
from sevdesk_mcp.safety.redact import Secret
from tests.clock import Clock
from tests.http.helpers import PREVIOUS_SECRET, SECRET
from tests.http.oauth_support import (
    REDIRECT,
    OAuthRunning,
    authorize_query,
    browserless,
    call_tool,
    code_for,
    consent,
    exchange,
    form_fields,
    oauth_server,
    pkce,
    redirect_params,
    refresh,
    register,
    tokens,
)

pytestmark = pytest.mark.anyio
GOOD = "https://good.example/cb"


async def list_tools(http: httpx.AsyncClient, access: str, **headers: str) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return await http.post(
        "/mcp", json=body, headers={"authorization": f"Bearer {access}", **headers}
    )


async def authorize(http: httpx.AsyncClient, **params: str) -> httpx.Response:
    return await http.get(f"/authorize?{urlencode(params)}")


@pytest.mark.threat("O01")
async def test_redirect_uri_variants_never_match_and_are_never_redirected_to(
    tmp_path: Path,
) -> None:
    variants = [
        "https://good.example/cb/extra",
        "https://good.example/cb?x=1",
        "https://GOOD.example/cb",
        "https://good.example/cb/",
        "https://good.example@evil.example/cb",
        "https://good.example.evil.example/cb",
        "https://good.example/%2e%2e/cb",
        "https://good.example/cb#frag",
        "javascript:alert(1)",
    ]
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http, GOOD)
        loopback = await register(http, "http://127.0.0.1:9/callback")
        _, challenge = pkce()
        answers = [
            await authorize(http, **authorize_query(client_id, challenge, redirect_uri=v))
            for v in variants
        ]
        exact = await authorize(http, **authorize_query(client_id, challenge, redirect_uri=GOOD))
        other_port = await authorize(
            http,
            **authorize_query(loopback, challenge, redirect_uri="http://127.0.0.1:5555/callback"),
        )
        by_name = await authorize(
            http,
            **authorize_query(loopback, challenge, redirect_uri="http://localhost:5555/callback"),
        )
    assert all(a.status_code == 400 and "location" not in a.headers for a in answers)
    assert all("must match exactly" in a.text for a in answers)
    assert exact.status_code == 200 and other_port.status_code == 200  # RFC 8252 7.3
    assert by_name.status_code == 400


@pytest.mark.threat("O02")
async def test_an_unknown_client_or_bad_redirect_gets_an_error_page_not_a_redirect(
    tmp_path: Path,
) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        _, challenge = pkce()
        unknown = await authorize(http, **authorize_query("c_unknown", challenge))
        client_id = await register(http)
        bad = await authorize(
            http, **authorize_query(client_id, challenge, redirect_uri="https://evil.example/")
        )
        none = await authorize(http, response_type="code")
    for answer in (unknown, bad, none):
        assert answer.status_code == 400 and "location" not in answer.headers
        assert answer.headers["content-type"].startswith("text/html")
    assert "client_id is unknown" in unknown.text


@pytest.mark.threat("O03")
async def test_pkce_is_required_and_only_s256_with_a_proper_challenge(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        _, challenge = pkce()
        base = authorize_query(client_id, challenge)
        missing = {k: v for k, v in base.items() if k != "code_challenge"}
        no_method = {k: v for k, v in base.items() if k != "code_challenge_method"}
        cases = [
            missing,
            no_method,
            {**base, "code_challenge_method": "plain"},
            {**base, "code_challenge": challenge[:42]},
            {**base, "code_challenge": challenge + "A"},
        ]
        answers = [redirect_params(await authorize(http, **case)) for case in cases]
        metadata = (await http.get("/.well-known/oauth-authorization-server")).json()
    assert all(a["error"] == "invalid_request" for a in answers)
    assert all(a["iss"] == server.url and a["state"] == "st-1" for a in answers)
    assert metadata["code_challenge_methods_supported"] == ["S256"]


@pytest.mark.threat("O04")
async def test_a_wrong_or_malformed_verifier_is_refused(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        code, verifier = await code_for(http, client_id)
        malformed = ["a" * 42, "a" * 129, "a" * 42 + "!", ""]
        bad_forms = [await exchange(http, client_id, code, v) for v in malformed]
        wrong = await exchange(http, client_id, code, pkce()[0])
        right = await exchange(http, client_id, code, verifier)
    assert all(a.json()["error"] == "invalid_request" for a in bad_forms)
    assert wrong.json()["error"] == "invalid_grant"
    assert right.status_code == 200  # the failed attempts did not use the code up


@pytest.mark.threat("O05")
async def test_a_code_redeemed_twice_fails_and_revokes_the_first_tokens(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        code, verifier = await code_for(http, client_id)
        first = await exchange(http, client_id, code, verifier)
        second = await exchange(http, client_id, code, verifier)
        after = await list_tools(http, first.json()["access_token"])
        code, verifier = await code_for(http, client_id)
        statuses: list[int] = []

        async def redeem() -> None:
            statuses.append((await exchange(http, client_id, code, verifier)).status_code)

        async with anyio.create_task_group() as tg:
            for _ in range(20):
                tg.start_soon(redeem)
    assert first.status_code == 200 and second.json()["error"] == "invalid_grant"
    assert after.status_code == 401
    assert sorted(statuses) == [200] + [400] * 19


@pytest.mark.threat("O06")
async def test_a_code_of_another_client_redirect_or_past_its_ttl_is_invalid_alike(
    tmp_path: Path,
) -> None:
    clock = Clock()
    async with (
        oauth_server(tmp_path, seams=OAuthSeams(clock=clock)) as server,
        browserless(server) as http,
    ):
        client_id, other = await register(http), await register(http)
        code, verifier = await code_for(http, client_id)
        wrong_client = await exchange(http, other, code, verifier)
        wrong_redirect = await exchange(
            http, client_id, code, verifier, redirect_uri="http://127.0.0.1:9/other"
        )
        unknown = await exchange(http, client_id, "A" * 200, verifier)
        clock.now += CODE_TTL_S + 1
        late = await exchange(http, client_id, code, verifier)
        code, verifier = await code_for(http, client_id)
        clock.now += CODE_TTL_S - 1
        in_time = await exchange(http, client_id, code, verifier)
    answers = [wrong_client, wrong_redirect, unknown, late]
    assert {a.json()["error"] for a in answers} == {"invalid_grant"}
    assert len({a.json()["error_description"] for a in answers}) == 1
    assert in_time.status_code == 200


@pytest.mark.threat("O07")
async def test_a_repeated_parameter_is_an_invalid_request(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        _, challenge = pkce()
        query = urlencode(authorize_query(client_id, challenge)) + "&response_type=code"
        page = await http.get(f"/authorize?{query}")
        code, verifier = await code_for(http, client_id)
        body = urlencode(
            {"grant_type": "authorization_code", "code": code, "code_verifier": verifier}
        )
        body += f"&code={code}&client_id={client_id}&redirect_uri={REDIRECT}"
        token = await http.post(
            "/token", content=body, headers={"content-type": "application/x-www-form-urlencoded"}
        )
    assert page.status_code == 400 and "response_type&#x27; is repeated" in page.text
    assert token.json() == {
        "error": "invalid_request",
        "error_description": "The parameter 'code' is repeated.",
    }


@pytest.mark.threat("O08")
async def test_state_is_echoed_byte_for_byte_and_iss_names_this_server(tmp_path: Path) -> None:
    state = "ä b&c=d/é+%20"
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        _, challenge = pkce()
        allowed = redirect_params(
            await consent(http, authorize_query(client_id, challenge, state=state))
        )
        query = {k: v for k, v in authorize_query(client_id, challenge).items() if k != "state"}
        stateless = redirect_params(await consent(http, query))
        denied = redirect_params(
            await consent(http, authorize_query(client_id, challenge), decision="deny")
        )
        metadata = (await http.get("/.well-known/openid-configuration")).json()
    assert allowed["state"] == state and allowed["iss"] == server.url
    assert "state" not in stateless and stateless["iss"] == server.url
    assert denied["error"] == "access_denied" and denied["iss"] == server.url
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert metadata["issuer"] == server.url


@pytest.mark.threat("O09")
async def test_consent_needs_its_own_page_cookie_and_csrf_and_cannot_be_framed(
    tmp_path: Path,
) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        first, second = await register(http), await register(http)
        _, challenge = pkce()
        page_a = await http.get(f"/authorize?{urlencode(authorize_query(first, challenge))}")
        fields_a = form_fields(page_a.text)
        async with browserless(server) as other_browser:
            page_b = await other_browser.get(
                f"/authorize?{urlencode(authorize_query(second, challenge))}"
            )
        fields_b = form_fields(page_b.text)
        allow = {"sevdesk_token": DEMO_TOKEN, "decision": "allow"}
        no_csrf = await http.post("/authorize", data={**allow, "request": fields_a["request"]})
        swapped = await http.post("/authorize", data={**allow, **fields_b})  # cookie of A
        mixed = await http.post(
            "/authorize", data={**allow, "request": fields_b["request"], "csrf": fields_a["csrf"]}
        )
        foreign = await http.post(
            "/authorize", data={**allow, **fields_a}, headers={"origin": "https://evil.example"}
        )
        cross_site = await http.post(
            "/authorize", data={**allow, **fields_a}, headers={"sec-fetch-site": "cross-site"}
        )
        good = await http.post("/authorize", data={**allow, **fields_a})
    assert no_csrf.status_code == 403 and swapped.status_code == 403
    assert mixed.status_code == 400  # a request bound to another cookie
    assert foreign.status_code == 403 and cross_site.status_code == 403
    assert good.status_code == 303
    cookie = page_a.headers["set-cookie"]
    assert "SameSite=Strict" in cookie and "HttpOnly" in cookie
    assert page_a.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page_a.headers["content-security-policy"]
    # without the web pages nothing serves a script, so the policy allows none
    assert "script-src" not in page_a.headers["content-security-policy"]


@pytest.mark.threat("O10")
async def test_refresh_replay_revokes_the_family_and_scope_never_widens(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id, first = await tokens(http, tiers=())
        other = await register(http)
        widened = await refresh(
            http, client_id, first["refresh_token"], scope="sevdesk:read sevdesk:write"
        )
        stolen = await refresh(http, other, first["refresh_token"])
        rotated = await refresh(http, client_id, first["refresh_token"], scope="sevdesk:read")
        replay = await refresh(http, client_id, first["refresh_token"])
        newest = await refresh(http, client_id, rotated.json()["refresh_token"])
        access = await list_tools(http, rotated.json()["access_token"])
    assert widened.json()["error"] == "invalid_scope"
    assert stolen.json()["error"] == "invalid_grant"
    assert rotated.status_code == 200 and rotated.json()["refresh_token"] != first["refresh_token"]
    assert replay.json()["error"] == "invalid_grant"
    assert newest.json()["error"] == "invalid_grant" and access.status_code == 401


async def seal_access(server: OAuthRunning, secret: str = SECRET, **changes: Any) -> str:
    grant = (await server.service.server.store.grants())[0]
    claims = AccessClaims(
        iss=server.url,
        aud=server.service.site.mcp_url,
        grant=grant.id,
        account=grant.account,
        client=grant.client_id,
        tiers=grant.tiers,
        sevdesk=DEMO_TOKEN,
        exp=int(time.time()) + 600,
    )
    claims = msgspec.structs.replace(claims, **changes)
    return Sealer([Secret(secret)]).seal("access", encode(claims))


@pytest.mark.threat("O11")
async def test_a_token_for_another_resource_is_refused_and_never_reaches_sevdesk(
    tmp_path: Path,
) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        code, verifier = await code_for(http, client_id)
        other_target = await exchange(
            http, client_id, code, verifier, resource="https://other.example/mcp"
        )
        same = await exchange(http, client_id, code, verifier, resource=f"{server.url}/mcp")
        access = same.json()["access_token"]
        foreign = await list_tools(http, await seal_access(server, aud="https://other.example/mcp"))
        called = await call_tool(http, access, "sevdesk_account_info", {})
    challenge = foreign.headers["www-authenticate"]
    assert other_target.json()["error"] == "invalid_target"
    assert foreign.status_code == 401 and 'error="invalid_token"' in challenge
    assert f'resource_metadata="{server.url}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert called.status_code == 200
    assert set(server.accounts.authorizations) == {
        DEMO_TOKEN
    }  # only the user's sevDesk token, never the access token


@pytest.mark.threat("O12")
async def test_every_tampered_token_gets_the_same_opaque_401(tmp_path: Path) -> None:
    env = {"SEVDESK_HTTP_SECRET_PREVIOUS": PREVIOUS_SECRET}
    async with oauth_server(tmp_path, env=env) as server, browserless(server) as http:
        _, answer = await tokens(http)
        good = answer["access_token"]
        raw = bytearray(base64.urlsafe_b64decode(good + "=" * (-len(good) % 4)))

        def flipped(index: int) -> str:
            copy = bytearray(raw)
            copy[index] ^= 1
            return base64.urlsafe_b64encode(bytes(copy)).rstrip(b"=").decode()

        bad = [
            flipped(0),  # version
            flipped(2),  # key id
            flipped(8),  # nonce
            flipped(30),  # ciphertext
            flipped(len(raw) - 1),  # tag
            good[:-4],  # truncated
            await seal_access(server, secret="another-secret-0123456789-abcdefghijklmnop"),
            await seal_access(server, exp=int(time.time()) - CLOCK_SKEW_S - 5),
            answer["refresh_token"],  # another purpose
            good + "!",
        ]
        refusals = [await list_tools(http, token) for token in bad]
        rotated = await list_tools(http, await seal_access(server, secret=PREVIOUS_SECRET))
        in_skew = await list_tools(http, await seal_access(server, exp=int(time.time()) - 5))
    assert {r.status_code for r in refusals} == {401}
    assert len({(r.text, r.headers["www-authenticate"]) for r in refusals}) == 1
    assert rotated.status_code == 200 and in_skew.status_code == 200
    assert ACCESS_TTL_S == 3600


@pytest.mark.threat("O13")
async def test_query_tokens_bad_basic_auth_get_and_json_are_refused(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id, answer = await tokens(http)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        in_query = await http.post(f"/mcp?access_token={answer['access_token']}", json=body)
        form = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"]}
        bad_base64 = await http.post("/token", data=form, headers={"authorization": "Basic %%%"})
        no_colon = await http.post(
            "/token",
            data=form,
            headers={"authorization": "Basic " + base64.b64encode(b"nocolon").decode()},
        )
        get = await http.get("/token")
        as_json = await http.post("/token", json={**form, "client_id": client_id})
        basic = "Basic " + base64.b64encode(f"{client_id}:".encode()).decode()
        good = await http.post("/token", data=form, headers={"authorization": basic})
    assert in_query.status_code == 401
    for refused in (bad_base64, no_colon):
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
        assert refused.headers["www-authenticate"].startswith("Basic")
    assert get.status_code == 405
    assert as_json.json()["error"] == "invalid_request"
    assert good.status_code == 200
    for answered in (bad_base64, as_json, good):
        assert "no-store" in answered.headers["cache-control"]


@pytest.mark.threat("O14")
async def test_registration_abuse_is_rate_limited_capped_and_validated(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        huge = await http.post(
            "/register",
            content=b'{"redirect_uris":["https://a.example/cb"],"x":"' + b"a" * 1_000_000 + b'"}',
            headers={"content-type": "application/json"},
        )
        evil = await http.post("/register", json={"redirect_uris": ["http://evil.example/cb"]})
        custom = await http.post("/register", json={"redirect_uris": ["myapp://cb"]})
        password = await http.post(
            "/register", json={"redirect_uris": [GOOD], "grant_types": ["password"]}
        )
        statuses = [
            (await http.post("/register", json={"redirect_uris": [GOOD]})).status_code
            for _ in range(12)
        ]
    assert huge.status_code == 413
    assert evil.json()["error"] == custom.json()["error"] == "invalid_redirect_uri"
    assert password.json()["error"] == "invalid_client_metadata"
    assert 429 in statuses and statuses[0] == 201
