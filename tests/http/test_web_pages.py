"""Issue 23 end to end over real sockets: a browser session (consent or sign-in), the approval
inbox deciding a finalize, an upload used by the receipt tool, and a PDF download link."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.http.web_support import (
    DEMO_TOKEN,
    PDF,
    approval_ids,
    browser_like,
    csrf_of,
    grant,
    sign_in,
    tool,
    web_server,
)
from tests.writes.helpers import DRAFT_ID

pytestmark = pytest.mark.anyio
FINALIZE = {"kind": "invoice", "document_id": DRAFT_ID}


async def test_sign_in_starts_a_session_and_sign_out_ends_it(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        answer = await sign_in(browser)
        assert answer.status_code == 303 and answer.headers["location"] == "/approvals?lang=en"
        cookie = answer.headers.get_list("set-cookie")[0]
        assert "SameSite=Strict" in cookie and "HttpOnly" in cookie and "Max-Age=43200" in cookie
        inbox = await browser.get("/approvals")
        assert inbox.status_code == 200 and "Holzwerk Sonnenberg GmbH" in inbox.text
        out = await browser.post("/signout", data={"csrf": csrf_of(inbox.text)})
        assert out.status_code == 303
        again = await browser.get("/approvals")
        assert again.status_code == 303 and again.headers["location"].startswith("/signin")


async def test_the_consent_starts_a_session(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        await grant(browser)
        inbox = await browser.get("/approvals")
        assert inbox.status_code == 200 and "Nothing waits" in inbox.text


async def test_an_approval_waits_in_the_inbox_and_is_decided_there(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        first = await tool(browser, access, "sevdesk_finalize_document", FINALIZE)
        text = first["content"][0]["text"]
        assert f"{server.url}/approvals" in text and "/a/" not in text
        inbox = await browser.get("/approvals", headers={"accept-language": "de-DE,de;q=0.9"})
        assert "Freigeben" in inbox.text and "Referenz" in inbox.text
        (approval_id,) = approval_ids(inbox.text)
        decided = await browser.post(
            "/approvals",
            data={"csrf": csrf_of(inbox.text), "id": approval_id, "decision": "approve"},
        )
        assert decided.status_code == 303
        done = await browser.get(decided.headers["location"])
        assert "Approved" in done.text
        second = await tool(browser, access, "sevdesk_finalize_document", FINALIZE)
        assert not second.get("isError"), second
        assert second["structuredContent"]["status"] == "done", second


async def test_an_upload_reaches_the_receipt_tool_and_a_pdf_becomes_a_download(
    tmp_path: Path,
) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        asked = await tool(browser, access, "sevdesk_request_upload", {})
        request = asked["structuredContent"]
        assert request["reference"].startswith("upload:")
        page = await browser.get(request["upload_page"].removeprefix(server.url))
        assert page.status_code == 200 and 'type="file"' in page.text
        files = {"file": ("beleg.pdf", PDF, "application/pdf")}
        sent = await browser.post(
            request["upload_page"].removeprefix(server.url),
            data={"csrf": csrf_of(page.text)},
            files=files,
        )
        assert sent.status_code == 200 and "beleg.pdf" in sent.text, sent.text
        used = await tool(browser, access, "sevdesk_upload_receipt", {"path": request["reference"]})
        assert not used.get("isError"), used
        pdf = await tool(browser, access, "sevdesk_document_pdf", FINALIZE)
        link = pdf["structuredContent"]["download_page"]
        shown = await browser.get(link.removeprefix(server.url))
        assert shown.status_code == 200
        got = await browser.post(link.removeprefix(server.url), data={"csrf": csrf_of(shown.text)})
        assert got.status_code == 200 and got.content.startswith(b"%PDF")
        assert got.headers["content-disposition"].startswith("attachment; filename=")
        assert got.headers["x-content-type-options"] == "nosniff"
        assert DEMO_TOKEN not in got.headers.get("set-cookie", "")
