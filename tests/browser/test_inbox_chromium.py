"""Issue 23 in a real headless browser: sign in, approve, decline, upload and download, each
page screenshotted (kept under the test's temp folder, or ``SEVDESK_SCREENSHOTS`` when set)
and checked with axe-core in the same browser (skipped, with the reason, without Node/axe)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

from sevdesk_mcp.fake import DEMO_TOKEN
from tests.browser.cdp import CHROMIUM, Chromium
from tests.browser.looks import arrived, axe_source
from tests.http.helpers import HANG_GUARD_S
from tests.http.web_support import PDF, browser_like, grant, tool, web_server
from tests.writes.helpers import DRAFT_ID

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (scripts/install_browser_test_deps.sh installs it)",
    ),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Visit:
    """One browser: screenshots and axe results of every page it sees."""

    def __init__(self, browser: Chromium, shots: Path, axe: str) -> None:
        self.browser = browser
        self.shots = shots
        self.axe = axe
        self.violations: dict[str, list[str]] = {}

    def page(self, name: str, text: str) -> str:
        body = self._arrived(text)
        self.browser.screenshot(self.shots / f"{name}.png")
        self.browser.command("Runtime.evaluate", expression=self.axe)
        found = self.browser.command(
            "Runtime.evaluate",
            expression="axe.run(document).then(r => JSON.stringify(r.violations.map("
            "v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))))",
            awaitPromise=True,
            returnByValue=True,
        )
        self.violations[name] = json.loads(found["result"]["value"])
        return body

    def _arrived(self, text: str) -> str:
        """:returns: the text of a new, fully loaded page that shows ``text``."""
        return arrived(self.browser, text)

    def click(self, selector: str) -> None:
        self.browser.evaluate(f"document.querySelector({json.dumps(selector)}).click()")


def run_browser(url: str, profile: Path, shots: Path, axe: str, links: dict[str, str]) -> Visit:
    with Chromium(profile, timeout=HANG_GUARD_S) as browser:
        browser.open(f"{url}/approvals")
        visit = Visit(browser, shots, axe)
        visit.page("1-signin", "Sign in")
        token = json.dumps(DEMO_TOKEN)
        browser.evaluate(f"document.querySelector('#token').value = {token}")
        visit.click("button[type=submit].primary")
        visit.page("2-inbox", "Approve")
        visit.click("button[value=approve]")
        visit.page("3-approved", "Approved")
        visit.click("button[value=decline]")
        visit.page("4-declined", "Declined")
        browser.evaluate(f"location.href = {json.dumps(links['upload'])}")
        visit.page("5-upload", "Upload a file")
        path = profile.parent / "beleg.pdf"
        path.write_bytes(PDF)
        document = browser.command("DOM.getDocument")
        node = browser.command(
            "DOM.querySelector", nodeId=document["root"]["nodeId"], selector="#file"
        )
        browser.command("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(path)])
        browser.evaluate("document.querySelector('#file').dispatchEvent(new Event('change'))")
        info = browser.evaluate("document.querySelector('#file-info').textContent")
        assert "beleg.pdf" in info and "application/pdf" in info, info
        browser.screenshot(shots / "5b-upload-chosen.png")
        visit.click("button[type=submit].primary")
        visit.page("6-uploaded", "File received")
        downloads = profile.parent / "downloads"
        downloads.mkdir()
        browser.command(
            "Browser.setDownloadBehavior",
            session=False,
            behavior="allow",
            downloadPath=str(downloads),
        )
        browser.evaluate(f"location.href = {json.dumps(links['download'])}")
        visit.page("7-download", "Download a file")
        visit.click("button[type=submit].primary")
        saved = _wait_for_file(downloads)
        assert saved.read_bytes().startswith(b"%PDF"), saved
    return visit


def _wait_for_file(folder: Path) -> Path:

    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        done = [p for p in folder.iterdir() if not p.name.endswith(".crdownload")]
        if done:
            return done[0]
        time.sleep(0.1)
    raise AssertionError("the download did not arrive")


async def test_sign_in_approve_decline_upload_and_download_in_chromium(tmp_path: Path) -> None:
    axe = axe_source()
    shots = Path(os.environ.get("SEVDESK_SCREENSHOTS", tmp_path / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - before the server starts
    finalize = {"kind": "invoice", "document_id": DRAFT_ID}
    async with web_server(tmp_path / "state") as server, browser_like(server) as client:
        access = await grant(client)
        await tool(client, access, "sevdesk_finalize_document", finalize)
        await tool(client, await grant(client), "sevdesk_finalize_document", finalize)
        asked = (await tool(client, access, "sevdesk_request_upload", {}))["structuredContent"]
        pdf = (await tool(client, access, "sevdesk_document_pdf", finalize))["structuredContent"]
        links: dict[str, Any] = {"upload": asked["upload_page"], "download": pdf["download_page"]}
        visit = await anyio.to_thread.run_sync(
            run_browser, server.url, tmp_path / "profile", shots, axe, links
        )
        used = await tool(client, access, "sevdesk_upload_receipt", {"path": asked["reference"]})
    assert not used.get("isError"), used
    assert all(not v for v in visit.violations.values()), visit.violations
    assert len(list(shots.glob("*.png"))) == 8  # noqa: ASYNC240 - the server has stopped
