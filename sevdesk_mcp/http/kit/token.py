"""The sevDesk API token a person pastes into a page (sign-in, consent): its field and its check.

Only a token of sevDesk's own shape (32 hex digits) is registered with the redactor, before
anything can fail with it (registering whatever a visitor types would let anyone mask any word
of every answer); then sevDesk is asked who it belongs to (``GET /SevClient``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from sevdesk_mcp.errors import AuthenticationError, UpstreamError
from sevdesk_mcp.http.kit.lang import Lang
from sevdesk_mcp.safety.redact import REDACTOR, Secret

FIELD: Final = "sevdesk_token"
SEVDESK_TOKEN: Final = re.compile(r"[0-9A-Fa-f]{32}")  # sevDesk: 32 hex digits
BAD_TOKEN: Final[dict[Lang, str]] = {
    "en": "That is not a sevDesk API token (32 letters and digits). Copy it again from sevDesk.",
    "de": "Das ist kein sevDesk-API-Token (32 Buchstaben und Ziffern). Kopieren Sie ihn erneut "
    "aus sevDesk.",
}
TOKEN_REFUSED: Final[dict[Lang, str]] = {
    "en": "sevDesk refused this token. Check that it is your current API token.",
    "de": "sevDesk hat diesen Token abgelehnt. Prüfen Sie, ob es Ihr aktueller API-Token ist.",
}
UNREACHABLE: Final[dict[Lang, str]] = {
    "en": "sevDesk could not be asked about this token just now. Try again in a minute.",
    "de": "sevDesk war gerade nicht erreichbar, um den Token zu prüfen. Versuchen Sie es in "
    "einer Minute erneut.",
}
T = TypeVar("T")


def token_field(label: str, help_text: str) -> str:
    """:returns: the labelled password field of the token and its help (both texts trusted)."""
    return (
        f'<label for="token">{label}</label>'
        f'<input type="password" id="token" name="{FIELD}" required autocomplete="off" '
        'spellcheck="false" aria-describedby="token-help">'
        f'<p class="help" id="token-help">{help_text}</p>'
    )


async def checked_token(
    identify: Callable[[Secret], Awaitable[T]], token: str, lang: Lang
) -> tuple[T | None, str]:
    """:returns: who ``token`` belongs to, and ``""``; or ``None`` and why not, in ``lang``."""
    if not SEVDESK_TOKEN.fullmatch(token):
        return None, BAD_TOKEN[lang]
    REDACTOR.add(token)
    try:
        return await identify(Secret(token)), ""
    except AuthenticationError:
        return None, TOKEN_REFUSED[lang]
    except UpstreamError:
        return None, UNREACHABLE[lang]
