"""Sessions of 2025-era clients over Streamable HTTP (``Mcp-Session-Id``), in this process.

A 2025-era ``initialize`` over HTTP creates a session (``SEVDESK_HTTP_SESSIONS=on``, the
default): its id is 256 random bits (``secrets.token_urlsafe(32)``, 43 visible ASCII
characters), and it belongs to the principal that initialized it (the bearer identity or the
OAuth grant). What it remembers: the handshake (version, client capabilities), the log level,
the server's requests waiting for the client's answers (``mcp.pending``, the routing stdio
uses), the client's requests in flight (for ``notifications/cancelled``), its resource
subscriptions and the events of its GET stream, kept in a bounded replay buffer for
``Last-Event-ID``.

Rules of the store:

- a session id presented by another principal is unknown (404), exactly like an id that never
  existed, ended or expired;
- a session unused for :data:`SESSION_IDLE_S` expires (not while a request of it runs);
- at most :data:`MAX_SESSIONS_PER_PRINCIPAL` per principal: the least recently used idle one
  of that principal is ended for a new one (429 if every one is busy); at most
  :data:`MAX_SESSIONS` in all (503 once the expired ones are gone);
- ending a session (``DELETE /mcp``, expiry, eviction) fails the server's waiting requests (the
  call waiting for an approval learns it was not given), cancels its running requests and closes
  its GET stream.

:class:`SessionStore` is the seam: this module's :class:`MemorySessionStore` keeps sessions in
one process. A store shared by several instances (the scale-out issue) implements the same
protocol, and must also bring a client's answer to the instance that holds the waiting call.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final, Protocol

import anyio

from sevdesk_mcp.errors import INVALID_PARAMS, HttpError, ProtocolError
from sevdesk_mcp.http.auth import oauth_account
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.envelope import Handshake
from sevdesk_mcp.mcp.pending import PendingRequests
from sevdesk_mcp.mcp.types import JsonObject, LogLevel, RequestId

SESSION_HEADER: Final = "mcp-session-id"
SESSION_IDLE_S: Final = 30 * 60.0
MAX_SESSIONS: Final = 10_000
MAX_SESSIONS_PER_PRINCIPAL: Final = 100
REPLAY_EVENTS: Final = 64
MAX_SUBSCRIPTIONS: Final = 64
ACCOUNT_FACTOR: Final = 4  # sessions of one account: 4x those of one grant
ID_BYTES: Final = 32
ENDED: Final = "the session ended"


class Session:
    """One 2025-era client's session. Its fields are the store's and the MCP route's."""

    __slots__ = (
        "_events",
        "_next_event",
        "_wake",
        "active",
        "delivered",
        "ended",
        "handshake",
        "id",
        "inflight",
        "last_seen",
        "log_level",
        "pending",
        "principal",
        "stream",
        "subscribed",
    )

    def __init__(self, session_id: str, principal: str, now: float) -> None:
        self.id = session_id
        self.principal = principal
        self.handshake: Handshake | None = None  # set once initialize succeeded
        self.log_level: LogLevel | None = None
        self.pending = PendingRequests()
        self.inflight: dict[RequestId, anyio.CancelScope] | None = None
        self.subscribed: set[str] | None = None
        self.active = 0
        self.last_seen = now
        self.ended = False
        self.stream = 0  # the generation of the GET stream; a new one ends the older
        self.delivered = 0  # the last event id a GET stream sent
        self._events: deque[tuple[int, bytes]] | None = None
        self._next_event = 1
        self._wake: anyio.Event | None = None

    def subscribe(self, uri: str) -> None:
        """Subscribe to updates of ``uri``.

        :raises ProtocolError: -32602 past :data:`MAX_SUBSCRIPTIONS`.
        """
        if self.subscribed is None:
            self.subscribed = set()
        if uri not in self.subscribed and len(self.subscribed) >= MAX_SUBSCRIPTIONS:
            raise ProtocolError(
                INVALID_PARAMS,
                f"This session holds {MAX_SUBSCRIPTIONS} resource subscriptions, the most it "
                "may; unsubscribe from one first",
            )
        self.subscribed.add(uri)

    def unsubscribe(self, uri: str) -> None:
        """End the subscription to ``uri``, if there is one."""
        if self.subscribed is not None:
            self.subscribed.discard(uri)

    def publish(self, message: JsonObject) -> None:
        """Queue a message for the GET stream (kept for replay, the oldest dropped first)."""
        if self._events is None:
            self._events = deque(maxlen=REPLAY_EVENTS)
        self._events.append((self._next_event, jsonrpc.encode(message)))
        self._next_event += 1
        self.wake()

    def events_after(self, event_id: int) -> list[tuple[int, bytes]]:
        """:returns: the kept events after ``event_id``, oldest first."""
        return [event for event in self._events or () if event[0] > event_id]

    def wake(self) -> None:
        """Wake the GET stream (a new event, a newer stream, or the end)."""
        if self._wake is not None:
            self._wake.set()
            self._wake = None

    async def changed(self) -> None:
        """Wait until :meth:`wake` is called."""
        if self._wake is None:
            self._wake = anyio.Event()
        await self._wake.wait()

    @contextmanager
    def running(self, request_id: RequestId) -> Iterator[anyio.CancelScope]:
        """Count a request as running, cancellable by ``notifications/cancelled``."""
        scope = anyio.CancelScope()
        if self.inflight is None:
            self.inflight = {}
        self.inflight[request_id] = scope
        self.active += 1
        try:
            yield scope
        finally:
            self.active -= 1
            if self.inflight.get(request_id) is scope:
                del self.inflight[request_id]

    def cancel(self, request_id: object) -> None:
        """Cancel the running request ``request_id`` (``notifications/cancelled``)."""
        if self.inflight is not None and jsonrpc.valid_id(request_id):
            scope = self.inflight.get(request_id)
            if scope is not None:
                scope.cancel()

    def end(self) -> None:
        """End the session: waiting requests fail, running ones are cancelled, the stream ends."""
        self.ended = True
        self.pending.close(ENDED)
        for scope in (self.inflight or {}).values():
            scope.cancel()
        self.wake()


class SessionStore(Protocol):
    """Where sessions live (one process now; a shared store for several instances later)."""

    def create(self, principal: str) -> Session:
        """:returns: a new session of ``principal`` (its handshake is set by the caller).

        :raises HttpError: 429 when the principal's sessions are all busy at the cap, 503 when
            the server holds as many sessions as it may.
        """
        ...

    def get(self, session_id: str, principal: str) -> Session | None:
        """:returns: the live session ``session_id`` of ``principal``, touched; ``None`` if it
        never existed, ended, expired or belongs to another principal."""
        ...

    def end(self, session_id: str, principal: str) -> bool:
        """End a session of ``principal``.

        :returns: whether there was one to end.
        """
        ...

    def resource_updated(self, uri: str) -> int:
        """Tell every session subscribed to ``uri``, on its GET stream.

        :returns: how many sessions were told.
        """
        ...


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

    def create(self, principal: str) -> Session:
        """See :meth:`SessionStore.create`.

        :raises HttpError: 429 or 503 at the caps.
        """
        now = self._clock()
        self._sweep(now)
        owned = self._owned.get(principal, {})
        if len(owned) >= self._per_principal:
            self._evict(owned, now)
        accounts = self._of_account(principal)
        if len(accounts) >= self._per_principal * ACCOUNT_FACTOR:
            self._evict(accounts, now)  # many grants of one account cannot crowd out others
        if len(self._sessions) >= self._max:
            self._evict_any()
        session = Session(secrets.token_urlsafe(ID_BYTES), principal, now)
        self._sessions[session.id] = session
        self._owned.setdefault(principal, {})[session.id] = session
        return session

    def get(self, session_id: str, principal: str) -> Session | None:
        """See :meth:`SessionStore.get`."""
        session = self._sessions.get(session_id)
        if session is None or session.principal != principal:
            return None
        now = self._clock()
        if self._expired(session, now):
            self._remove(session)
            return None
        session.last_seen = now
        del self._sessions[session_id]  # to the end: most recently used
        self._sessions[session_id] = session
        return session

    def end(self, session_id: str, principal: str) -> bool:
        """See :meth:`SessionStore.end`."""
        session = self._sessions.get(session_id)
        if session is None or session.principal != principal:
            return False
        self._remove(session)
        return True

    def resource_updated(self, uri: str) -> int:
        """See :meth:`SessionStore.resource_updated`."""
        told = 0
        for session in self._sessions.values():
            if session.subscribed and uri in session.subscribed:
                params: JsonObject = {"uri": uri}
                session.publish(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/resources/updated",
                        "params": params,
                    }
                )
                told += 1
        return told

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
            raise HttpError(
                503,
                f"The server holds {self._max} sessions, all busy, the most it may; try again "
                "later, and end sessions you no longer use with DELETE /mcp.",
                headers=(("retry-after", "60"),),
            )
        self._remove(idle)

    def _evict(self, owned: dict[str, Session], now: float) -> None:
        idle = [s for s in owned.values() if s.active == 0]
        if not idle:
            raise HttpError(
                429,
                f"This sign-in holds {self._per_principal} sessions, all busy; end sessions you "
                "no longer use with DELETE /mcp, or wait for a running request to finish.",
                headers=(("retry-after", "10"),),
            )
        self._remove(min(idle, key=lambda s: s.last_seen))

    def _remove(self, session: Session) -> None:
        self._sessions.pop(session.id, None)
        owned = self._owned.get(session.principal)
        if owned is not None:
            owned.pop(session.id, None)
            if not owned:
                del self._owned[session.principal]
        session.end()


def account_of(principal: str) -> str:
    """:returns: the sevDesk account a principal acts for (an OAuth principal's account; any
    other principal is its own account, as bearer mode serves one)."""
    return oauth_account(principal) or principal
