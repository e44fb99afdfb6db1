"""The rules of uploads and deliveries as data, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: a new record, and a file put into a slot, must fit every limit it counts against, in
the order of :data:`LIMITS`: the account's records, the grant's records, the account's bytes.
A limit refuses when what is held plus what the new one adds exceeds it (a record adds one
record, a file its size). :func:`admission` and :func:`filling` are the rows a backend checks,
in order; :func:`refused` checks them (this process, under the store's lock); the Redis scripts
are handed the same rows as arguments and check them in Lua, in that order.

Rule 2: ``SERVE[action][kind][filled]`` is whether a live record of the person asking serves
an action: a slot is shown and filled while it is an empty upload, a delivery is peeked at and
downloaded (used up, once). A record of anyone else, and an expired one, serves nothing.

Rule 3: a tool call reads an upload only for the grant that asked for it (``READ``): a record
that is no upload of that grant is not theirs, an empty one is not filled yet.

:class:`~sevdesk_mcp.safety.transfers.Transfers` takes every decision from here over either
backend; ``tests/shared/test_transfer_table_rows.py`` runs every row through both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, Literal, NamedTuple

if TYPE_CHECKING:
    from sevdesk_mcp.safety.transfers import Holder, Kind, Limits, Record

Limit = Literal["account", "grant", "bytes"]
LIMITS: Final[tuple[Limit, ...]] = ("account", "grant", "bytes")
Action = Literal["slot", "fill", "peek", "download"]
Read = Literal["ok", "not_yours", "not_filled"]


class Row(NamedTuple):
    """One limit a backend checks: refused when held + ``adds`` > ``limit``."""

    what: Limit
    adds: int
    limit: int


SERVE: Final[Mapping[Action, Mapping[Kind, Mapping[bool, bool]]]] = {
    # action: {kind: {filled: served}}
    "slot": {"upload": {False: True, True: False}, "download": {False: False, True: False}},
    "fill": {"upload": {False: True, True: False}, "download": {False: False, True: False}},
    "peek": {"upload": {False: False, True: False}, "download": {False: True, True: True}},
    "download": {"upload": {False: False, True: False}, "download": {False: True, True: True}},
}

READ: Final[Mapping[bool, Mapping[bool, Read]]] = {
    # an upload of the grant: {filled: answer}
    True: {True: "ok", False: "not_filled"},
    False: {True: "not_yours", False: "not_yours"},
}


def admission(limits: Limits, size: int) -> list[Row]:
    """:returns: the rows a new record of ``size`` bytes checks, in the order of
    :data:`LIMITS`."""
    caps = {
        "account": (1, limits.max_records_per_account),
        "grant": (1, limits.max_records_per_grant),
        "bytes": (size, limits.max_bytes_per_account),
    }
    return [Row(what, *caps[what]) for what in LIMITS]


def filling(limits: Limits, size: int) -> list[Row]:
    """:returns: the rows a file of ``size`` bytes put into a slot checks (the slot is counted
    already)."""
    return [row for row in admission(limits, size) if row.what == "bytes"]


def refused(held: Mapping[Limit, int], rows: Sequence[Row]) -> tuple[Limit, int] | None:
    """:returns: the first row ``held`` exceeds and what it held, or ``None`` if all fit."""
    for row in rows:
        if held[row.what] + row.adds > row.limit:
            return row.what, held[row.what]
    return None


def live(expires: float, now: float) -> bool:
    """:returns: whether a record expiring at ``expires`` still exists at ``now``."""
    return expires > now


def serves(action: Action, record: Record | None, holder: Holder, now: float) -> bool:
    """:returns: whether ``record`` serves ``action`` for ``holder`` at ``now``."""
    if record is None or not live(record.expires, now) or not holder.holds(record):
        return False
    return SERVE[action][record.kind][record.filled]


def read(record: Record | None, principal: str, now: float) -> Read:
    """:returns: what a tool call of the grant ``principal`` reading ``record`` is told."""
    if record is None or not live(record.expires, now):
        return "not_yours"
    ours = record.kind == "upload" and record.owner.principal == principal
    return READ[ours][record.filled]


def flat(rows: Sequence[Row]) -> list[str | int]:
    """:returns: ``rows`` as a script's arguments: name, adds, limit for each."""
    return [part for row in rows for part in row]
