"""Sessions in one process's memory (the default, and the contract's reference)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

import anyio
from anyio.abc import TaskStatus

from sevdesk_mcp.http.sessions.session import (
    ACCOUNT_FACTOR,
    ID_BYTES,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_PRINCIPAL,
    SESSION_IDLE_S,
    Session,
    account_of,
    all_busy,
    server_full,
    updated,
)


class MemorySessionStore:
    """Sessions in this process's memory.

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
        self._max = max_sessions
        self._per_principal = per_principal
        self._clock = clock
        self._sessions: dict[str, Session] = {}  # least recently used first
        self._owned: dict[str, dict[str, Session]] = {}

    def __len__(self) -> int:
        return len(self._sessions)

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
        owned = self._owned.get(principal, {})
        if len(owned) >= self._per_principal:
            self._evict(owned)
        accounts = self._of_account(principal)
        if len(accounts) >= self._per_principal * ACCOUNT_FACTOR:
            self._evict(accounts)  # many grants of one account cannot crowd out others
        if len(self._sessions) >= self._max:
            self._evict_any()
        session = Session(secrets.token_urlsafe(ID_BYTES), principal, now)
        self._sessions[session.id] = session
        self._owned.setdefault(principal, {})[session.id] = session
        return session

    async def get(self, session_id: str, principal: str) -> Session | None:
        """See :meth:`SessionStore.get`."""
        session = self._sessions.get(session_id)
        if session is None or session.principal != principal:
            return None
        now = self._clock()
        if self._expired(session, now):
            self._remove(session)
            return None
        self._touch(session, now)
        return session

    async def save(self, session: Session) -> None:
        """See :meth:`SessionStore.save` (the session is this store's own object)."""
        if self._sessions.get(session.id) is session:
            self._touch(session, self._clock())

    async def end(self, session_id: str, principal: str) -> bool:
        """See :meth:`SessionStore.end`."""
        session = self._sessions.get(session_id)
        if session is None or session.principal != principal:
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

    def _touch(self, session: Session, now: float) -> None:
        session.last_seen = now
        del self._sessions[session.id]  # to the end: most recently used
        self._sessions[session.id] = session

    def _expired(self, session: Session, now: float) -> bool:
        return session.active == 0 and now - session.last_seen > self._idle_s

    def _sweep(self, now: float) -> None:
        """End expired sessions, oldest first, up to the first one still fresh."""
        for session in list(self._sessions.values()):
            if self._expired(session, now):
                self._remove(session)
            elif session.active == 0:
                return

    def _of_account(self, principal: str) -> dict[str, Session]:
        """:returns: the sessions of every principal of ``principal``'s sevDesk account (an
        OAuth principal is ``oauth:<account>:<grant>``; any other is its own account)."""
        account = account_of(principal)
        return {
            sid: session
            for owner, sessions in self._owned.items()
            if account_of(owner) == account
            for sid, session in sessions.items()
        }

    def _evict_any(self) -> None:
        """End the least recently used idle session of the server.

        :raises HttpError: 503 if every session is busy.
        """
        idle = next((s for s in self._sessions.values() if s.active == 0), None)  # LRU first
        if idle is None:
            raise server_full(self._max)
        self._remove(idle)

    def _evict(self, owned: dict[str, Session]) -> None:
        """End the least recently used idle session of ``owned``.

        :raises HttpError: 429 if every one is busy.
        """
        idle = [s for s in owned.values() if s.active == 0]
        if not idle:
            raise all_busy(self._per_principal)
        self._remove(min(idle, key=lambda s: s.last_seen))

    def _remove(self, session: Session) -> None:
        self._sessions.pop(session.id, None)
        owned = self._owned.get(session.principal)
        if owned is not None:
            owned.pop(session.id, None)
            if not owned:
                del self._owned[session.principal]
        session.end()
