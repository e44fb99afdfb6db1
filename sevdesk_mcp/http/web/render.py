"""The page frame: language, the stylesheet, a header with the account and sign-out, and the
content; every value from elsewhere is HTML-escaped."""

from __future__ import annotations

import html
from typing import Final

from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.oauth.consent_page import HTML_TYPE, Lang
from sevdesk_mcp.http.web.sessions import Session
from sevdesk_mcp.http.web.text import TEXT

Headers = tuple[tuple[str, str], ...]
SCRIPT_TAG: Final = '<script src="/web/upload.js" defer></script>'


def e(text: str) -> str:
    """:returns: ``text`` escaped for HTML text and attribute values."""
    return html.escape(text, quote=True)


def document(
    lang: Lang, title: str, content: str, session: Session | None = None, *, script: bool = False
) -> bytes:
    """:returns: a whole page: ``content`` in the frame, ``title`` in ``<title>``."""
    t = TEXT[lang]
    who = ""
    if session is not None:
        who = (
            f'<a href="/approvals">{t["inbox"]}</a>'
            f'<span class="who">{e(t["signed_in_as"].format(account=session.account_name))}</span>'
            '<form method="post" action="/signout">'
            f'<input type="hidden" name="csrf" value="{e(session.csrf)}">'
            f'<button type="submit" class="link">{t["sign_out"]}</button></form>'
        )
    head = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} · {t['brand']}</title>"
        '<link rel="stylesheet" href="/web/style.css">'
        f"{SCRIPT_TAG if script else ''}</head><body>"
        f'<a class="skip" href="#main">{t["skip"]}</a>'
        f'<header class="top"><nav class="bar" aria-label="{t["brand"]}">'
        f'<a class="brand" href="/approvals">{t["brand"]}</a>{who}</nav></header>'
        f'<main id="main">'
    )
    return (head + content + "</main></body></html>").encode("utf-8")


def message_page(
    lang: Lang, title: str, text: str, session: Session | None = None, *, error: bool = True
) -> bytes:
    """:returns: a page with a title and one message (an error unless ``error`` is false)."""
    kind = "error" if error else "notice"
    role = ' role="alert"' if error else ""
    back = f'<p><a href="/approvals">{TEXT[lang]["back_inbox"]}</a></p>' if session else ""
    content = f'<h1>{e(title)}</h1><p class="{kind}"{role}>{e(text)}</p>{back}'
    return document(lang, title, content, session)


async def send_html(exchange: Exchange, status: int, body: bytes, headers: Headers = ()) -> None:
    """Answer an HTML page."""
    await exchange.respond(status, [("content-type", HTML_TYPE), *headers], body)


async def see_other(exchange: Exchange, location: str, headers: Headers = ()) -> None:
    """Answer 303 to a path of this site."""
    await exchange.respond(303, [("location", location), *headers])
