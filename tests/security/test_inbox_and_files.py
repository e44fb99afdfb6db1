"""Threat tests of issue 23: the inbox and file transfer over HTTP (OAuth mode)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from sevdesk_mcp.http.web.sessions import SESSION_TTL_S
from sevdesk_mcp.safety.transfers import Limits
from tests.http.web_support import (
    PDF,
    PNG,
    TOKEN_B,
    approval_ids,
    browser_like,
    csrf_of,
    grant,
    sign_in,
    tool,
    web_server,
)
from tests.writes.helpers import DRAFT_ID

pytestmark = [pytest.mark.anyio, pytest.mark.threat("W23")]
FINALIZE = {"kind": "invoice", "document_id": DRAFT_ID}


async def _pending(browser: httpx.AsyncClient, access: str) -> tuple[httpx.Response, str]:
    await tool(browser, access, "sevdesk_finalize_document", FINALIZE)
    inbox = await browser.get("/approvals")
    return inbox, approval_ids(inbox.text)[0]


async def test_a_decision_without_the_csrf_token_or_from_another_origin_is_refused(
    tmp_path: Path,
) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        inbox, approval_id = await _pending(browser, access)
        form = {"id": approval_id, "decision": "approve"}
        no_csrf = await browser.post("/approvals", data={**form, "csrf": "x" * 43})
        foreign = await browser.post(
            "/approvals",
            data={**form, "csrf": csrf_of(inbox.text)},
            headers={"origin": "https://evil.example", "sec-fetch-site": "cross-site"},
        )
        null = await browser.post(
            "/approvals", data={**form, "csrf": csrf_of(inbox.text)}, headers={"origin": "null"}
        )
        assert no_csrf.status_code == 403 and "did not come from" in no_csrf.text
        assert foreign.status_code == 403 and null.status_code == 403
        assert approval_ids((await browser.get("/approvals")).text) == [approval_id]


async def test_a_session_of_another_account_sees_and_decides_nothing(tmp_path: Path) -> None:
    async with (
        web_server(tmp_path) as server,
        browser_like(server) as owner,
        browser_like(server) as other,
    ):
        access = await grant(owner)
        _, approval_id = await _pending(owner, access)
        assert (await sign_in(other, TOKEN_B)).status_code == 303
        seen = await other.get("/approvals")
        assert "Zweite GmbH" in seen.text and approval_id not in seen.text
        forged = await other.post(
            "/approvals",
            data={"csrf": csrf_of(seen.text), "id": approval_id, "decision": "approve"},
        )
        assert forged.status_code == 404
        assert approval_ids((await owner.get("/approvals")).text) == [approval_id]


async def test_a_decided_approval_cannot_be_decided_again(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        inbox, approval_id = await _pending(browser, access)
        form = {"csrf": csrf_of(inbox.text), "id": approval_id, "decision": "decline"}
        assert (await browser.post("/approvals", data=form)).status_code == 303
        replay = await browser.post("/approvals", data={**form, "decision": "approve"})
        assert replay.status_code == 404 and "no longer open" in replay.text
        result = await tool(browser, access, "sevdesk_finalize_document", FINALIZE)
        assert result["structuredContent"]["status"] == "declined"


async def test_the_tool_result_names_the_inbox_never_a_capability(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        result = await tool(browser, access, "sevdesk_finalize_document", FINALIZE)
        inbox = await browser.get("/approvals")
        (approval_id,) = approval_ids(inbox.text)
        assert approval_id not in str(result) and f"{server.url}/approvals" in str(result)


async def test_links_passed_on_by_the_model_open_nothing_without_the_session(
    tmp_path: Path,
) -> None:
    async with (
        web_server(tmp_path) as server,
        browser_like(server) as browser,
        browser_like(server) as stranger,
    ):
        access = await grant(browser)
        asked = (await tool(browser, access, "sevdesk_request_upload", {}))["structuredContent"]
        pdf = (await tool(browser, access, "sevdesk_document_pdf", FINALIZE))["structuredContent"]
        for link in (asked["upload_page"], pdf["download_page"]):
            path = link.removeprefix(server.url)
            answer = await stranger.get(path)
            assert answer.status_code == 303 and answer.headers["location"].startswith("/signin")
            posted = await stranger.post(path, data={"csrf": "x"})
            assert posted.status_code == 403
        assert (await sign_in(stranger, TOKEN_B)).status_code == 303
        other = await stranger.get(pdf["download_page"].removeprefix(server.url))
        assert other.status_code == 404


async def test_download_links_are_single_use_and_expire(tmp_path: Path) -> None:
    now = [1_000_000.0]
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        server.hub.transfers._clock = lambda: now[0]  # type: ignore[union-attr]
        access = await grant(browser)
        first = (await tool(browser, access, "sevdesk_document_pdf", FINALIZE))["structuredContent"]
        path = first["download_page"].removeprefix(server.url)
        page = await browser.get(path)
        got = await browser.post(path, data={"csrf": csrf_of(page.text)})
        assert got.status_code == 200
        replay = await browser.post(path, data={"csrf": csrf_of(page.text)})
        assert replay.status_code == 404 and "not valid any more" in replay.text
        later = (await tool(browser, access, "sevdesk_document_pdf", FINALIZE))["structuredContent"]
        now[0] += 11 * 60
        expired = await browser.get(later["download_page"].removeprefix(server.url))
        assert expired.status_code == 404


async def _upload(
    browser: httpx.AsyncClient, link: str, data: bytes, name: str, kind: str
) -> httpx.Response:
    page = await browser.get(link)
    return await browser.post(
        link, data={"csrf": csrf_of(page.text)}, files={"file": (name, data, kind)}
    )


async def test_oversized_uploads_and_content_type_lies_are_refused(tmp_path: Path) -> None:
    limits = Limits(max_upload_bytes=1024)
    async with web_server(tmp_path, limits=limits) as server, browser_like(server) as browser:
        access = await grant(browser)
        asked = (await tool(browser, access, "sevdesk_request_upload", {}))["structuredContent"]
        link = asked["upload_page"].removeprefix(server.url)
        big = await _upload(browser, link, PDF + b"0" * 2048, "beleg.pdf", "application/pdf")
        assert big.status_code == 400 and "larger than" in big.text
        huge = await _upload(browser, link, PDF + b"0" * 40_000, "beleg.pdf", "application/pdf")
        assert huge.status_code == 413
        lie = await _upload(browser, link, PNG, "beleg.pdf", "application/pdf")
        assert lie.status_code == 400 and "claims to be application/pdf" in lie.text
        named = await _upload(browser, link, PNG, "beleg.pdf", "image/png")
        assert named.status_code == 400 and "named .pdf" in named.text
        html_file = await _upload(browser, link, b"<html><script>", "x.html", "text/html")
        assert html_file.status_code == 400
        ok = await _upload(browser, link, PNG, "scan.png", "image/png")
        assert ok.status_code == 200
        again = await _upload(browser, link, PNG, "scan.png", "image/png")
        assert again.status_code == 400 and "used already" in again.text


async def test_an_upload_reference_of_another_grant_is_refused(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        first = await grant(browser)
        second = await grant(browser)  # the same account, another connection
        asked = (await tool(browser, first, "sevdesk_request_upload", {}))["structuredContent"]
        link = asked["upload_page"].removeprefix(server.url)
        assert (await _upload(browser, link, PDF, "b.pdf", "application/pdf")).status_code == 200
        stolen = await tool(browser, second, "sevdesk_upload_receipt", {"path": asked["reference"]})
        assert stolen["isError"] and "another connection" in stolen["content"][0]["text"]
        own = await tool(browser, first, "sevdesk_upload_receipt", {"path": asked["reference"]})
        assert not own.get("isError"), own


async def test_sign_in_is_rate_limited_and_needs_its_csrf_cookie(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        page = await browser.get("/signin")
        form = {"csrf": csrf_of(page.text), "next": "/approvals", "sevdesk_token": "wrong-token-1"}
        answers = [(await browser.post("/signin", data=form)).status_code for _ in range(6)]
        assert answers[:5] == [400] * 5 and answers[5] == 429
        browser.cookies.clear()
        assert (await browser.post("/signin", data=form)).status_code == 403


async def _send(
    browser: httpx.AsyncClient,
    method: str,
    path: str,
    *,
    drop: tuple[str, ...] = (),
    extra: list[tuple[str, str]] | None = None,
    **kwargs: Any,
) -> httpx.Response:
    """Send with the browser's cookies, without the headers in ``drop``, plus ``extra``."""
    request = browser.build_request(method, path, **kwargs)
    kept = [(k, v) for k, v in request.headers.multi_items() if k.lower() not in drop]
    request.headers = httpx.Headers(kept + (extra or []))
    return await browser.send(request)


async def test_a_decision_from_an_allowed_mcp_client_origin_or_without_origin_is_refused(
    tmp_path: Path,
) -> None:
    client_origin = "https://claude.example"
    env = {"SEVDESK_HTTP_ALLOWED_ORIGINS": client_origin}
    async with web_server(tmp_path, env=env) as server, browser_like(server) as browser:
        access = await grant(browser)
        inbox, approval_id = await _pending(browser, access)
        form = {"csrf": csrf_of(inbox.text), "id": approval_id, "decision": "approve"}
        both = ("origin", "sec-fetch-site")
        forged = [
            # a page of the MCP client's origin: passes the server's Origin rule, not the pages'
            await _send(
                browser,
                "POST",
                "/approvals",
                data=form,
                drop=both,
                extra=[("origin", client_origin)],
            ),
            await _send(
                browser,
                "POST",
                "/approvals",
                data=form,
                drop=both,
                extra=[("origin", client_origin), ("sec-fetch-site", "cross-site")],
            ),
            # neither Origin nor Sec-Fetch-Site: nothing vouches for the form
            await _send(browser, "POST", "/approvals", data=form, drop=both),
            # no Origin, and the browser says another site of the same registrable domain
            await _send(
                browser,
                "POST",
                "/approvals",
                data=form,
                drop=both,
                extra=[("sec-fetch-site", "same-site")],
            ),
            # the right Origin, but Sec-Fetch-Site twice
            await _send(
                browser,
                "POST",
                "/approvals",
                data=form,
                drop=("sec-fetch-site",),
                extra=[("sec-fetch-site", "same-origin"), ("sec-fetch-site", "same-origin")],
            ),
        ]
        for answer in forged:
            assert answer.status_code == 403 and "did not come from" in answer.text, answer.text
        assert approval_ids((await browser.get("/approvals")).text) == [approval_id]
        # what an older browser sends on the page's own form: no Origin, same-origin fetch
        own = await _send(browser, "POST", "/approvals", data=form, drop=("origin",))
        assert own.status_code == 303
        assert approval_ids((await browser.get("/approvals")).text) == []


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        pytest.param(
            "decision=decline&decision=approve",
            "application/x-www-form-urlencoded",
            id="repeated-field",
        ),
        pytest.param("decision=approve", "application/json", id="not-a-form"),
        pytest.param(
            "decision=approve&note=%FF", "application/x-www-form-urlencoded", id="not-utf8"
        ),
    ],
)
async def test_a_decision_in_a_form_that_is_not_strict_is_refused(
    tmp_path: Path, body: str, content_type: str
) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        inbox, approval_id = await _pending(browser, access)
        fields = f"csrf={csrf_of(inbox.text)}&id={approval_id}&{body}"
        answer = await browser.post(
            "/approvals", content=fields.encode(), headers={"content-type": content_type}
        )
        assert answer.status_code == 403 and "did not come from" in answer.text
        assert approval_ids((await browser.get("/approvals")).text) == [approval_id]


async def test_a_download_link_with_its_id_repeated_serves_nothing_and_stays_usable(
    tmp_path: Path,
) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        pdf = (await tool(browser, access, "sevdesk_document_pdf", FINALIZE))["structuredContent"]
        path = pdf["download_page"].removeprefix(server.url)
        page = await browser.get(path)
        csrf = csrf_of(page.text)
        for polluted in (f"{path}&{path.partition('?')[2]}", f"{path}&x=1", f"{path}&id=%ZZ"):
            assert (await browser.get(polluted)).status_code == 404
            taken = await browser.post(polluted, data={"csrf": csrf})
            assert taken.status_code == 404 and not taken.content.startswith(b"%PDF")
        got = await browser.post(path, data={"csrf": csrf})
        assert got.status_code == 200 and got.content.startswith(b"%PDF")


async def test_a_link_followed_from_another_site_asks_to_continue_and_shows_nothing(
    tmp_path: Path,
) -> None:
    async with (
        web_server(tmp_path) as server,
        browser_like(server) as browser,
        browser_like(server) as stranger,
    ):
        access = await grant(browser)
        pdf = (await tool(browser, access, "sevdesk_document_pdf", FINALIZE))["structuredContent"]
        path = pdf["download_page"].removeprefix(server.url)
        # the SameSite=Strict cookie is not sent on a navigation from the chat's site
        cross = {"sec-fetch-site": "cross-site"}
        page = await _send(stranger, "GET", path, drop=("origin", *cross), extra=[*cross.items()])
        assert page.status_code == 200 and "You came here from another site" in page.text
        assert f'href="{html.escape(path)}"' in page.text
        assert 'name="csrf"' not in page.text and "set-cookie" not in page.headers
        posted = await _send(
            stranger, "POST", path, data={"csrf": "x"}, drop=(*cross,), extra=[*cross.items()]
        )
        assert posted.status_code == 403
        # the same click inside the site goes to the sign-in page, and keeps where to go next
        inside = await stranger.get(path)
        assert inside.status_code == 303
        assert inside.headers["location"] == f"/signin?next={quote(path, safe='')}&lang=en"
        odd = await stranger.get("/approvals?next=https://evil.example")
        assert odd.headers["location"] == "/signin?next=%2Fapprovals&lang=en"
        # the owner's own browser, coming from inside the site, sees the download page
        assert (await browser.get(path)).status_code == 200


async def test_an_expired_session_opens_and_decides_nothing(tmp_path: Path) -> None:
    now = [1_000_000.0]
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        server.hub.sessions._clock = lambda: now[0]
        assert (await sign_in(browser)).status_code == 303
        access = await grant(browser)
        inbox, approval_id = await _pending(browser, access)
        now[0] += SESSION_TTL_S + 1
        late = await browser.post(
            "/approvals",
            data={"csrf": csrf_of(inbox.text), "id": approval_id, "decision": "approve"},
        )
        assert late.status_code == 403
        again = await browser.get("/approvals")
        assert again.status_code == 303 and again.headers["location"].startswith("/signin")


async def test_a_session_cookie_of_another_server_process_opens_nothing(tmp_path: Path) -> None:
    async with (
        web_server(tmp_path / "a") as first,
        web_server(tmp_path / "b") as second,
        browser_like(first) as browser,
        browser_like(second) as other,
    ):
        assert (await sign_in(browser)).status_code == 303
        (cookie,) = browser.cookies.jar
        assert cookie.value and (await browser.get("/approvals")).status_code == 200
        other.cookies.set(cookie.name, cookie.value)
        foreign = await other.get("/approvals")
        assert foreign.status_code == 303 and foreign.headers["location"].startswith("/signin")
        tampered = cookie.value[:-2] + ("AA" if cookie.value[-2:] != "AA" else "BB")
        browser.cookies.clear()
        browser.cookies.set(cookie.name, tampered)
        assert (await browser.get("/approvals")).status_code == 303
