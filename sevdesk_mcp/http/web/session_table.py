"""The rules of a browser session as data, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: ``ADMIT[opened][live][signed out]`` is whether a request's cookie carries a session:
only a cookie sent once that opens under one of the keys (sealed: not forged, changed or
moved), of a session not expired and not signed out. A cookie that fails to open is treated as
absent, never as an error.

Rule 2: a sign-out is kept while the session it ends could still be used, until its expiry
(:func:`keep_s`); a session expired already needs none. Nothing else of a session is stored.

:class:`~sevdesk_mcp.http.web.sessions.SessionStore` takes every decision from here over
either backend of sign-outs (:class:`~sevdesk_mcp.http.web.sessions.MemorySignOuts`,
:class:`~sevdesk_mcp.http.web.sessions_redis.RedisSignOuts`), which only keep a sign-out for a
time and answer whether it is still there; ``tests/shared/test_web_session_table_rows.py`` runs
every row through both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

ADMIT: Final[Mapping[bool, Mapping[bool, Mapping[bool, bool]]]] = {
    # opened: {live: {signed out: admitted}}
    True: {True: {False: True, True: False}, False: {False: False, True: False}},
    False: {True: {False: False, True: False}, False: {False: False, True: False}},
}


def live(expires: float, now: float) -> bool:
    """:returns: whether a session expiring at ``expires`` may still be used at ``now``."""
    return expires > now


def admits(*, opened: bool, live: bool, signed_out: bool) -> bool:
    """:returns: whether a cookie carries a session (Rule 1)."""
    return ADMIT[opened][live][signed_out]


def keep_s(expires: float, now: float) -> float | None:
    """:returns: how long a sign-out of a session expiring at ``expires`` is kept, or ``None``
    when the session is expired already (Rule 2)."""
    return expires - now if live(expires, now) else None
