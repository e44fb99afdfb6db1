"""The one Content-Security-Policy of the pages, and the headers of every page answer.

Both listeners send the same policy: nothing by default, the one stylesheet by its hash, no
framing, no ``<base>``. It differs in two directives only, each where the other listener cannot
have it:

- the main listener (OAuth mode: consent, sign-in, inbox, upload, download) allows scripts from
  its own origin (``script-src 'self'``: the upload page's ``/web/upload.js``, never inline);
- the loopback listener of the local approval page serves no script, so it allows none, and
  keeps forms on its own origin (``form-action 'self'``). The main listener cannot: the consent
  form's answer redirects to the client, and browsers apply ``form-action`` to that redirect.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.http.kit.style import STYLE_HASH
from sevdesk_mcp.http.messages import HeaderList

_FIRST: Final = ("default-src 'none'", f"style-src 'sha256-{STYLE_HASH}'")
_LAST: Final = ("frame-ancestors 'none'", "base-uri 'none'")
PUBLIC_CSP: Final = "; ".join((*_FIRST, "script-src 'self'", *_LAST))
"""The CSP of every answer of the main listener in OAuth mode with the web pages."""
CONSENT_CSP: Final = "; ".join((*_FIRST, *_LAST))
"""The CSP of the main listener in OAuth mode without the web pages: the consent page serves
no script, so none is allowed."""
LOCAL_CSP: Final = "; ".join((*_FIRST, "form-action 'self'", *_LAST))
"""The CSP of every answer of the local approval page's listener."""

LOCAL_HEADERS: Final = (
    ("Content-Security-Policy", LOCAL_CSP),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)
"""The headers of every answer of the local approval page's listener, refusals included."""

_REPLACED: Final = ("content-security-policy", "referrer-policy")


def public_headers(base: HeaderList, *, scripts: bool = True) -> HeaderList:
    """:returns: the main listener's headers of every answer (``hardening.security_headers``)
    for OAuth mode, where pages are served: :data:`PUBLIC_CSP` instead of the API's stricter
    one, and ``Referrer-Policy: same-origin`` instead of ``no-referrer`` (under ``no-referrer``
    browsers send ``Origin: null`` with a form, which the same-origin check must refuse;
    cross-origin navigations still carry no referrer).

    :param scripts: whether pages with a script are served (the web pages); without them the
        policy allows no script (:data:`CONSENT_CSP`).
    """
    kept = [header for header in base if header[0] not in _REPLACED]
    policy = PUBLIC_CSP if scripts else CONSENT_CSP
    return [*kept, ("content-security-policy", policy), ("referrer-policy", "same-origin")]
