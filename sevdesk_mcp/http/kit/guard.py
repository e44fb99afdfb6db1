"""The one same-origin check of a page's POST, and the one comparison of its tokens.

A POST counts as same-origin when ``Origin`` is the page's own origin (never ``null``), or is
absent with ``Sec-Fetch-Site: same-origin``; a ``Sec-Fetch-Site`` other than ``same-origin``
and either header given twice are refused. Cookies, CSRF tokens and MACs are compared in
constant time, and a missing one never matches.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence

from sevdesk_mcp.http.settings import normalize_origin


def same_origin(
    origins: Sequence[str], fetch_sites: Sequence[str], own: str, *, bare: bool = False
) -> bool:
    """:returns: whether a POST with the ``Origin`` headers ``origins`` and the
    ``Sec-Fetch-Site`` headers ``fetch_sites`` comes from a page of the origin ``own``.

    :param bare: whether a POST with neither header passes too (the consent form: it is bound
        by its CSRF token, and OAuth clients' test harnesses post it without either).
    """
    if len(origins) > 1 or len(fetch_sites) > 1:
        return False
    if fetch_sites and fetch_sites[0] != "same-origin":
        return False
    if not origins:
        return bool(fetch_sites) or bare
    return normalize_origin(origins[0]) == own


def tokens_match(expected: str | None, given: str | None) -> bool:
    """:returns: whether ``given`` (from the request) is ``expected``, in constant time;
    ``False`` when either is missing or empty."""
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())
