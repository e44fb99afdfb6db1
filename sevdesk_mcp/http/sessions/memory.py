"""Sessions in one process's memory (the default, and the contract's reference)."""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager

import anyio
from anyio.abc import TaskStatus

from sevdesk_mcp.http.sessions import session_table as table
from sevdesk_mcp.http.sessions.session import (
    ACCOUNT_FACTOR,
    ID_BYTES,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_PRINCIPAL,
    SESSION_IDLE_S,
    Session,
    account_of,
    refused,
    updated,
)


class LocalSession(Session):
    """A session of :class:`MemorySessionStore`: its start and end of a request or GET stream
    are uses, and the start renews its busy lease (``session_table``, Rules 1 and 2)."""

    __slots__ = ("_store",)

    def __init__(self, store: MemorySessionStore, session_id: str, principal: str) -> None:
        super().__init__(session_id, principal, store.now())
        self._store = store

    @asynccontextmanager
    async def holding(self) -> AsyncIterator[None]:
        """See :meth:`Session.holding`; busy for the table's lease at most."""
        self._store.hold(self)
        try:
            async with super().holding():
                yield
        finally:
            self._store.used(self)


class MemorySessionStore:
    """Sessions in this process's memory; every decision is ``session_table``'s, taken under
    the event loop (nothing awaits between a fetch and its store).

    :param clock: monotonic seconds; injectable for tests.
    """

    def __init__(
        self,
        *,
        idle_s: float = SESSION_IDLE_S,
        max_sessions: int = MAX_SESSIONS,
        per_principal: int = MAX_SESSIONS_PER_PRINCIPAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._idle_s = idle_s
        self._caps = table.limits(per_principal, ACCOUNT_FACTOR, max_sessions)
        self._clock = clock
        self._sessions: dict[str, Session] = {}  # least recently used first
        self._owned: dict[str, dict[str, Session]] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def now(self) -> float:
        """:returns: the store's clock."""
        return self._clock()

    async def create(self, principal: str) -> Session:
        """See :meth:`SessionStore.create`.

        :raises HttpError: 429 or 503 at the caps.
        """
        return self.create_now(principal)

    def create_now(self, principal: str) -> Session:
        """:meth:`create`, without waiting (this store never does; the bench uses it).

        :raises HttpError: 429 or 503 at the caps.
        """
        now = self._clock()
        self._sweep(now)
        for cap, limit in zip(table.CAPS, self._caps, strict=True):
            counted = self._count(cap, principal)
            if counted < limit:  # Create.ROOM either way: nobody to look for
                continue
            members = self._members(cap, principal)
            evicted = table.victim((s.id, self._busy(s, now)) for s in members)
            step = table.create(counted, limit, idle_one=evicted is not None)
            if step is table.Create.REFUSE or evicted is None:
                raise refused(cap, self._caps)
            self._remove(self._sessions[evicted])
        session = LocalSession(self, secrets.token_urlsafe(ID_BYTES), principal)
        self._sessions[session.id] = session
        self._owned.setdefault(principal, {})[session.id] = session
        return session

    async def get(self, session_id: str, principal: str) -> Session | None:
        """See :meth:`SessionStore.get`."""
        session = self._sessions.get(session_id)
        if session is None or session.principal != principal:
            return None
        now = self._clock()
        if table.expired(session.last_seen, now, self._idle_s):
            self._remove(session)
            return None
        self._touch(session, now)
        return session

    async def save(self, session: Session) -> None:
        """See :meth:`SessionStore.save` (the session is this store's own object)."""
        self.used(session)

    async def end(self, session_id: str, principal: str) -> bool:
        """See :meth:`SessionStore.end`."""
        session = self._sessions.get(session_id)
        if session is None or not table.ends(same_principal=session.principal == principal):
            return False
        self._remove(session)
        return True

    async def resource_updated(self, uri: str) -> int:
        """See :meth:`SessionStore.resource_updated`."""
        told = 0
        for session in list(self._sessions.values()):
            if session.subscribed and uri in session.subscribed:
                await session.publish(updated(uri))
                told += 1
        return told

    async def count(self) -> int:
        """See :meth:`SessionStore.count`."""
        self._sweep(self._clock())
        return len(self._sessions)

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """See :meth:`SessionStore.serve`: nothing to route in one process."""
        task_status.started()
        await anyio.sleep_forever()

    def hold(self, session: Session) -> None:
        """A request or GET stream of ``session`` starts: a use, and the busy lease renewed."""
        now = self._clock()
        session.busy_until = table.lease_until(now)
        if self._sessions.get(session.id) is session:
            self._touch(session, now)

    def used(self, session: Session) -> None:
        """``session`` was used now (if it is still this store's)."""
        if self._sessions.get(session.id) is session:
            self._touch(session, self._clock())

    def _touch(self, session: Session, now: float) -> None:
        session.last_seen = now
        del self._sessions[session.id]  # to the end: most recently used
        self._sessions[session.id] = session

    @staticmethod
    def _busy(session: Session, now: float) -> bool:
        return table.busy(session.active, session.busy_until, now)

    def _sweep(self, now: float) -> None:
        """End expired sessions, oldest first, up to the first one still fresh."""
        for session in list(self._sessions.values()):
            if not table.expired(session.last_seen, now, self._idle_s):
                return
            self._remove(session)

    def _count(self, cap: table.Cap, principal: str) -> int:
        """:returns: how many sessions ``cap`` counts for a new session of ``principal``."""
        if cap == "server":
            return len(self._sessions)
        if cap == "principal":
            return len(self._owned.get(principal, {}))
        account = account_of(principal)
        return sum(len(s) for owner, s in self._owned.items() if account_of(owner) == account)

    def _members(self, cap: table.Cap, principal: str) -> Iterator[Session]:
        """:returns: the sessions ``cap`` counts for a new session of ``principal``, least
        recently used first (an OAuth principal is ``oauth:<account>:<grant>``; any other is
        its own account)."""
        if cap == "server":
            return iter(self._sessions.values())
        if cap == "principal":
            return (s for s in self._sessions.values() if s.principal == principal)
        account = account_of(principal)
        return (s for s in self._sessions.values() if account_of(s.principal) == account)

    def _remove(self, session: Session) -> None:
        self._sessions.pop(session.id, None)
        owned = self._owned.get(session.principal)
        if owned is not None:
            owned.pop(session.id, None)
            if not owned:
                del self._owned[session.principal]
        session.end()
