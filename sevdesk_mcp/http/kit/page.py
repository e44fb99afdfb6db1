"""The page shell: the one HTML escaper, the frame of every page, and how a page is answered.

A page is ``content`` (HTML its page module built, every value from elsewhere passed through
:func:`e`) inside :func:`document`: the language in ``<html lang>``, the one stylesheet inline
(allowed by its hash), an optional bar above the content and an optional script from this
origin (never inline).
"""

from __future__ import annotations

import datetime as dt
import html
from typing import Final

from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit.lang import Lang, other_lang, with_lang
from sevdesk_mcp.http.kit.style import STYLE
from sevdesk_mcp.safety import locale

HTML_TYPE: Final = "text/html; charset=utf-8"
Headers = tuple[tuple[str, str], ...]
SWITCH: Final[dict[Lang, str]] = {"de": "English", "en": "Deutsch"}
"""The words of the switch link (by the page's language), in the language it switches to."""


def e(text: str) -> str:
    """:returns: ``text`` escaped for HTML text and attribute values."""
    return html.escape(text, quote=True)


def document(
    lang: Lang, title: str, content: str, *, bar: str = "", script: str | None = None
) -> bytes:
    """:returns: a whole page: ``content`` in ``<main>``, ``title`` in ``<title>``.

    :param bar: HTML before ``<main>`` (the web pages' skip link and header).
    :param script: the path of a script of this origin to load (``defer``).
    """
    tag = f'<script src="{e(script)}" defer></script>' if script else ""
    head = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="same-origin"><title>{e(title)}</title>'
        f"<style>{STYLE}</style>{tag}</head><body>{bar}"
    )
    return f'{head}<main id="main">{content}</main></body></html>'.encode()


def switch_link(path: str, lang: Lang) -> str:
    """:returns: the link to ``path`` (of this site) in the other language than ``lang``,
    labelled and marked in that language (``lang``, ``hreflang``)."""
    other = other_lang(lang)
    return (
        f'<a class="lang" href="{e(with_lang(path, other))}" hreflang="{other}" lang="{other}">'
        f"{SWITCH[lang]}</a>"
    )


def when(epoch: float, lang: Lang) -> str:
    """:returns: the moment ``epoch`` as a person reads it, in Europe/Berlin with the zone
    named (``01.12.2026, 15:05 Uhr MEZ``, ``1 Dec 2026, 15:05 CET``)."""
    return locale.moment(dt.datetime.fromtimestamp(epoch, dt.UTC), lang)


async def send_html(exchange: Exchange, status: int, body: bytes, headers: Headers = ()) -> None:
    """Answer an HTML page."""
    await exchange.respond(status, [("content-type", HTML_TYPE), *headers], body)


async def see_other(exchange: Exchange, location: str, headers: Headers = ()) -> None:
    """Answer 303 to ``location`` (a path of this site, or a checked redirect URI)."""
    await exchange.respond(303, [("location", location), *headers])
