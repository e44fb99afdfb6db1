"""A session as one process sees it (:class:`Session`, :class:`Presence`), the store protocol,
and the limits every store keeps (see the package docstring)."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Final, Protocol

import anyio
from anyio.abc import TaskStatus

from sevdesk_mcp.errors import INVALID_PARAMS, HttpError, ProtocolError
from sevdesk_mcp.http.auth import oauth_account
from sevdesk_mcp.http.sessions.session_table import REFUSE, Cap
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.envelope import Handshake
from sevdesk_mcp.mcp.pending import ID_PREFIX, PendingRequests, Send
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
ALL_BUSY: Final = (
    "This sign-in holds {cap} sessions, all busy; end sessions you no longer use with DELETE "
    "/mcp, or wait for a running request to finish."
)
SERVER_FULL: Final = (
    "The server holds {cap} sessions, all busy, the most it may; try again later, and end "
    "sessions you no longer use with DELETE /mcp."
)


def all_busy(cap: int) -> HttpError:
    """:returns: the 429 for a principal whose sessions are all busy at the cap."""
    return HttpError(429, ALL_BUSY.format(cap=cap), headers=(("retry-after", "10"),))


def server_full(cap: int) -> HttpError:
    """:returns: the 503 for a server whose sessions are all busy at its cap."""
    return HttpError(503, SERVER_FULL.format(cap=cap), headers=(("retry-after", "60"),))


def refused(cap: Cap, caps: tuple[int, int, int]) -> HttpError:
    """:returns: the refusal of a new session at ``cap`` whose sessions are all busy: its
    :data:`~sevdesk_mcp.http.sessions.session_table.REFUSE` status (``caps`` in the table's
    order)."""
    if REFUSE[cap] == 503:
        return server_full(caps[2])
    return all_busy(caps[0])


def updated(uri: str) -> JsonObject:
    """:returns: the ``notifications/resources/updated`` message of ``uri``."""
    params: JsonObject = {"uri": uri}
    return {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": params}


class Presence:
    """What of a session lives in this process: the server's requests waiting for the client's
    answers, the client's requests running here, and the wake-up of a GET stream held here.

    :param prefix: the prefix of the ids of the server's requests (unique per instance when
        several instances serve one session).
    """

    __slots__ = ("_wake", "_woken", "active", "ended", "inflight", "pending", "stream")

    def __init__(self, prefix: str = ID_PREFIX) -> None:
        self.pending = PendingRequests(prefix)
        self.inflight: dict[RequestId, anyio.CancelScope] | None = None
        self.active = 0  # requests and GET streams of the session running here
        self.ended = False
        self.stream = 0  # the generation of the GET stream; a new one ends the older
        self._wake: anyio.Event | None = None
        self._woken = False

    @property
    def idle(self) -> bool:
        """:returns: whether nothing of the session runs or waits here."""
        return self.active == 0 and len(self.pending) == 0

    @contextmanager
    def running(self, request_id: RequestId) -> Iterator[anyio.CancelScope]:
        """Run a request in a cancel scope that ``notifications/cancelled`` and the end of the
        session cancel (the caller's block runs inside it)."""
        scope = anyio.CancelScope()
        if self.inflight is None:
            self.inflight = {}
        self.inflight[request_id] = scope
        try:
            with scope:
                yield scope
        finally:
            if self.inflight.get(request_id) is scope:
                del self.inflight[request_id]

    def cancel(self, request_id: object) -> None:
        """Cancel the request ``request_id`` if it runs here."""
        if self.inflight is not None and jsonrpc.valid_id(request_id):
            scope = self.inflight.get(request_id)
            if scope is not None:
                scope.cancel()

    def wake(self) -> None:
        """Wake the GET stream (a new event, a newer stream, or the end)."""
        self._woken = True
        if self._wake is not None:
            self._wake.set()
            self._wake = None

    async def changed(self, timeout_s: float = float("inf")) -> None:
        """Wait until :meth:`wake` is called (or was, since the last wait), or ``timeout_s``."""
        if not self._woken:
            if self._wake is None:
                self._wake = anyio.Event()
            with anyio.move_on_after(timeout_s):
                await self._wake.wait()
        self._woken = False

    def end(self) -> None:
        """Waiting requests fail, running ones are cancelled, the stream ends."""
        self.ended = True
        self.pending.close(ENDED)
        for scope in (self.inflight or {}).values():
            scope.cancel()
        self.wake()


class Session:
    """One 2025-era client's session as this process sees it.

    The record (principal, handshake, log level, subscriptions) is the store's; :attr:`here`
    is what runs in this process. The async methods are those a shared store routes between
    instances; this class serves them in this process.
    """

    __slots__ = (
        "_events",
        "_next_event",
        "busy_until",
        "delivered",
        "handshake",
        "here",
        "id",
        "last_seen",
        "log_level",
        "principal",
        "subscribed",
    )

    def __init__(
        self, session_id: str, principal: str, now: float, here: Presence | None = None
    ) -> None:
        self.id = session_id
        self.principal = principal
        self.handshake: Handshake | None = None  # set once initialize succeeded
        self.log_level: LogLevel | None = None
        self.subscribed: set[str] | None = None
        self.here = here if here is not None else Presence()
        self.last_seen = now
        self.busy_until = 0.0  # until when ``active`` counts (session_table, Rule 1)
        self.delivered = 0  # the last event id a GET stream sent
        self._events: deque[tuple[int, bytes]] | None = None
        self._next_event = 1

    @property
    def ended(self) -> bool:
        """:returns: whether this process saw the session end."""
        return self.here.ended

    @property
    def active(self) -> int:
        """:returns: how many requests and GET streams of the session run here."""
        return self.here.active

    @property
    def can_request(self) -> bool:
        """:returns: whether the server may still send the client requests in this session."""
        return not self.here.pending.closed

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

    async def request(
        self, send: Send, method: str, params: JsonObject, timeout_s: float
    ) -> JsonObject:
        """Send the client a request with ``send`` and wait for its answer (:meth:`deliver`).

        :raises PeerRequestError: on an error answer, the end of the session, or the timeout.
        :raises StateUnavailableError: if a shared store cannot route the answer.
        """
        return await self.here.pending.request(send, method, params, timeout_s)

    async def deliver(self, response: jsonrpc.Response) -> bool:
        """Hand a client's answer to the call waiting for it.

        :returns: whether a call waited for it.
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        return self.here.pending.deliver(response)

    async def cancel(self, request_id: object) -> None:
        """Cancel the running request ``request_id`` (``notifications/cancelled``).

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        self.here.cancel(request_id)

    @asynccontextmanager
    async def running(self, request_id: RequestId) -> AsyncIterator[anyio.CancelScope]:
        """Run a request of the session: busy, and cancellable by ``notifications/cancelled``.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        async with self.holding():
            with self.here.running(request_id) as scope:
                yield scope

    @asynccontextmanager
    async def holding(self) -> AsyncIterator[None]:
        """Count the session as running here (a request or a GET stream); a store's session
        also renews its use and busy lease, so it is not evicted meanwhile (``session_table``).

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        self.here.active += 1
        try:
            yield
        finally:
            self.here.active -= 1

    async def publish(self, message: JsonObject) -> None:
        """Queue a message for the GET stream (kept for replay, the oldest dropped first).

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        if self._events is None:
            self._events = deque(maxlen=REPLAY_EVENTS)
        self._events.append((self._next_event, jsonrpc.encode(message)))
        self._next_event += 1
        self.here.wake()

    async def open_stream(self) -> int:
        """Start a GET stream; an older one ends.

        :returns: the new stream's generation (:meth:`streaming`).
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        self.here.stream += 1
        self.here.wake()
        return self.here.stream

    async def streaming(self, generation: int) -> bool:
        """:returns: whether the GET stream ``generation`` may go on (the session lives and no
        newer stream started).

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        return not self.here.ended and self.here.stream == generation

    async def events_after(self, event_id: int) -> list[tuple[int, bytes]]:
        """:returns: the kept events after ``event_id``, oldest first.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        return [event for event in self._events or () if event[0] > event_id]

    async def sent(self, event_id: int) -> None:
        """Remember that a GET stream sent the events up to ``event_id``.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        self.delivered = max(self.delivered, event_id)

    async def last_sent(self) -> int:
        """:returns: the last event a GET stream of the session sent.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        return self.delivered

    async def changed(self) -> None:
        """Wait for a new event, a newer stream or the end of the session."""
        await self.here.changed()

    def end(self) -> None:
        """End the session here: waiting requests fail, running ones are cancelled, the stream
        ends."""
        self.here.end()


class SessionStore(Protocol):
    """Where sessions live (one process, or Redis shared by several instances)."""

    async def create(self, principal: str) -> Session:
        """:returns: a new session of ``principal`` (its handshake is saved by the caller).

        :raises HttpError: 429 when the principal's sessions are all busy at the cap, 503 when
            the server holds as many sessions as it may.
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def get(self, session_id: str, principal: str) -> Session | None:
        """:returns: the live session ``session_id`` of ``principal``, touched; ``None`` if it
        never existed, ended, expired or belongs to another principal.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def save(self, session: Session) -> None:
        """Keep the session's handshake, log level and subscriptions, and count it as used.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def end(self, session_id: str, principal: str) -> bool:
        """End a session of ``principal`` (on every instance).

        :returns: whether there was one to end.
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def resource_updated(self, uri: str) -> int:
        """Tell every session subscribed to ``uri``, on its GET stream.

        :returns: how many sessions were told.
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def count(self) -> int:
        """:returns: how many live sessions the store holds.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Run the store's background work until cancelled (``await task_group.start(
        store.serve)``): a shared store's routing between instances."""
        ...


def account_of(principal: str) -> str:
    """:returns: the sevDesk account a principal acts for (an OAuth principal's account; any
    other principal is its own account, as bearer mode serves one)."""
    return oauth_account(principal) or principal
