"""The approval page over real sockets: escaping, headers, and every refusal."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.safety.tiers import Tier
from tests.browser.helpers import (
    Browser,
    Visit,
    browser_app,
    call,
    good_headers,
    last_link,
    post,
    request,
    visit,
)
from tests.demo_account import fake_client
from tests.wire import open_wire
from tests.writes.helpers import writes

pytestmark = pytest.mark.anyio
HOSTILE = "<script>alert(\"x\")</script> & 'q' <img src=x onerror=alert(1)>"


async def pending_page(setup: Browser, wire: Any, caplog: pytest.LogCaptureFixture) -> Visit:
    await call(wire)
    return await visit(last_link(caplog))


async def still_pending(setup: Browser, wire: Any) -> bool:
    return (await call(wire))["structuredContent"]["status"] == "approval_pending"


async def test_the_page_escapes_the_preview_and_shows_warnings_first(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    writer = fake_client(setup.fake, load_config({"SEVDESK_ALLOW": "write"}))
    await writer.send("PUT", "/Contact/410015", tier=Tier.WRITE, json={"name": HOSTILE})
    async with open_wire(setup.app) as wire:
        reference = (await call(wire))["structuredContent"]["approval"]["reference"]
        page = await visit(last_link(caplog))
    text = page.response.text
    assert "<script" not in text and "<img" not in text and "onerror=alert(1)>" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;q&#x27;" in text
    assert text.index("WARNING:</strong> sevDesk assigns the invoice number now.") < text.index(
        "WARNING:</strong> This cannot be undone."
    )
    assert text.index("WARNING:</strong> This cannot be undone.") < text.index(
        "Finalize invoice draft"
    )
    assert "line one\nline two</q></dd>" in text
    assert "⟦" not in text and "⟧" not in text
    assert reference in text
    assert text.count('<form method="post"') == 2
    assert text.count(f'name="csrf" value="{page.csrf}"') == 2


async def test_every_answer_carries_the_security_headers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
    unknown = await request("GET", page.origin + "/a/" + "x" * 43)
    for response in (page.response, unknown):
        headers = response.headers
        csp = headers["content-security-policy"]
        assert csp.startswith("default-src 'none'; style-src 'sha256-")
        assert "form-action 'self'; frame-ancestors 'none'; base-uri 'none'" in csp
        assert "script-src" not in csp and "unsafe" not in csp
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "same-origin"
        assert headers["cache-control"] == "no-store"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["content-type"] == "text/html; charset=utf-8"
    style = re.search(r"<style>(.*?)</style>", page.response.text, re.S)
    assert style is not None
    digest = base64.b64encode(hashlib.sha256(style[1].encode()).digest()).decode()
    assert f"'sha256-{digest}'" in page.response.headers["content-security-policy"]
    cookie = page.response.headers["set-cookie"]
    assert re.fullmatch(
        r"sevdesk_approval_\w{5}=[\w-]{43}; Path=/; Max-Age=600; HttpOnly; SameSite=Strict",
        cookie,
    )


@pytest.mark.parametrize(
    ("csrf", "headers"),
    [
        pytest.param("", {}, id="missing-csrf"),
        pytest.param("A" * 43, {}, id="wrong-csrf"),
        pytest.param(None, {"Cookie": None}, id="missing-cookie"),
        pytest.param(None, {"Cookie": "sevdesk_approval_XXXXX=forged"}, id="wrong-cookie"),
        pytest.param(None, {"Origin": "http://evil.example"}, id="foreign-origin"),
        pytest.param(None, {"Origin": "http://localhost:1"}, id="other-port"),
        pytest.param(None, {"Origin": "null"}, id="origin-null"),
        pytest.param(None, {"Sec-Fetch-Site": "cross-site"}, id="cross-site"),
        pytest.param(None, {"Sec-Fetch-Site": "same-site"}, id="same-site"),
        pytest.param(None, {"Origin": None, "Sec-Fetch-Site": None}, id="no-origin-no-fetch"),
        pytest.param(None, {"Content-Type": "text/plain"}, id="not-a-form"),
    ],
)
async def test_a_decision_that_fails_a_check_is_refused(
    csrf: str | None, headers: dict[str, str | None], caplog: pytest.LogCaptureFixture
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
        refused = await post(page, "approve", csrf=csrf, headers=headers)
        assert await still_pending(setup, wire)
    assert refused.status_code == 403 and "This decision was refused" in refused.text
    assert "set-cookie" not in refused.headers
    assert writes(setup.fake) == []


async def test_no_origin_but_same_origin_fetch_metadata_is_accepted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
        decided = await post(page, "decline", headers={"Origin": None})
        result = (await call(wire))["structuredContent"]
    assert decided.status_code == 200
    assert result["status"] == "declined"


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_wrong_host_is_refused_for_every_request(
    method: str, caplog: pytest.LogCaptureFixture
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
        port = page.origin.rsplit(":", 1)[1]
        if method == "GET":
            refused = await request("GET", page.link, headers={"Host": f"evil.example:{port}"})
        else:
            refused = await post(page, headers={"Host": f"localhost:{port}"})
        assert await still_pending(setup, wire)
    assert refused.status_code == 403 and "set-cookie" not in refused.headers


async def test_a_decision_cannot_be_replayed(caplog: pytest.LogCaptureFixture) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
        assert (await post(page, "decline")).status_code == 200
        replay = await post(page, "approve")
        reload = await request("GET", page.link)
        result = (await call(wire))["structuredContent"]
    assert replay.status_code == 404 and reload.status_code == 404
    assert result["status"] == "declined"
    assert writes(setup.fake) == []


async def test_unknown_expired_and_decided_pages_look_the_same(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
        setup.clock.advance(601)
        expired = await request("GET", page.link)
        expired_post = await post(page, "approve")
    unknown = await request("GET", page.origin + "/a/" + "B" * 43)
    assert {expired.status_code, expired_post.status_code, unknown.status_code} == {404}
    assert expired.text == unknown.text == expired_post.text
    assert "This approval page is not valid" in unknown.text


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("PUT", "/a/" + "C" * 43, 405),
        ("GET", "/", 404),
        ("GET", "/a/short", 404),
        ("GET", "/a/" + "D" * 43 + "?x=1", 404),
        ("GET", "/favicon.ico", 404),
    ],
)
async def test_other_methods_and_paths_are_not_served(
    method: str, path: str, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
    response = await request(method, page.origin + path)
    assert response.status_code == status
    assert response.headers["x-frame-options"] == "DENY"


async def test_a_form_with_repeated_or_unknown_decisions_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        page = await pending_page(setup, wire, caplog)
        headers = good_headers(page)
        twice = f"csrf={page.csrf}&decision=approve&decision=decline".encode()
        repeated = await request("POST", page.link, content=twice, headers=headers)
        odd = await post(page, "maybe")
        binary = await request("POST", page.link, content=b"\xff\xfe", headers=headers)
        assert await still_pending(setup, wire)
    assert {repeated.status_code, odd.status_code, binary.status_code} == {403}
