"""A real headless browser approves on the local page, and the retry executes (issue 5)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio.to_thread
import pytest

from tests.browser.cdp import CHROMIUM, Chromium
from tests.browser.helpers import browser_app, call, last_link
from tests.wire import open_wire
from tests.writes.helpers import DRAFT_ID, writes

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (scripts/install_browser_test_deps.sh installs it)",
    ),
]


def approve_in_browser(link: str, reference: str, profile: Path, decision: str) -> tuple[str, str]:
    """Load the page, check the reference, click a button; :returns: the page and result text."""
    with Chromium(profile) as browser:
        browser.open(link)
        page = browser.wait_for_text(reference)
        if os.environ.get("SEVDESK_SCREENSHOT_DIR"):
            browser.screenshot(Path(os.environ["SEVDESK_SCREENSHOT_DIR"]) / "approval.png")
        browser.evaluate(f"document.querySelector('button[value={decision}]').click()")
        done = browser.wait_for_text(f"(reference {reference})")
    return page, done


async def test_chromium_approves_on_the_page_and_the_retry_executes(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        reference = (await call(wire))["structuredContent"]["approval"]["reference"]
        link = last_link(caplog)
        page, done = await anyio.to_thread.run_sync(
            approve_in_browser, link, reference, tmp_path / "profile", "approve"
        )
        result = (await call(wire))["structuredContent"]
    assert "WARNING: This cannot be undone." in page and "line one\nline two" in page
    assert done.startswith("Approved")
    assert result["status"] == "done"
    assert writes(setup.fake) == [f"PUT /Invoice/{DRAFT_ID}/sendBy"]


async def test_chromium_declines_on_the_page(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        reference = (await call(wire))["structuredContent"]["approval"]["reference"]
        _, done = await anyio.to_thread.run_sync(
            approve_in_browser, last_link(caplog), reference, tmp_path / "profile", "decline"
        )
        result = (await call(wire))["structuredContent"]
    assert done.startswith("Declined")
    assert result["status"] == "declined"
    assert writes(setup.fake) == []
