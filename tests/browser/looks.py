"""What a person sees on a page, in headless Chromium: screenshots at 1280 px and 390 px, the
axe-core check (installed with npm into ``.cache/axe`` on first use; skipped, with the reason,
without Node), and the page's language and text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.browser.cdp import Chromium
from tests.http.helpers import HANG_GUARD_S

AXE_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "axe"
AXE = AXE_CACHE / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (1280, 390)
FENCES = ("⟦", "⟧")


def axe_source() -> str:
    """:returns: axe-core, installed with npm into ``.cache/axe`` on first use."""
    if not AXE.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("axe-core needs npm (Node) to be installed; the accessibility check is off")
        AXE_CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", "axe-core@4"],
            cwd=AXE_CACHE,
            capture_output=True,
            timeout=HANG_GUARD_S * 3,
            check=False,
        )
        if done.returncode != 0 or not AXE.is_file():
            pytest.skip("axe-core could not be installed with npm; the accessibility check is off")
    return AXE.read_text()


def shots_folder(tmp_path: Path, name: str) -> Path:
    """:returns: the folder the screenshots of test ``name`` go to (``SEVDESK_SCREENSHOTS``
    when set, else under the test's temp folder), made and printed."""
    root = Path(os.environ.get("SEVDESK_SCREENSHOTS", tmp_path / "screenshots"))
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    print(f"screenshots: {folder}")
    return folder


@dataclass
class Seen:
    """One page as a person sees it."""

    lang: str
    text: str
    html: str


@dataclass
class Looker:
    """Looks at every page a browser shows: at each width a screenshot and axe's findings."""

    browser: Chromium
    shots: Path
    axe: str
    violations: dict[str, list[str]] = field(default_factory=dict)

    def look(self, name: str, text: str) -> Seen:
        """:returns: the page once it shows ``text``, looked at in both widths."""
        self._arrived(text)
        for width in WIDTHS:
            self.browser.command(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=900,
                deviceScaleFactor=1,
                mobile=width < 600,
            )
            self.browser.evaluate("new Promise(r => requestAnimationFrame(() => r(1)))")
            self.browser.screenshot(self.shots / f"{name}-{width}.png")
            self.violations[f"{name}-{width}"] = self._axe()
        return Seen(
            str(self.browser.evaluate("document.documentElement.lang")),
            str(self.browser.evaluate("document.body.innerText")),
            str(self.browser.evaluate("document.documentElement.outerHTML")),
        )

    def go(self, url: str) -> None:
        self.browser.evaluate(f"location.href = {json.dumps(url)}")

    def click(self, selector: str) -> None:
        self.browser.evaluate(f"document.querySelector({json.dumps(selector)}).click()")

    def _axe(self) -> list[str]:
        self.browser.command("Runtime.evaluate", expression=self.axe)
        found = self.browser.command(
            "Runtime.evaluate",
            expression="axe.run(document).then(r => JSON.stringify(r.violations.map("
            "v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))))",
            awaitPromise=True,
            returnByValue=True,
        )
        violations: list[str] = json.loads(found["result"]["value"])
        return violations

    def _arrived(self, text: str) -> None:
        """Wait for a new, fully loaded page that shows ``text`` (:func:`arrived`)."""
        arrived(self.browser, text)


def prefer(browser: Chromium, accept_language: str) -> None:
    """Make the browser send ``accept_language`` (the tests set the other language than the
    page's, so only the page's own ``lang`` can make it right)."""
    browser.command(
        "Emulation.setUserAgentOverride",
        userAgent="Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome",
        acceptLanguage=accept_language,
    )


def assert_reads(seen: Seen, lang: str, *texts: str) -> None:
    """The page is in ``lang``, shows every one of ``texts`` and no fence of the model."""
    assert seen.lang == lang, seen.lang
    for text in texts:
        assert text in seen.text, (text, seen.text)
    assert not any(f in seen.html for f in FENCES), seen.text


def arrived(browser: Chromium, text: str) -> str:
    """:returns: the text of a new, fully loaded page that shows ``text``. The page seen last is
    marked, so a navigation still under way (a form sent, a link set) is never mistaken for its
    destination: a screenshot then would hit a page being replaced."""
    deadline = time.monotonic() + HANG_GUARD_S
    probe = (
        "(window.__seen || document.readyState !== 'complete' || !document.body) ? '' : "
        "document.body.innerText"
    )
    while True:
        body = str(browser.evaluate(probe, False) or "")
        if text in body:
            browser.evaluate("window.__seen = true")
            return body
        assert time.monotonic() < deadline, f"{text!r} did not appear; the page shows {body!r}"
        time.sleep(0.1)
