"""The rule of a single-use nonce as data, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: only a non-empty string is looked up at all (:func:`well_formed`); anything else a
client sends in its place is refused unseen.

Rule 2: consuming takes the nonce's stored mark in one atomic step (this process: ``pop``
under the store's lock; Redis: ``GETDEL``), so two consumers at the same moment cannot both
take it. ``ACCEPT[found]`` says what the one who took it answers: only a mark that is the
genuine unused one of a live nonce accepts; a nonce never issued or used already
(``absent``), an expired one, and a mark that fails its check (``forged``: written without the
server secret) are refused, and are gone all the same.

:class:`~sevdesk_mcp.safety.nonces.Nonces` takes the decision from here over either backend;
``tests/shared/test_nonce_table_rows.py`` runs every row through both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

Found = Literal["unused", "absent", "expired", "forged"]

ACCEPT: Final[Mapping[Found, bool]] = {
    "unused": True,
    "absent": False,  # never issued, or used already
    "expired": False,
    "forged": False,  # a mark failing its check (Redis)
}


def well_formed(nonce: object) -> bool:
    """:returns: whether ``nonce`` may be looked up (a non-empty string)."""
    return isinstance(nonce, str) and bool(nonce)


def accepts(found: Found) -> bool:
    """:returns: whether a nonce whose taken mark was ``found`` is accepted."""
    return ACCEPT[found]


def live(expires: float, now: float) -> bool:
    """:returns: whether a nonce expiring at ``expires`` is still usable at ``now`` (this
    process's judgement; Redis lets the key expire)."""
    return expires >= now
