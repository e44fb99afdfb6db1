"""The rules of an approval as data: what a retry of the tool call, a decision of the human and
a look at the inbox do from each state an approval can be in, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: ``SETTLE[status][same basis]`` is what a retry of the tool call does with the approval
its binding points at (``status`` ``None``: there is none, it expired, or it failed its check):
create one (:attr:`Settle.NEW`), void it and create one for the new basis keeping its call id
(:attr:`Settle.CHANGED`), return it as it is (:attr:`Settle.KEEP`), or use it up, once
(:attr:`Settle.USE`).

Rule 2: ``DECIDE[status]`` is the status a decision leaves (``approved`` or ``declined``), or
``None`` where it is refused: an approval is decided once, while it waits.

Rule 3: an approval is shown (the page, the inbox) and counts against its holder's cap of
waiting approvals while its status is in :data:`WAITING`; a new one is made only while fewer
than the cap wait (:func:`has_room`).

:class:`~sevdesk_mcp.safety.approvals.Approvals` takes every decision from here, over either
backend (memory, or :mod:`~sevdesk_mcp.safety.approvals_redis`). Where Redis decides inside
a script for atomicity, the script is handed the statuses it compares against from this table
(:func:`kept`, :func:`decidable`); ``tests/shared/test_approval_table_rows.py`` runs every row
through both backends.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final, Literal

Status = Literal["pending", "approved", "declined"]
STATUSES: Final[tuple[Status, ...]] = ("pending", "approved", "declined")


class Settle(enum.Enum):
    """What a retry of the tool call does with the approval its binding points at."""

    NEW = "new"  # none: a new approval
    CHANGED = "changed"  # another basis: void, replaced (the call id kept, the changes named)
    KEEP = "pending"  # still waits for the human: returned as it is
    USE = "use"  # decided: used up now, once (its status is the answer)


SETTLE: Final[Mapping[Status | None, Mapping[bool, Settle]]] = {
    # status: {same basis: step, another basis: step}
    None: {True: Settle.NEW, False: Settle.NEW},
    "pending": {True: Settle.KEEP, False: Settle.CHANGED},
    "approved": {True: Settle.USE, False: Settle.CHANGED},
    "declined": {True: Settle.USE, False: Settle.CHANGED},
}

DECIDE: Final[Mapping[Status, Mapping[bool, Status | None]]] = {
    # status: {approved: the status after, declined: the status after}
    "pending": {True: "approved", False: "declined"},
    "approved": {True: None, False: None},
    "declined": {True: None, False: None},
}

WAITING: Final[frozenset[Status]] = frozenset({"pending"})


def settle(status: Status | None, same_basis: bool) -> Settle:
    """:returns: what a retry does with the approval in ``status`` (``None``: none).

    :param same_basis: whether the approval binds the basis the retry prepared.
    """
    return SETTLE[status][same_basis]


def decide(status: Status, *, approved: bool) -> Status | None:
    """:returns: the status a decision leaves, or ``None`` if it is refused (decided once)."""
    return DECIDE[status][approved]


def shown(status: Status) -> bool:
    """:returns: whether an approval in ``status`` is shown and counts as waiting."""
    return status in WAITING


def has_room(waiting: int, cap: int) -> bool:
    """:returns: whether a new approval may be made while ``waiting`` of its holder wait."""
    return waiting < cap


def live(expires: float, now: float) -> bool:
    """:returns: whether an approval expiring at ``expires`` still exists at ``now``."""
    return expires > now


def kept() -> tuple[Status, ...]:
    """:returns: the statuses a retry for the same basis leaves as they are (what the Redis
    consuming script refuses to use up)."""
    return tuple(s for s in STATUSES if settle(s, True) is Settle.KEEP)


def decidable() -> tuple[Status, ...]:
    """:returns: the statuses a decision may be recorded on (what the Redis deciding script
    compares against)."""
    return tuple(s for s in STATUSES if decide(s, approved=True) is not None)
