"""Issue 39 in a real headless browser: every page a person reads (the local approval page, the
consent page, sign-in, the inbox, upload, download) in German and in English, at 1280 px and
390 px, each screenshotted into a folder named after the test (printed) and checked with axe;
and what a person reads: ``<html lang>``, amounts and days in the page's language, the
company's name, and not one of the model's ``⟦ ⟧`` fences.

The browser asks for the *other* language in ``Accept-Language``: only the page's own ``lang``
(the link, then its links and forms) can make each page right."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio.to_thread
import pytest

from sevdesk_mcp.fake import DEMO_TOKEN
from sevdesk_mcp.http.kit.lang import Lang, other_lang
from sevdesk_mcp.http.local.approval_page import ApprovalSite
from sevdesk_mcp.http.pages import PageServer
from sevdesk_mcp.safety.approvals import Binding, MemoryApprovalStore
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.transfers import Owner
from tests.browser.cdp import CHROMIUM, Chromium
from tests.browser.looks import Looker, assert_reads, axe_source, prefer, shots_folder
from tests.http.oauth_support import authorize_query, pkce, register
from tests.http.page_samples import AMOUNT, COMPANY, DAY, invoice_preview
from tests.http.web_support import PDF, browser_like, web_server

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (scripts/install_browser_test_deps.sh installs it)",
    ),
]
LANGS: tuple[Lang, ...] = ("de", "en")
ACCEPT = {"de": "de-DE,de;q=0.9", "en": "en-US,en;q=0.9"}
WORDS: dict[Lang, dict[str, str]] = {
    "de": {
        "approval": "sevDesk-Aktion freigeben?",
        "approved": "Freigegeben (Referenz",
        "consent": "sevDesk verbinden",
        "signin": "Melden Sie sich mit Ihrem sevDesk-Konto an",
        "inbox": "Nichts wartet",
        "card": "Rechnungsentwurf 700041",
        "inbox_done": "Freigegeben (",
        "upload": "Eine Datei für Ihren Assistenten hochladen",
        "download": "Eine Datei herunterladen",
        "signed_in": f"Angemeldet bei {COMPANY}",
        "company": f"sevDesk-Konto: {COMPANY}",
        "switch": "English",
    },
    "en": {
        "approval": "Approve a sevDesk action?",
        "approved": "Approved (reference",
        "consent": "Connect sevDesk",
        "signin": "Sign in with your sevDesk account",
        "inbox": "Nothing waits",
        "card": "Finalize invoice draft 700041",
        "inbox_done": "Approved (",
        "upload": "Upload a file for your assistant",
        "download": "Download a file",
        "signed_in": f"Signed in to {COMPANY}",
        "company": f"sevDesk account: {COMPANY}",
        "switch": "Deutsch",
    },
}
MOMENT = {
    "de": re.compile(r"\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} Uhr MES?Z"),
    "en": re.compile(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} CES?T"),
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def approval_in_browser(link: str, lang: Lang, profile: Path, shots: Path, axe: str) -> Looker:
    """Look at the approval page, approve, look at the result; switch the language."""
    words = WORDS[lang]
    with Chromium(profile) as browser:
        browser.open("about:blank")
        prefer(browser, ACCEPT[other_lang(lang)])
        looker = Looker(browser, shots, axe)
        looker.go(link)
        seen = looker.look(f"approval-{lang}", words["approval"])
        assert_reads(seen, lang, AMOUNT[lang], DAY[lang], words["company"], words["switch"])
        assert MOMENT[lang].search(seen.text), seen.text
        assert "Schreinerei Müller & Söhne" in seen.text and "Eichentisch (massiv)" in seen.text
        looker.click("a.lang")
        other = looker.look(f"approval-{lang}-switched", WORDS[other_lang(lang)]["approval"])
        assert_reads(other, other_lang(lang), AMOUNT[other_lang(lang)])
        looker.go(link)
        looker.look(f"approval-{lang}-again", words["approval"])
        looker.click("button[value=approve]")
        done = looker.look(f"approval-{lang}-approved", words["approved"])
        assert_reads(done, lang, words["switch"])  # the same words, folded, in the other
        assert MOMENT[lang].search(done.text), done.text
    return looker


@pytest.mark.parametrize("lang", LANGS)
async def test_the_local_approval_page_reads_in_each_language(lang: Lang, tmp_path: Path) -> None:
    axe = axe_source()
    shots = shots_folder(tmp_path, f"local-approval-{lang}")
    store = MemoryApprovalStore()
    site = ApprovalSite(company=COMPANY)
    site.attach(store)
    server = PageServer(site)
    host = server.start()
    try:
        binding = Binding("sevdesk_finalize_document", "{}", "local")
        approval = (await store.settle(binding, invoice_preview())).approval
        link = f"http://{host}/a/{approval.id}?lang={lang}"
        looker = await anyio.to_thread.run_sync(
            approval_in_browser, link, lang, tmp_path / "profile", shots, axe
        )
    finally:
        server.stop()
    assert store.view_now(approval.id) is None  # approved: no longer shown
    assert all(not v for v in looker.violations.values()), looker.violations
    assert len(list(shots.glob("*.png"))) == 8


def web_in_browser(  # noqa: PLR0917 - the pages' addresses
    url: str, lang: Lang, links: dict[str, str], profile: Path, shots: Path, axe: str
) -> Looker:
    """Consent, sign in, the inbox with its approval, approve, upload and download pages."""
    words = WORDS[lang]
    with Chromium(profile) as browser:
        browser.open("about:blank")
        prefer(browser, ACCEPT[other_lang(lang)])
        looker = Looker(browser, shots, axe)
        looker.go(links["consent"])
        assert_reads(looker.look(f"consent-{lang}", words["consent"]), lang, words["switch"])
        looker.go(f"{url}/signin?lang={lang}")
        assert_reads(looker.look(f"signin-{lang}", words["signin"]), lang, words["switch"])
        token = json.dumps(DEMO_TOKEN)
        browser.evaluate(f"document.querySelector('#token').value = {token}")
        looker.click("button[type=submit].primary")
        inbox = looker.look(f"inbox-{lang}", words["card"])
        assert_reads(inbox, lang, AMOUNT[lang], DAY[lang], words["signed_in"], words["switch"])
        assert COMPANY in inbox.text and MOMENT[lang].search(inbox.text), inbox.text
        looker.click("button[value=approve]")
        done = looker.look(f"inbox-{lang}-approved", words["inbox_done"])
        assert_reads(done, lang, words["inbox"])
        looker.go(links["upload"])
        upload = looker.look(f"upload-{lang}", words["upload"])
        assert_reads(upload, lang, words["signed_in"], words["switch"])
        assert MOMENT[lang].search(upload.text), upload.text
        looker.go(links["download"])
        download = looker.look(f"download-{lang}", words["download"])
        assert_reads(download, lang, words["signed_in"], "RE-1037.pdf")
        assert MOMENT[lang].search(download.text), download.text
    return looker


@pytest.mark.parametrize("lang", LANGS)
async def test_the_web_pages_read_in_each_language(lang: Lang, tmp_path: Path) -> None:
    axe = axe_source()
    shots = shots_folder(tmp_path, f"web-pages-{lang}")
    async with web_server(tmp_path / "state") as server, browser_like(server) as client:
        hub = server.hub
        identity = await hub.identify(Secret(DEMO_TOKEN))
        person = hub.persons.of(Secret(DEMO_TOKEN))
        store = MemoryApprovalStore()
        hub.approvals.attach(store)
        binding = Binding(
            "sevdesk_finalize_document", "{}", "oauth:g_test", identity.id, person, "Claude"
        )
        await store.settle(binding, invoice_preview())
        owner = Owner("oauth:g_test", identity.id, person)
        assert hub.transfers is not None
        slot = await hub.transfers.request_upload(owner)
        offered = await hub.transfers.offer(owner, "RE-1037.pdf", "application/pdf", PDF)
        query = authorize_query(await register(client), pkce()[1], lang=lang)
        links: dict[str, Any] = {
            "consent": f"{server.url}/authorize?{urlencode(query)}",
            "upload": f"{server.url}/upload?id={slot.id}&lang={lang}",
            "download": f"{server.url}/download?id={offered.id}&lang={lang}",
        }
        looker = await anyio.to_thread.run_sync(
            web_in_browser, server.url, lang, links, tmp_path / "profile", shots, axe
        )
        assert await store.waiting(person) == []  # approved in the inbox
    assert identity.name == COMPANY
    assert all(not v for v in looker.violations.values()), looker.violations
    assert len(list(shots.glob("*.png"))) == 12
