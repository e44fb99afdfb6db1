"""The language of a page: German or English.

A page is in the language its ``lang`` query or form field names; else in the first of German
and English the browser's ``Accept-Language`` prefers (by its weights); else in the configured
default (``SEVDESK_LANGUAGE``, handed in once at start-up by the command line,
:func:`set_default_lang`). Every page links to itself in the other language
(``page.switch_link``) and keeps the language on its links and forms (:func:`with_lang`).
"""

from __future__ import annotations

import threading
from typing import Final, Literal
from urllib.parse import quote

from sevdesk_mcp.http.messages import Headers

Lang = Literal["de", "en"]
LANG_FIELD: Final = "lang"
_LOCK = threading.Lock()
_DEFAULT: list[Lang] = ["en"]
MAX_TAGS: Final = 16


def set_default_lang(lang: Lang) -> None:
    """Make ``lang`` the language of pages whose request names none and whose browser prefers
    neither German nor English (the command line hands ``config.language`` in at start-up)."""
    with _LOCK:
        _DEFAULT[0] = lang


def default_lang() -> Lang:
    """:returns: the configured default language of the pages (English unless set)."""
    with _LOCK:
        return _DEFAULT[0]


def as_asked(asked: str | None) -> Lang | None:
    """:returns: ``de`` or ``en`` if ``asked`` (a ``lang`` field) names one, else ``None``."""
    if asked == "de":
        return "de"
    if asked == "en":
        return "en"
    return None


def preferred(accept_language: str | None) -> Lang | None:
    """:returns: German or English, whichever ``Accept-Language`` weights higher (the first
    on a tie), or ``None`` if it names neither."""
    best: tuple[float, Lang] | None = None
    for part in (accept_language or "").split(",")[:MAX_TAGS]:
        tag, _, weight = part.strip().partition(";")
        lang = as_asked(tag.strip().lower()[:2]) if tag.strip()[2:3] in ("", "-", "_") else None
        quality = _quality(weight)
        if lang is not None and quality > 0 and (best is None or quality > best[0]):
            best = (quality, lang)
    return best[1] if best is not None else None


def _quality(weight: str) -> float:
    """:returns: the weight of ``q=0.8`` (1 without one, 0 for a malformed one)."""
    name, _, value = weight.strip().partition("=")
    if not name:
        return 1.0
    try:
        quality = float(value) if name.strip() == "q" else 0.0
    except ValueError:
        return 0.0
    return quality if 0.0 <= quality <= 1.0 else 0.0


def pick_lang(asked: str | None, accept_language: str | None, default: Lang | None = None) -> Lang:
    """:returns: ``de`` or ``en``: as asked, else as the browser prefers, else ``default``
    (the configured default when not given)."""
    return as_asked(asked) or preferred(accept_language) or default or default_lang()


def lang_of(headers: Headers, asked: str | None = None) -> Lang:
    """:returns: the language of a request: ``asked`` (a ``lang`` field) if it names one, else
    from its ``Accept-Language``, else the configured default."""
    return pick_lang(asked, headers.get("accept-language"))


def other_lang(lang: Lang) -> Lang:
    """:returns: the other language (for the link that switches)."""
    return "en" if lang == "de" else "de"


def with_lang(path: str, lang: Lang) -> str:
    """:returns: ``path`` (of this site, with or without a query) with ``lang=`` set to
    ``lang`` (an earlier ``lang`` parameter replaced)."""
    base, _, query = path.partition("?")
    kept = [p for p in query.split("&") if p and not p.startswith(f"{LANG_FIELD}=")]
    return f"{base}?{'&'.join([*kept, f'{LANG_FIELD}={quote(lang)}'])}"
