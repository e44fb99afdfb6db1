"""The rule of sign-in attempts as data, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: a try counts while it is within the window (:func:`within`: younger than the window;
one exactly as old as the window no longer counts).

Rule 2: ``ALLOW[room]``: a client may try once more, and the try is counted, only while fewer
of its tries count than the limit (:func:`has_room`); a try refused is not counted, so waiting
out the window always ends the refusal.

Counting and checking is one atomic step in a backend (this process: under a lock; Redis: one
script on the server's clock, handed the limit and the window). :class:`~sevdesk_mcp.http.web.
attempts.SignInAttempts` is the one store over both; ``tests/shared/test_attempt_table_rows.py``
runs every row through both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

ALLOW: Final[Mapping[bool, bool]] = {
    # room under the limit: allowed (and counted)
    True: True,
    False: False,
}


def within(at: float, now: float, window_s: float) -> bool:
    """:returns: whether a try at ``at`` still counts at ``now``."""
    return at > now - window_s


def has_room(counted: int, limit: int) -> bool:
    """:returns: whether a client with ``counted`` tries in the window may try once more."""
    return counted < limit


def allows(counted: int, limit: int) -> bool:
    """:returns: whether the try is allowed and counted (Rule 2)."""
    return ALLOW[has_room(counted, limit)]
