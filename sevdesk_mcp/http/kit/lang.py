"""The language of a page: German or English, as asked, else as the browser prefers."""

from __future__ import annotations

from typing import Literal

from sevdesk_mcp.http.messages import Headers

Lang = Literal["de", "en"]


def pick_lang(asked: str | None, accept_language: str | None) -> Lang:
    """:returns: ``de`` or ``en``: as asked, else as the browser prefers (English otherwise)."""
    if asked in ("de", "en"):
        return "de" if asked == "de" else "en"
    return "de" if (accept_language or "").strip().lower().startswith("de") else "en"


def lang_of(headers: Headers, asked: str | None = None) -> Lang:
    """:returns: the language of a request: ``asked`` (a ``lang`` field) if it names one, else
    from its ``Accept-Language``."""
    return pick_lang(asked, headers.get("accept-language"))


def other_lang(lang: Lang) -> Lang:
    """:returns: the other language (for the link that switches)."""
    return "en" if lang == "de" else "de"
