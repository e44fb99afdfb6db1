"""Two sevDesk accounts through one OAuth-mode server never share state (issue 16), and no
token or secret shows in logs, pages or results (canaries; threat F02)."""

from __future__ import annotations

import logging
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest

from sevdesk_mcp.fake import DEMO_TOKEN, build_demo
from sevdesk_mcp.fake.models import SevClient
from tests.http.helpers import SECRET, modern_body, modern_headers
from tests.http.oauth_support import (
    TOKEN_B,
    OAuthRunning,
    authorize_query,
    browserless,
    call_tool,
    consent,
    form_fields,
    oauth_server,
    pkce,
    register,
    tokens,
)
from tests.writes.helpers import DRAFT_ID, approve

pytestmark = pytest.mark.anyio
FINALIZE = "sevdesk_finalize_document"
DRAFT = {"kind": "invoice", "document_id": DRAFT_ID}
FORM_CAPS: dict[str, Any] = {
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
}


async def finalize(http: httpx.AsyncClient, access: str, **extra: Any) -> dict[str, Any]:
    params = {"name": FINALIZE, "arguments": DRAFT, "_meta": FORM_CAPS, **extra}
    headers = {**modern_headers("tools/call", FINALIZE), "authorization": f"Bearer {access}"}
    answer = await http.post("/mcp", json=modern_body("tools/call", params), headers=headers)
    result: dict[str, Any] = answer.json()
    return result


def writes(server: OAuthRunning, token: str) -> list[str]:
    fake = server.accounts.fakes[token]
    return [f"{r.method} {r.path}" for r in fake.requests if r.method != "GET"]


async def test_two_accounts_never_share_confirmation_state_caches_or_pacing(
    tmp_path: Path,
) -> None:
    async with oauth_server(tmp_path) as server, browserless(server) as http:
        _, a1 = await tokens(http, tiers=("commit",))
        _, a2 = await tokens(http, tiers=("commit",))
        _, b = await tokens(http, token=TOKEN_B, tiers=("commit",))
        asked = (await finalize(http, a1["access_token"]))["result"]
        state = {"requestState": asked["requestState"], "inputResponses": approve()}
        by_b = await finalize(http, b["access_token"], **state)
        by_other_grant = await finalize(http, a2["access_token"], **state)
        by_a = (await finalize(http, a1["access_token"], **state))["result"]
        info_b = await call_tool(http, b["access_token"], "sevdesk_account_info", {})
        grants = {g.account: g for g in await server.service.server.store.grants()}
        contexts = [
            await server.resolver.context(await server.service.server_verify(t["access_token"]))
            for t in (a1, a2, b)
        ]
    assert "inputRequests" in asked
    assert by_b["error"]["code"] == by_other_grant["error"]["code"] == -32602
    assert by_a["structuredContent"]["status"] == "done"
    assert writes(server, DEMO_TOKEN) and not writes(server, TOKEN_B)
    assert "Zweite GmbH" in info_b.text and "Holzwerk" not in info_b.text
    assert set(grants) == {"84210", "2"}
    one, two, other = (context.require_client() for context in contexts)
    assert one is not two and contexts[0].principal != contexts[1].principal
    assert one._pacer is two._pacer  # one pacer per sevDesk account
    assert other._pacer is not one._pacer
    assert contexts[0].lock_scope == contexts[1].lock_scope != contexts[2].lock_scope


async def test_no_token_or_secret_reaches_a_log_a_page_or_a_result(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    canary = secrets.token_hex(16)  # sevDesk tokens are 32 hex digits
    refused = secrets.token_hex(16)
    fake = build_demo()
    fake.token = canary
    fake.store.client = SevClient(id=3, name="Canary GmbH")
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    async with oauth_server(tmp_path, more=(fake,)) as server, browserless(server) as http:
        client_id = await register(http)
        _, challenge = pkce()
        query = authorize_query(client_id, challenge)
        wrong = await consent(http, query, token=refused)
        page = await http.get("/authorize", params=query)
        seen += [wrong.text, page.text, *form_fields(page.text).values()]
        _, answer = await tokens(http, token=canary)
        called = await call_tool(http, answer["access_token"], "sevdesk_account_info", {})
        bad = await call_tool(http, answer["access_token"] + "x", "sevdesk_account_info", {})
        seen += [called.text, bad.text, str(dict(called.headers))]
    logs = "\n".join([*server.lines, caplog.text])
    assert "Canary GmbH" in called.text and wrong.status_code == 400
    for secret in (canary, refused, SECRET):
        assert secret not in logs and all(secret not in text for text in seen)
    for token in (answer["access_token"], answer["refresh_token"]):
        assert token not in logs


@pytest.mark.threat("F02")
async def test_what_a_visitor_types_as_a_token_never_masks_other_text(tmp_path: Path) -> None:
    """Review finding: the consent page registered whatever was typed with the process-wide
    redactor before checking it, so any visitor could make every answer mask a word. Only a
    value of sevDesk's token shape (32 hex digits) is registered now."""
    from sevdesk_mcp.safety.redact import REDACTOR

    async with oauth_server(tmp_path) as server, browserless(server) as http:
        client_id = await register(http)
        _, challenge = pkce()
        refused = await consent(http, authorize_query(client_id, challenge), token="Rechnungen")
    assert refused.status_code == 400 and "not a sevDesk API token" in refused.text
    assert REDACTOR("Ihre Rechnungen RE-1001") == "Ihre Rechnungen RE-1001"
