"""Redirect URIs: which a client may register, and which match.

Redirect URIs are compared as exact strings (RFC 9700 2.1, O01). The only exception is RFC 8252
7.3: a loopback IP literal (``http://127.0.0.1`` or ``http://[::1]``) matches with any port when
everything else is equal, because native clients get a free port from the system each time.
A client may register https URIs, and http URIs to a loopback host; never a fragment or a user.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final
from urllib.parse import urlsplit

MAX_URI_CHARS: Final = 2048
_LOOPBACK_IPS: Final = ("127.0.0.1", "[::1]")


def redirect_matches(registered: Sequence[str], uri: str) -> bool:
    """:returns: whether ``uri`` is one of the ``registered`` redirect URIs (exact, or loopback
    with another port)."""
    if uri in registered:
        return True
    loopback = _without_port(uri)
    return loopback is not None and loopback in map(_without_port, registered)


def _without_port(uri: str) -> str | None:
    """:returns: ``uri`` without its port if it is ``http://`` to a loopback IP literal."""
    if not uri.startswith("http://"):
        return None
    authority, slash, rest = uri[len("http://") :].partition("/")
    host = authority.rpartition(":")[0] if authority.count(":") == 1 or "]:" in authority else ""
    if host not in _LOOPBACK_IPS or "@" in authority:
        return None
    return f"http://{host}{slash}{rest}"


def redirect_uri_allowed(uri: str) -> bool:
    """:returns: whether a client may register ``uri``: https, or http to a loopback host;
    absolute, without fragment or user."""
    if len(uri) > MAX_URI_CHARS:
        return False
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        return False
    if parts.fragment or "#" in uri or parts.username or parts.password or not parts.hostname:
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1", "localhost")
