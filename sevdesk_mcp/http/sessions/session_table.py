"""The rules of an MCP session store as data, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: ``BUSY[running][within lease]`` is whether a session is busy: requests or GET streams
of it run (``active > 0``) and the busy lease of the last one to start has not run out
(:func:`busy`; a start sets the lease to :data:`BUSY_LEASE_S` from then, :func:`lease_until`).
A count left behind by a request that never finished (an instance that died mid-request, a
leak in this process) stops protecting the session after the lease. One rule for both
backends.

Rule 2: a session expires once unused for the idle time (:func:`expired`); the start and the
end of a request or GET stream are uses. Busy does not defer expiry: every request and GET
stream ends by the request deadline, far below the idle time.

Rule 3: a new session counts against :data:`CAPS` in this order (the principal's sessions, its
account's, the server's). ``CREATE[at cap][idle one]``: below a cap there is room; at a cap the
least recently used session of that cap that is not busy is ended (:func:`victim`), or, if
every one is busy, the new session is refused with :data:`REFUSE` of that cap (429, 429, 503).
Expired sessions are gone before the caps are counted.

Rule 4: ``END[same principal]``: only the principal of a session ends it (``DELETE``); for
another it is unknown, as one that never existed.

:class:`~sevdesk_mcp.http.sessions.memory.MemorySessionStore` applies these functions under
the event loop; the Redis create script decides inside Redis for atomicity and is handed the
caps in the table's order and Rule 1 as flags (:func:`create_args`, :func:`busy_flags`), and
the touch script the lease (:func:`lease_ms`); ``tests/shared/test_mcp_session_table_rows.py``
runs every row through both.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Final, Literal

BUSY_LEASE_S: Final = 15 * 60.0

Cap = Literal["principal", "account", "server"]
CAPS: Final[tuple[Cap, ...]] = ("principal", "account", "server")
REFUSE: Final[Mapping[Cap, int]] = {"principal": 429, "account": 429, "server": 503}

BUSY: Final[Mapping[bool, Mapping[bool, bool]]] = {
    # running (active > 0): {within the busy lease: busy}
    True: {True: True, False: False},
    False: {True: False, False: False},
}
BUSY_ROWS: Final[tuple[tuple[bool, bool], ...]] = (
    (True, True),
    (True, False),
    (False, True),
    (False, False),
)


class Create(enum.Enum):
    """What a cap does to a new session."""

    ROOM = "room"
    EVICT = "evict"
    REFUSE = "refuse"


CREATE: Final[Mapping[bool, Mapping[bool, Create]]] = {
    # at the cap: {an idle (not busy) session in it: what happens}
    False: {True: Create.ROOM, False: Create.ROOM},
    True: {True: Create.EVICT, False: Create.REFUSE},
}

END: Final[Mapping[bool, bool]] = {True: True, False: False}  # same principal: ended


def busy(active: int, busy_until: float, now: float) -> bool:
    """:returns: whether a session with ``active`` running and a lease until ``busy_until``
    is busy at ``now`` (Rule 1)."""
    return BUSY[active > 0][now < busy_until]


def lease_until(now: float) -> float:
    """:returns: until when a request or GET stream starting at ``now`` keeps its session
    busy."""
    return now + BUSY_LEASE_S


def lease_ms() -> int:
    """:returns: the busy lease in ms, as the Redis touch script is handed it."""
    return round(BUSY_LEASE_S * 1000)


def expired(last_seen: float, now: float, idle_s: float) -> bool:
    """:returns: whether a session last used at ``last_seen`` is expired at ``now`` (Rule 2;
    as Redis's key expiry: at the idle time exactly)."""
    return now - last_seen >= idle_s


def limits(per_principal: int, account_factor: int, max_sessions: int) -> tuple[int, int, int]:
    """:returns: the caps in the order of :data:`CAPS`."""
    return per_principal, per_principal * account_factor, max_sessions


def create(count: int, cap: int, *, idle_one: bool) -> Create:
    """:returns: what the cap ``cap`` does to a new session when it counts ``count`` (Rule
    3)."""
    return CREATE[count >= cap][idle_one]


def victim(sessions: Iterable[tuple[str, bool]]) -> str | None:
    """:returns: the first session of ``sessions`` (id and busy, least recently used first)
    that is not busy, or ``None``."""
    return next((sid for sid, is_busy in sessions if not is_busy), None)


def ends(*, same_principal: bool) -> bool:
    """:returns: whether a ``DELETE`` ends the session (Rule 4)."""
    return END[same_principal]


def busy_flags() -> list[str]:
    """:returns: for each of :data:`BUSY_ROWS`, ``1`` if busy, else ``0``: what the Redis
    create script compares against."""
    return ["1" if BUSY[running][within] else "0" for running, within in BUSY_ROWS]


def create_args(caps: tuple[int, int, int]) -> list[int]:
    """:returns: the caps in the order of :data:`CAPS`, as the Redis create script checks
    them; it answers the index (1-based) of the cap that refused."""
    return list(caps)
