"""Over HTTP the e-invoice tools read an upload reference (``upload:<id>`` of
sevdesk_request_upload) instead of a local path, through the same file access as the receipt
tools; another grant's reference is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import httpx
import pytest

from tests.http.web_support import WebRunning, browser_like, csrf_of, grant, tool, web_server

pytestmark = pytest.mark.anyio
VALID: Final = Path(__file__).resolve().parents[2] / "fixtures" / "einvoice"


async def _uploaded(browser: httpx.AsyncClient, server: WebRunning, access: str, name: str) -> str:
    asked = await tool(browser, access, "sevdesk_request_upload", {})
    request = asked["structuredContent"]
    page_path = request["upload_page"].removeprefix(server.url)
    page = await browser.get(page_path)
    data = (VALID / name).read_bytes()
    sent = await browser.post(
        page_path,
        data={"csrf": csrf_of(page.text)},
        files={"file": (name, data, "application/xml")},
    )
    assert sent.status_code == 200, sent.text
    reference: str = request["reference"]
    return reference


async def test_read_and_suggest_take_an_upload_reference(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        reference = await _uploaded(browser, server, access, "BR-CO-16.ubl.xml")
        read = await tool(browser, access, "sevdesk_read_einvoice", {"path": reference})
        assert not read.get("isError"), read
        report = read["structuredContent"]
        assert {f["rule"] for f in report["findings"]} == {"BR-CO-16"}
        assert report["sha256"] and report["valid"] is False
        suggested = await tool(
            browser, access, "sevdesk_suggest_einvoice_receipt", {"path": reference}
        )
        assert not suggested.get("isError"), suggested


async def test_filing_takes_an_upload_reference(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        reference = await _uploaded(browser, server, access, "valid-en16931.ubl.xml")
        planned = await tool(
            browser, access, "sevdesk_file_einvoice", {"path": reference, "dryRun": True}
        )
        assert not planned.get("isError"), planned
        assert planned["structuredContent"]["status"] == "dry_run"


async def test_a_local_path_is_refused_over_http(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as browser:
        access = await grant(browser)
        read = await tool(
            browser, access, "sevdesk_read_einvoice", {"path": str(VALID / "BR-CO-16.ubl.xml")}
        )
        assert read.get("isError") is True
        assert "over HTTP" in read["content"][0]["text"]
