"""The consent page and the authorization error page, in German and English, on the page kit
(``http.kit``: the shell, the one stylesheet and CSP, the escaper, the language, the token field).

No scripts. Everything that comes from a client (its name, its hosts) is HTML-escaped and shown
as data, each hidden character (bidi controls, invisible ones) as ``<U+XXXX>`` (``names``). The
page is a plain form: a label for every field, the language in ``<html lang>``, and buttons that
say what they do.
"""

from __future__ import annotations

from typing import ClassVar, Final

import msgspec

from sevdesk_mcp.http.kit.lang import Lang, other_lang
from sevdesk_mcp.http.kit.page import document, e
from sevdesk_mcp.http.kit.token import token_field
from sevdesk_mcp.http.oauth.names import visible
from sevdesk_mcp.safety.redact import Undisclosed
from sevdesk_mcp.safety.tiers import Tier

__all__ = ["TEXT", "ConsentView", "Lang", "consent_page", "error_page"]

TEXT: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "title": "Connect sevDesk",
        "asks": "{client} ({host}) asks to work with your sevDesk books through this server.",
        "back": "After your decision you return to {redirect}.",
        "local": "That is a program on this computer.",
        "token": "Your sevDesk API token",
        "token_help": (
            "In sevDesk: Settings, then Users, then your user: API token. It is checked with "
            "sevDesk once and then travels only sealed inside the tokens this app receives; "
            "this server keeps no copy."
        ),
        "tiers": "What may {client} do?",
        "allow": "Allow",
        "deny": "Deny",
        "other": "Deutsch",
        "error_title": "This sign-in cannot go on",
        "error_next": "Go back to your app and connect again.",
        "read": "Read: contacts, documents, bank transactions and reports",
        "write": "Write: contacts, parts, drafts, vouchers (reversible)",
        "commit": "Commit: finalize, book payments, cancel (binding; you approve each one)",
        "external": "Send: e-mails to third parties (you approve each one)",
    },
    "de": {
        "title": "sevDesk verbinden",
        "asks": "{client} ({host}) möchte über diesen Server mit Ihrer sevDesk-Buchhaltung "
        "arbeiten.",
        "back": "Nach Ihrer Entscheidung geht es zurück zu {redirect}.",
        "local": "Das ist ein Programm auf diesem Computer.",
        "token": "Ihr sevDesk-API-Token",
        "token_help": (
            "In sevDesk: Einstellungen, Benutzer, Ihr Benutzer: API-Token. Er wird einmal bei "
            "sevDesk geprüft und reist danach nur versiegelt in den Tokens dieser App; dieser "
            "Server speichert keine Kopie."
        ),
        "tiers": "Was darf {client}?",
        "allow": "Erlauben",
        "deny": "Ablehnen",
        "other": "English",
        "error_title": "Diese Anmeldung kann nicht fortgesetzt werden",
        "error_next": "Gehen Sie zurück zu Ihrer App und verbinden Sie sich neu.",
        "read": "Lesen: Kontakte, Belege, Bankumsätze und Auswertungen",
        "write": "Schreiben: Kontakte, Artikel, Entwürfe, Belege (umkehrbar)",
        "commit": "Festschreiben: abschließen, Zahlungen buchen, stornieren (verbindlich; Sie "
        "bestätigen jede Aktion)",
        "external": "Versenden: E-Mails an Dritte (Sie bestätigen jede Aktion)",
    },
}


class ConsentView(Undisclosed, msgspec.Struct, frozen=True):
    """What the consent page shows.

    :param request: the sealed authorization request (hidden field).
    :param csrf: the CSRF token bound to the consent cookie (hidden field).
    :param offered: the tiers the user may choose (within ``SEVDESK_ALLOW``).
    :param checked: the tiers preselected (those the client asked for).
    :param other_lang_url: the same page in the other language.
    """

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"request", "csrf", "other_lang_url"})

    client_name: str
    client_host: str
    redirect_host: str
    redirect_local: bool
    request: str
    csrf: str
    offered: tuple[Tier, ...]
    checked: frozenset[Tier]
    other_lang_url: str
    error: str | None = None


def consent_page(view: ConsentView, lang: Lang) -> bytes:
    """:returns: the consent page."""
    t = TEXT[lang]
    client = _shown(view.client_name)
    host = _shown(view.client_host)
    back = t["back"].format(redirect=f"<strong>{_shown(view.redirect_host)}</strong>")
    parts = [
        f"<h1>{t['title']}</h1>",
        f'<p><a href="{e(view.other_lang_url)}" hreflang="{other_lang(lang)}">{t["other"]}</a></p>',
        f"<p>{t['asks'].format(client=f'<strong>{client}</strong>', host=host)}"
        f"</p><p>{back}{' ' + t['local'] if view.redirect_local else ''}</p>",
    ]
    if view.error is not None:
        parts.append(f'<p class="error" role="alert">{e(view.error)}</p>')
    parts += [
        '<form method="post" action="/authorize">',
        f'<input type="hidden" name="request" value="{e(view.request)}">',
        f'<input type="hidden" name="csrf" value="{e(view.csrf)}">',
        f'<input type="hidden" name="lang" value="{lang}">',
        token_field(t["token"], t["token_help"]),
        f"<fieldset><legend>{t['tiers'].format(client=client)}</legend>",
        *(_tier_box(tier, tier in view.checked, t) for tier in view.offered),
        "</fieldset>",
        '<div class="actions">',
        f'<button class="primary" type="submit" name="decision" value="allow">{t["allow"]}'
        "</button>",
        f'<button class="secondary" type="submit" name="decision" value="deny" formnovalidate>'
        f"{t['deny']}</button></div></form>",
    ]
    return _page(lang, t["title"], parts)


def error_page(message: str, lang: Lang) -> bytes:
    """:returns: the page for a request that cannot be answered by a redirect (O02)."""
    t = TEXT[lang]
    parts = [
        f"<h1>{t['error_title']}</h1>",
        f'<p class="error" role="alert">{_shown(message)}</p>',
        f"<p>{t['error_next']}</p>",
    ]
    return _page(lang, t["error_title"], parts)


def _tier_box(tier: Tier, checked: bool, t: dict[str, str]) -> str:
    name = str(tier)
    if tier is Tier.READ:  # reads underlie every write's preview: always part of a grant
        return f'<label><input type="checkbox" checked disabled> {t[name]}</label>'
    mark = " checked" if checked else ""
    return f'<label><input type="checkbox" name="tier_{name}" value="on"{mark}> {t[name]}</label>'


def _page(lang: Lang, title: str, parts: list[str]) -> bytes:
    return document(lang, title, "\n".join(parts))


def _shown(text: str) -> str:
    """:returns: client text for the page: hidden characters visible, then HTML-escaped."""
    return e(visible(text))
