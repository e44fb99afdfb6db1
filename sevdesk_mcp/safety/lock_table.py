"""The rules of a record lock as data, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: ``ACQUIRE[owner][lifetime]`` is what taking a lock does, by whose the lock is
(``free``: nobody's; ``genuine``: another holder's, or a value this instance has not found
forged; ``forged``: the very value this instance found failing its check) and the lifetime it
has left (``none``: PTTL -1, never given by the server; ``lease``: within one lease; ``longer``:
more than a lease, never given either): take it, or wait and poll. A forged value within a
lease may be a genuine lock tagged under a secret this instance does not know yet (a rotation
in progress), so it is waited for like any other; one the server never gives is taken over.
In this process a lock is only ever ``free`` or ``genuine`` (nothing forges it).

Rule 2: a write sends only while no lock of it was lost (:func:`sends`; shared locks: checked
right before ``execute``).

Rule 3: ``CLEAR[began][known]`` is which executing marks releasing deletes: once a holder
began sending (``began``), its own marks when the outcome is known (``settled``), else none
(the next holder is told); before that, the marks it found when the earlier attempts were
reported (``acknowledged``), else none.

The Redis script that takes a lock decides inside Redis for atomicity; it is handed the
``forged`` row of Rule 1 as flags (:func:`takeover_flags`), and
``tests/shared/test_lock_table_rows.py`` runs every row through both backends.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final, Literal

Owner = Literal["free", "genuine", "forged"]
Lifetime = Literal["none", "lease", "longer"]
LIFETIMES: Final[tuple[Lifetime, ...]] = ("none", "lease", "longer")
Clear = Literal["mine", "found", "none"]


class Take(enum.Enum):
    """What taking a lock does."""

    TAKE = "take"
    WAIT = "wait"


_T, _W = Take.TAKE, Take.WAIT
ACQUIRE: Final[Mapping[Owner, Mapping[Lifetime, Take]]] = {
    # owner: {none, lease, longer}
    "free": {"none": _T, "lease": _T, "longer": _T},
    "genuine": {"none": _W, "lease": _W, "longer": _W},
    "forged": {"none": _T, "lease": _W, "longer": _T},
}

CLEAR: Final[Mapping[bool, Mapping[bool, Clear]]] = {
    # began sending: {outcome known (settled) / earlier ones reported (acknowledged): marks}
    True: {True: "mine", False: "none"},
    False: {True: "found", False: "none"},
}


def lifetime(pttl_ms: int, lease_ms: int) -> Lifetime:
    """:returns: the class of a lock's remaining lifetime (``pttl_ms`` as Redis's ``PTTL``
    answers: -1 without one), as the taking script classifies it."""
    if pttl_ms < 0:
        return "none"
    return "lease" if pttl_ms <= lease_ms else "longer"


def acquire(owner: Owner, life: Lifetime) -> Take:
    """:returns: whether a lock of ``owner`` with ``life`` left is taken or waited for."""
    return ACQUIRE[owner][life]


def takeover_flags() -> list[str]:
    """:returns: for each of :data:`LIFETIMES`, ``1`` if a forged lock is taken over, else
    ``0``: what the Redis taking script compares against."""
    return ["1" if acquire("forged", life) is Take.TAKE else "0" for life in LIFETIMES]


def sends(lost: int) -> bool:
    """:returns: whether a write may send while ``lost`` of its locks were lost."""
    return lost == 0


def clearing(*, began: bool, settled: bool, acknowledged: bool) -> Clear:
    """:returns: which executing marks releasing deletes (Rule 3)."""
    return CLEAR[began][settled if began else acknowledged]
