"""The approval preview as HTML (``http.kit.approval.preview_html``) and the local approval
page's words, without a browser: language, formats, escaping, quoted data, tables, the cut
marker, hidden characters; and how a page's language is chosen."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from sevdesk_mcp.http.kit import lang as kit_lang
from sevdesk_mcp.http.kit.approval import preview_html
from sevdesk_mcp.http.kit.lang import pick_lang, preferred, with_lang
from sevdesk_mcp.http.kit.page import switch_link
from sevdesk_mcp.http.local.approval_page import ApprovalSite, approval_html
from sevdesk_mcp.http.pages import Request
from sevdesk_mcp.safety.approvals import Approval, Binding
from sevdesk_mcp.safety.basis import basis_of
from sevdesk_mcp.safety.preview import (
    MAX_PREVIEW_CHARS,
    Fact,
    Plain,
    Preview,
    Quoted,
    Said,
    Table,
    fact,
    say,
)
from sevdesk_mcp.safety.redact import REDACTOR
from tests.http.page_samples import ASKED, COMPANY, invoice_preview

HOSTILE = "<script>alert(\"x\")</script> & 'q' <img src=x onerror=alert(1)>"
SECRET = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
EXPIRES = ASKED


def an_approval(preview: Preview) -> Approval:
    return Approval(
        id="a" * 43,
        reference="7K-M3QX",
        binding=Binding("sevdesk_finalize_document", "{}", "local"),
        preview=preview,
        basis=basis_of(preview, {}),
        call="c",
        expires=EXPIRES.timestamp(),
        csrf="csrf-token",
        cookie="cookie",
    )


@pytest.fixture
def default_en() -> Iterator[None]:
    kit_lang.set_default_lang("en")
    yield
    kit_lang.set_default_lang("en")


def test_german_preview_reads_in_german_formats_warnings_first() -> None:
    html = preview_html(invoice_preview(), "de")
    assert "1.150,00 €" in html and "24.11.2026" in html and "01.12.2026, 15:05 Uhr MEZ" in html
    assert html.index("sevDesk vergibt jetzt die Nummer.") < html.index(
        "Das lässt sich nicht rückgängig machen."
    )
    assert html.index("rückgängig machen.") < html.index('<h2 class="action">Rechnungsentwurf')
    assert "<dt>Kopftext</dt>" in html and "Head text" not in html and "ACHTUNG" in html
    assert '<span class="old">draft</span> → <span class="new">open</span>' in html
    assert '<q class="data">line one</q>\n<q class="data">line two</q>' in html


def test_english_preview_reads_in_english_formats() -> None:
    html = preview_html(invoice_preview(), "en")
    assert "€1,150.00" in html and "24 Nov 2026" in html and "1 Dec 2026, 15:05 CET" in html
    assert "WARNING:</strong> This cannot be undone." in html and "Kopftext" not in html


def test_third_party_text_is_quoted_data_and_never_fenced() -> None:
    html = preview_html(invoice_preview(), "de")
    assert '<q class="data">Schreinerei Müller &amp; Söhne</q>' in html
    assert "⟦" not in html and "⟧" not in html
    assert '<q class="data">Eichentisch (massiv)</q>' in html
    assert "q.data{" in open_stylesheet()  # the one stylesheet sets it apart


def open_stylesheet() -> str:
    from sevdesk_mcp.http.kit.style import STYLE

    return STYLE


def test_a_table_is_a_real_table_with_column_titles_and_numbers_right() -> None:
    html = preview_html(invoice_preview(), "de")
    assert (
        '<thead><tr><th scope="col">Artikel</th><th scope="col" class="num">Menge</th>'
        '<th scope="col" class="num">Netto</th></tr></thead>'
    ) in html
    assert '<td class="num">1.000,00 €</td>' in html and '<td class="num">2</td>' in html
    assert '<div class="table" tabindex="0"><table><thead>' in html
    empty = Preview(
        action=say("A", "A"), facts=[Fact(Said("P", "P"), Table((Said("x", "x"),), ()))]
    )
    assert "<dd>(keine Angabe)</dd>" in preview_html(empty, "de")


def test_everything_is_escaped() -> None:
    preview = Preview(
        action=say("Rename {0} to {1}", "{0} in {1} umbenennen", Plain(HOSTILE), Quoted(HOSTILE)),
        facts=[fact(HOSTILE, HOSTILE, Quoted(HOSTILE))],
        warnings=[say(HOSTILE, HOSTILE)],
    )
    for lang in ("de", "en"):
        html = preview_html(preview, lang)
        assert "<script" not in html and "<img" not in html and "onerror=alert(1)>" not in html
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;q&#x27;" in html


def test_hidden_characters_and_secrets_never_reach_the_page() -> None:
    REDACTOR.add(SECRET)
    preview = Preview(
        action=say("Pay {0}", "{0} bezahlen", Quoted("\u202eevil\u200b")),
        facts=[fact("Note\u2066", "Notiz\u2066", Quoted(f"token {SECRET}\u200d"))],
    )
    html = preview_html(preview, "de")
    assert not re.search("[\u202e\u200b\u2066\u200d]", html) and SECRET not in html
    assert '<q class="data">evil</q> bezahlen' in html and "[redacted]" in html


@pytest.mark.parametrize(
    ("lang", "marker"),
    [
        ("en", "more characters not shown; open the dry run to see everything]"),
        ("de", "weitere Zeichen nicht gezeigt; der Probelauf zeigt alles]"),
    ],
)
def test_a_long_preview_is_capped_with_the_marker_in_the_pages_language(
    lang: str, marker: str
) -> None:
    preview = Preview(action=say("Act", "Tun"), facts=[fact("Text", "Text", Quoted("z" * 13_000))])
    html = preview_html(preview, "de" if lang == "de" else "en")
    shown = MAX_PREVIEW_CHARS - len("Act" if lang == "en" else "Tun") - len("Text")
    assert f'<q class="data">{"z" * shown}</q>' in html
    assert f'<p class="cut">[… {13_000 - shown} {marker}</p>' in html


def test_the_approval_page_names_the_company_the_expiry_and_what_approving_does() -> None:
    page = approval_html(an_approval(invoice_preview()), "de", COMPANY).decode()
    assert page.startswith('<!doctype html><html lang="de">')
    assert f"sevDesk-Konto: {COMPANY}" in page
    assert "Diese Anfrage gilt bis 01.12.2026, 15:05 Uhr MEZ." in page
    assert "Wenn Sie freigeben, führt Ihr Assistent genau das aus" in page
    assert "Die Freigabe ist verbindlich: Das lässt sich nicht rückgängig machen." in page
    assert "Freigeben</button>" in page and "Ablehnen</button>" in page
    assert '<input type="hidden" name="lang" value="de">' in page
    assert f'href="/a/{"a" * 43}?lang=en" hreflang="en" lang="en">English</a>' in page
    assert "⟦" not in page and "⟧" not in page and "Head text" not in page
    english = approval_html(an_approval(invoice_preview()), "en", COMPANY).decode()
    assert '<html lang="en">' in english
    assert "This request expires on 1 Dec 2026, 15:05 CET." in english


def local_request(target: str, headers: dict[str, str] | None = None) -> Request:
    host = "127.0.0.1:1"
    return Request("GET", target, {"host": host, **(headers or {})}, b"", host)


@pytest.mark.usefixtures("default_en")
def test_the_local_pages_language_is_asked_else_preferred_else_configured() -> None:
    site = ApprovalSite()
    unknown = "/a/" + "x" * 43
    assert b'<html lang="en">' in site.handle(local_request(unknown)).body
    de = {"accept-language": "de-DE,de;q=0.9,en;q=0.8"}
    assert b'<html lang="de">' in site.handle(local_request(unknown, de)).body
    asked = site.handle(local_request(unknown + "?lang=en", de)).body.decode()
    assert '<html lang="en">' in asked and "This approval page is not valid" in asked
    assert b'<html lang="de">' in ApprovalSite("de").handle(local_request(unknown)).body
    kit_lang.set_default_lang("de")
    assert b"Nicht gefunden" in ApprovalSite().handle(local_request(unknown)).body


@pytest.mark.usefixtures("default_en")
def test_accept_language_weights_decide_between_german_and_english() -> None:
    assert preferred("en-US,en;q=0.9,de;q=0.5") == "en"
    assert preferred("fr-FR,de;q=0.4,en;q=0.3") == "de"
    assert preferred("de;q=0, en;q=0.1") == "en" and preferred("fr, it") is None
    assert preferred("deu, english") is None and preferred("de;q=abc") is None
    assert pick_lang(None, "fr", "de") == "de" and pick_lang("en", "de", "de") == "en"
    assert pick_lang(None, None) == "en"


def test_links_keep_and_switch_the_language() -> None:
    assert with_lang("/approvals", "de") == "/approvals?lang=de"
    assert with_lang("/upload?id=abc&lang=en", "de") == "/upload?id=abc&lang=de"
    link = switch_link("/download?id=abc", "de")
    assert link == (
        '<a class="lang" href="/download?id=abc&amp;lang=en" hreflang="en" lang="en">English</a>'
    )
