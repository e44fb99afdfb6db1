"""Small pieces every output DTO shares: links, untrusted text, truncation notes."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.sevdesk.paths import DEFAULT_API_URL

WEB_APP: Final = "https://my.sevdesk.de/#"


def web_link(api_url: str, route: str) -> str | None:
    """:returns: a deep link into the sevDesk web app, or ``None`` when not talking to sevDesk
    itself (demo mode, a fake, a proxy path), where such a link would lead nowhere."""
    return f"{WEB_APP}/{route}" if api_url == DEFAULT_API_URL else None


def omitted_note(shown: int, total: int, noun: str) -> str | None:
    """:returns: a sentence saying how many items were left out, or ``None`` if none were."""
    if total <= shown:
        return None
    return f"{total - shown} more {noun} not shown; narrow the search or raise limit."
