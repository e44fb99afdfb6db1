"""The web pages (inbox, sign-in, upload, download, consent) in the reader's language, without a
browser: the ``lang`` field over ``Accept-Language`` over the configured default, kept on the
pages' links, forms and redirects; the inbox's previews in the page's language, times in
Europe/Berlin."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest

from sevdesk_mcp.fake import DEMO_TOKEN
from sevdesk_mcp.http.kit import lang as kit_lang
from sevdesk_mcp.safety.approvals import Approval, Binding, MemoryApprovalStore
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.transfers import Owner
from tests.http.oauth_support import authorize_query, pkce, register
from tests.http.page_samples import AMOUNT, COMPANY, DAY, invoice_preview
from tests.http.web_support import WebRunning, browser_like, csrf_of, sign_in, web_server

pytestmark = pytest.mark.anyio
GERMAN = {"accept-language": "de-DE,de;q=0.9,en;q=0.5"}
ENGLISH = {"accept-language": "en-GB,en;q=0.9"}


@pytest.fixture
def default_en() -> Iterator[None]:
    kit_lang.set_default_lang("en")
    yield
    kit_lang.set_default_lang("en")


async def waiting(server: WebRunning) -> tuple[MemoryApprovalStore, Approval, Owner]:
    """:returns: an approval of the demo token's person waiting in the inbox (and its store,
    held here: the inbox holds stores weakly), and that person as a file owner."""
    hub = server.hub
    identity = await hub.identify(Secret(DEMO_TOKEN))
    person = hub.persons.of(Secret(DEMO_TOKEN))
    store = MemoryApprovalStore()
    hub.approvals.attach(store)
    binding = Binding("sevdesk_finalize_document", "{}", "oauth:g_t", identity.id, person, "C")
    approval = (await store.settle(binding, invoice_preview())).approval
    return store, approval, Owner("oauth:g_t", identity.id, person)


@pytest.mark.usefixtures("default_en")
async def test_the_inbox_reads_in_the_asked_language_over_the_browsers(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as client:
        store, approval, _ = await waiting(server)
        await sign_in(client)
        english = (await client.get("/approvals?lang=en", headers=GERMAN)).text
        german = (await client.get("/approvals", headers=GERMAN)).text
    assert '<html lang="en">' in english and AMOUNT["en"] in english and DAY["en"] in english
    assert "Finalize invoice draft 700041" in english and "Rechnungsentwurf" not in english
    assert "Expires on " in english and "CET" in english and "(UTC)" not in english
    assert 'href="/approvals?lang=de" hreflang="de" lang="de">Deutsch</a>' in english
    assert '<input type="hidden" name="lang" value="en">' in english
    assert '<html lang="de">' in german and AMOUNT["de"] in german and DAY["de"] in german
    assert "Rechnungsentwurf 700041" in german and "Uhr MEZ" in german
    assert COMPANY in german and "⟦" not in german + english and "⟧" not in german + english
    assert approval.reference in german and store is not None


@pytest.mark.usefixtures("default_en")
async def test_a_decision_keeps_the_language_of_its_form(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as client:
        _store, approval, _ = await waiting(server)
        await sign_in(client)
        page = (await client.get("/approvals?lang=de")).text
        fields = {"csrf": csrf_of(page), "id": approval.id, "decision": "approve", "lang": "de"}
        decided = await client.post("/approvals", data=fields, headers=ENGLISH)
        done = await client.get(decided.headers["location"], headers=ENGLISH)
    assert decided.status_code == 303
    assert decided.headers["location"] == f"/approvals?done=approved-{approval.reference}&lang=de"
    assert f"Freigegeben ({approval.reference})" in done.text


async def test_the_configured_language_serves_a_browser_that_names_neither(
    tmp_path: Path, default_en: None
) -> None:
    kit_lang.set_default_lang("de")
    async with web_server(tmp_path) as server, browser_like(server) as client:
        signin = await client.get("/signin", headers={"accept-language": "fr-FR"})
        query = authorize_query(await register(client), pkce()[1])
        consent = await client.get(f"/authorize?{urlencode(query)}", headers={})
        preferred = await client.get("/signin", headers=ENGLISH)
    assert '<html lang="de">' in signin.text and "Anmelden" in signin.text
    assert '<html lang="de">' in consent.text and "sevDesk verbinden" in consent.text
    assert '<html lang="en">' in preferred.text


@pytest.mark.usefixtures("default_en")
async def test_sign_in_goes_on_in_its_language(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as client:
        page = await client.get("/signin?lang=de")
        fields = {"csrf": csrf_of(page.text), "next": "/approvals", "lang": "de"}
        answer = await client.post("/signin", data={**fields, "sevdesk_token": DEMO_TOKEN})
        bare = httpx.AsyncClient(base_url=server.url, trust_env=False)
        async with bare:
            gone = await bare.get("/approvals?lang=de")
    assert '<input type="hidden" name="lang" value="de">' in page.text
    assert 'href="/signin?lang=en"' in page.text
    assert answer.status_code == 303 and answer.headers["location"] == "/approvals?lang=de"
    assert gone.headers["location"] == "/signin?next=%2Fapprovals%3Flang%3Dde&lang=de"


@pytest.mark.usefixtures("default_en")
async def test_upload_and_download_pages_take_their_language_with_the_id(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as client:
        _store, _approval, owner = await waiting(server)
        transfers = server.hub.transfers
        assert transfers is not None
        slot = await transfers.request_upload(owner)
        offered = await transfers.offer(owner, "RE-1037.pdf", "application/pdf", b"%PDF-1.4\n")
        await sign_in(client)
        upload = (await client.get(f"/upload?id={slot.id}&lang=de", headers=ENGLISH)).text
        download = (await client.get(f"/download?id={offered.id}&lang=en", headers=GERMAN)).text
    assert '<html lang="de">' in upload and "Link gültig bis " in upload and "Uhr ME" in upload
    assert f'action="/upload?id={slot.id}&amp;lang=de"' in upload
    assert '<html lang="en">' in download and "until " in download and "(UTC)" not in download
    assert '<input type="hidden" name="lang" value="en">' in download
