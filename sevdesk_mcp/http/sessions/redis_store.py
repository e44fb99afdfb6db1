"""Sessions of 2025-era clients shared by instances on Redis (``SEVDESK_HTTP_STATE_URL``).

The rules of ``session_table``, as in
:class:`~sevdesk_mcp.http.sessions.memory.MemorySessionStore` (ids of 256 random bits, a
session of another principal is unknown, idle expiry, caps per principal, per account and
overall with the least recently used idle session ended for a new one), with the
record in Redis so that any instance serves any request of a session. A request or GET stream
renews its session when it starts and when it ends, and none outlives the request deadline
(far below the idle time), so a session does not expire under a running request. What runs
belongs to the instance it runs on: a tool call waiting for the client's answer, a running
request, a GET stream; what must reach it from another instance travels over Redis pub/sub
(``redis_routing``).

Keys (``<ns>`` is the namespace; ``<sid>`` the SHA-256 digest of the session id, which never
appears in Redis in the clear; every key expires):

- ``<ns>:session:<sid>``: the record, sealed (AES-GCM under the server secret, the key name as
  associated data): principal, negotiated version, client capabilities, log level, resource
  subscriptions. Expires after the idle time; every use renews it.
- ``<ns>:session-meta:<sid>``: a hash, nothing secret: ``owner`` and ``account`` (the names of
  the two sorted sets below the session is in), ``active`` (requests and GET streams running)
  and ``busy_until`` (Redis time in ms until which ``active`` counts: a count left behind by an
  instance that died stops protecting the session from eviction after the table's
  ``BUSY_LEASE_S``; ``session_table`` Rule 1, the same rule as in one process),
  ``seq`` (the last event id of the GET stream), ``sent`` (the last event a GET stream sent),
  ``gen`` (the generation of the GET stream: a newer stream ends the older, on any instance).
  Expires with the record.
- ``<ns>:session-events:<sid>``: a sorted set, the GET stream's replay buffer: score the event
  id, member the sealed JSON-RPC message; the last
  :data:`~sevdesk_mcp.http.sessions.REPLAY_EVENTS` are kept, so ``Last-Event-ID`` works on any
  instance. Expires with the record.
- ``<ns>:session-waits:<sid>``: a hash, the server's requests waiting for the client's answers:
  request id (``srv-<instance>-<n>``) to the name of the instance that waits, tagged for
  ``<key>#<request id>`` (a name that fails the check is no wait: the answer goes nowhere,
  is refused as one nobody waits for, and no instance hears it). An answer is handed over by
  one Lua script that publishes it to the waiting instance's channel while the field is still
  the one read and deletes the field only if that instance heard it, so it is accepted once, on
  whichever instance it arrives; one nobody heard stays for the client to send again
  (:mod:`~sevdesk_mcp.http.sessions.redis_routing`). Expires with the record.
- ``<ns>:sessions:all``, ``<ns>:sessions-of:<digest of the principal>``,
  ``<ns>:sessions-of-account:<digest of the account>``: sorted sets of session digests by last
  use (Redis time, ms), for the caps; a member idle longer than the idle time is dropped when
  the set is next used; each set expires after the idle time without use.
- ``<ns>:session-subscribers:<digest of the resource URI>``: a set of session digests
  subscribed to that resource (``resource_updated``); members whose session is gone are dropped
  when it is used. Expires after the idle time without a new subscription.

Who a session belongs to is decided by the sealed record alone (a session of another
principal is unknown), and what a GET stream replays comes only from sealed events, so no
plain value lets someone who can write to Redis but lacks the server secret act as another
principal or read another's answers. The one plain value that routes something, the waiting
instance's name, is tagged (:meth:`~sevdesk_mcp.shared.seal.Seal.tag`). The meta fields are
not: ``owner`` and ``account`` only name the sets an ended session is removed from (a changed
one leaves an entry behind until it idles out, or removes another's entry, which deleting it
would as well); ``active`` and ``busy_until`` only protect a session from eviction at the caps
(a throttle, as deleting sessions is); ``seq``, ``sent`` and ``gen`` only number the events and
streams of that one session (a changed one makes its own stream resend, skip or end, never
reach another session); Lua counts them up, which a tag would forbid. The sets of the caps
and the subscribers only count or name sessions, each checked against its own keys.

The channels between instances and what travels on them are ``redis_routing``'s; the Lua
scripts, ``redis_scripts``. The composition root starts :meth:`RedisSessionStore.serve` (the
routing's listening task): ``await task_group.start(store.serve)``.

Every Redis failure leaves as :class:`~sevdesk_mcp.errors.StateUnavailableError` (503 on the
MCP route). The stores' scripts name keys they derive from their arguments (one Redis server,
not a cluster).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any, Final

import anyio
from anyio.abc import TaskStatus

from sevdesk_mcp.errors import HttpError, StateUnavailableError
from sevdesk_mcp.http.sessions import session_table as table
from sevdesk_mcp.http.sessions.redis_routing import SessionRouter
from sevdesk_mcp.http.sessions.redis_scripts import (
    APPEND,
    CREATE,
    OPEN_STREAM,
    REMOVE,
    SENT,
    TOUCH,
)
from sevdesk_mcp.http.sessions.redis_session import SharedSession
from sevdesk_mcp.http.sessions.session import (
    ACCOUNT_FACTOR,
    ID_BYTES,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_PRINCIPAL,
    REPLAY_EVENTS,
    SESSION_IDLE_S,
    Session,
    account_of,
    refused,
    updated,
)
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.envelope import Handshake
from sevdesk_mcp.mcp.pending import Send
from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.shared.keys import digest
from sevdesk_mcp.shared.redis import SharedState, guard
from sevdesk_mcp.shared.seal import DAMAGED

NOT_ROUTING: Final = (
    "the shared state (Redis at SEVDESK_HTTP_STATE_URL) does not deliver the client's answers "
    "to this instance right now; the server cannot ask the client, try again shortly"
)

ENDED_SESSION: Final = (
    "Session not found: it ended or expired. Send initialize again without Mcp-Session-Id to "
    "start a new session."
)


class RedisSessionStore:
    """Sessions in Redis, shared by every instance with the same state and namespace.

    :param state: the shared state (``sevdesk_mcp.shared``).
    :param idle_s: seconds a session lives without use.
    """

    def __init__(
        self,
        state: SharedState,
        *,
        idle_s: float = SESSION_IDLE_S,
        max_sessions: int = MAX_SESSIONS,
        per_principal: int = MAX_SESSIONS_PER_PRINCIPAL,
    ) -> None:
        self._state = state
        self._idle_ms = max(1, round(idle_s * 1000))
        self._caps = table.limits(per_principal, ACCOUNT_FACTOR, max_sessions)
        self.router = SessionRouter(state)
        self._scripts = {
            name: state.script(source)
            for name, source in (
                ("create", CREATE),
                ("touch", TOUCH),
                ("remove", REMOVE),
                ("append", APPEND),
                ("sent", SENT),
                ("open_stream", OPEN_STREAM),
            )
        }

    # -- keys -----------------------------------------------------------------------------

    def _key(self, kind: str, session_digest: str) -> str:
        return self._state.keys.plain(kind, session_digest)

    def _session_keys(self, session_digest: str, principal: str) -> list[str]:
        """:returns: all, owner, account, record, meta, events, waits (the scripts' order)."""
        keys = self._state.keys
        return [
            keys.plain("sessions", "all"),
            keys.key("sessions-of", principal),
            keys.key("sessions-of-account", account_of(principal)),
            *(self._key(k, session_digest) for k in ("session", "session-meta")),
            *(self._key(k, session_digest) for k in ("session-events", "session-waits")),
        ]

    async def _run(self, name: str, keys: list[str], args: list[Any]) -> Any:  # noqa: ANN401
        """:returns: what the script ``name`` returns.

        :raises StateUnavailableError: if Redis cannot be reached or refused it.
        """
        async with guard():
            return await self._scripts[name](keys=keys, args=args)

    # -- the store ------------------------------------------------------------------------

    @property
    def instance(self) -> str:
        """:returns: this instance's name (in the ids of the requests it sends the client)."""
        return self.router.instance

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """See :meth:`~sevdesk_mcp.http.sessions.session.SessionStore.serve`: listen on this
        instance's channels (:meth:`SessionRouter.serve`)."""
        await self.router.serve(task_status=task_status)

    async def create(self, principal: str) -> SharedSession:
        """See :meth:`~sevdesk_mcp.http.sessions.SessionStore.create`.

        :raises HttpError: 429 or 503 at the caps.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        session = SharedSession(self, secrets.token_urlsafe(ID_BYTES), principal)
        keys = self._session_keys(session.hashed, principal)
        args = [self._idle_ms, *table.create_args(self._caps), session.hashed]
        args += [self._sealed(keys[3], session), f"{self._state.keys.namespace}:"]
        outcome = await self._run("create", keys[:5], [*args, *table.busy_flags()])
        if outcome[0] != 0:
            raise refused(table.CAPS[int(outcome[0]) - 1], self._caps)
        for evicted in outcome[1:]:
            await self.router.ended(evicted.decode("ascii"))
        return session

    async def get(self, session_id: str, principal: str) -> SharedSession | None:
        """See :meth:`~sevdesk_mcp.http.sessions.SessionStore.get`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        session_digest = digest(session_id)
        key = self._key("session", session_digest)
        async with guard():
            raw = await self._state.client.get(key)
        if raw is None:
            return None
        record = json.loads(self._state.seal.open(key, _raw(raw)))
        if record.get("p") != principal or not await self._touch(session_digest, principal):
            return None
        return self._restored(session_id, record)

    async def save(self, session: Session) -> None:
        """See :meth:`~sevdesk_mcp.http.sessions.SessionStore.save`; the subscription index
        follows the record.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        assert isinstance(session, SharedSession)  # this store's sessions only
        keys = self._session_keys(session.hashed, session.principal)
        sealed = self._sealed(keys[3], session)
        if not await self._touch(session.hashed, session.principal, sealed):
            return
        now = frozenset(session.subscribed or ())
        async with guard(), self._state.client.pipeline(transaction=False) as pipe:
            for uri in now - session.loaded:
                pipe.sadd(self._subscribers(uri), session.hashed)
                pipe.pexpire(self._subscribers(uri), self._idle_ms)
            for uri in session.loaded - now:
                pipe.srem(self._subscribers(uri), session.hashed)
            await pipe.execute()
        session.loaded = now

    async def end(self, session_id: str, principal: str) -> bool:
        """See :meth:`~sevdesk_mcp.http.sessions.SessionStore.end`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        session = await self._read(session_id)
        if session is None or not table.ends(same_principal=session.get("p") == principal):
            return False
        session_digest = digest(session_id)
        all_key = self._state.keys.plain("sessions", "all")
        await self._run("remove", [all_key], [session_digest, f"{self._state.keys.namespace}:"])
        await self.router.ended(session_digest)
        return True

    async def resource_updated(self, uri: str) -> int:
        """See :meth:`~sevdesk_mcp.http.sessions.SessionStore.resource_updated`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        index = self._subscribers(uri)
        async with guard():
            members = await self._state.client.smembers(index)
        told = 0
        for member in sorted(members):
            session_digest = _raw(member).decode("ascii")
            if await self.publish(session_digest, updated(uri)):
                told += 1
            else:
                async with guard():
                    await self._state.client.srem(index, member)
        return told

    async def count(self) -> int:
        """See :meth:`~sevdesk_mcp.http.sessions.SessionStore.count`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        all_key = self._state.keys.plain("sessions", "all")
        async with guard():
            members = await self._state.client.zrange(all_key, 0, -1)
            if not members:
                return 0
            alive = await self._state.client.exists(
                *(self._key("session", _raw(m).decode("ascii")) for m in members)
            )
        return int(alive)

    # -- what runs here -------------------------------------------------------------------

    @asynccontextmanager
    async def holding(self, session: SharedSession) -> AsyncIterator[None]:
        """Count ``session`` busy here and in Redis (see :meth:`Session.holding`).

        :raises StateUnavailableError: if Redis cannot be reached at the start.
        :raises HttpError: 404 if the session ended since it was found (nothing runs on it).
        """
        if not await self._touch(session.hashed, session.principal, busy=1):
            raise HttpError(404, ENDED_SESSION)
        here = session.here = self.router.hold(session.hashed, session.here)
        try:
            yield
        finally:
            with anyio.CancelScope(shield=True), suppress(StateUnavailableError):
                await self._touch(session.hashed, session.principal, busy=-1)
            self.router.release(session.hashed, here)

    async def request(
        self, session: SharedSession, send: Send, method: str, params: JsonObject, timeout_s: float
    ) -> JsonObject:
        """Send the client a request and wait for its answer, wherever it arrives.

        :raises PeerRequestError: on an error answer, the end of the session, or the timeout.
        :raises StateUnavailableError: if this instance does not receive answers right now.
        """
        if not self.router.listening:
            raise StateUnavailableError(NOT_ROUTING)
        waits = self._key("session-waits", session.hashed)
        sent: list[str] = []

        async def registered(message: JsonObject) -> None:
            sent.append(str(message["id"]))
            async with guard(), self._state.client.pipeline(transaction=False) as pipe:
                pipe.hset(waits, sent[0], self._wait(waits, sent[0]))
                pipe.pexpire(waits, self._idle_ms)
                await pipe.execute()
            await send(message)

        try:
            return await session.here.pending.request(registered, method, params, timeout_s)
        finally:
            if sent:
                with anyio.CancelScope(shield=True), suppress(StateUnavailableError):
                    async with guard():
                        await self._state.client.hdel(waits, sent[0])

    async def deliver(self, session_digest: str, response: jsonrpc.Response) -> bool:
        """Hand ``response`` to the instance that waits; the wait is taken only once that
        instance heard it (``SessionRouter.answer``).

        :returns: whether a call waited for it.
        :raises StateUnavailableError: if Redis cannot be reached, or the waiting instance does
            not listen right now (the wait stays; the client may send the answer again).
        """
        waits, request_id = self._key("session-waits", session_digest), str(response.id)
        async with guard():
            owner = await self._state.client.hget(waits, request_id)
        stored = None if owner is None else _raw(owner)
        instance = self._state.seal.untag(f"{waits}#{request_id}", stored)
        if instance is None or stored is None:  # none, or one this server did not register
            return False
        return await self.router.answer(
            instance.decode("ascii"), session_digest, response, (waits, stored)
        )

    async def cancel(self, session_digest: str, request_id: object) -> None:
        """Cancel the request ``request_id`` of the session on whichever instance runs it.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        await self.router.cancel(session_digest, request_id)

    async def publish(self, session_digest: str, message: JsonObject) -> bool:
        """Append ``message`` to the session's replay buffer and wake its GET stream.

        :returns: whether the session lives.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        keys = [self._key(k, session_digest) for k in ("session", "session-meta")]
        events = self._key("session-events", session_digest)
        sealed = self._state.seal.seal(events, jsonrpc.encode(message))
        if not await self._run("append", [*keys, events], [REPLAY_EVENTS, sealed]):
            return False
        await self.router.wake(session_digest)
        return True

    async def open_stream(self, session_digest: str) -> int:
        """:returns: the generation of a new GET stream (an older one, anywhere, ends).

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        keys = [self._key("session", session_digest), self._key("session-meta", session_digest)]
        generation = await self._run("open_stream", keys, [])  # 0: the session ended meanwhile
        await self.router.wake(session_digest)
        return int(generation)

    async def streaming(self, session_digest: str, generation: int) -> bool:
        """:returns: whether the session lives and ``generation`` is its newest GET stream.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        async with guard(), self._state.client.pipeline(transaction=False) as pipe:
            pipe.exists(self._key("session", session_digest))
            pipe.hget(self._key("session-meta", session_digest), "gen")
            alive, current = await pipe.execute()
        return bool(alive) and current is not None and int(current) == generation

    async def events_after(self, session_digest: str, event_id: int) -> list[tuple[int, bytes]]:
        """:returns: the kept events after ``event_id``, oldest first.

        :raises StateUnavailableError: if Redis cannot be reached or an event does not open.
        """
        key = self._key("session-events", session_digest)
        async with guard():
            found: list[Any] = await self._state.client.zrangebyscore(
                key, f"({event_id}", "+inf", withscores=True
            )
        return [(int(score), self._state.seal.open(key, _raw(member))) for member, score in found]

    async def sent(self, session_digest: str, event_id: int) -> None:
        """Remember that a GET stream sent the events up to ``event_id``.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        await self._run("sent", [self._key("session-meta", session_digest)], [event_id])

    async def last_sent(self, session_digest: str) -> int:
        """:returns: the last event a GET stream of the session sent.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        async with guard():
            value = await self._state.client.hget(self._key("session-meta", session_digest), "sent")
        return int(value or 0)

    # -- records --------------------------------------------------------------------------

    def _sealed(self, key: str, session: Session) -> bytes:
        handshake = session.handshake
        record = {
            "p": session.principal,
            "v": None if handshake is None else handshake.version,
            "c": None if handshake is None else handshake.capabilities,
            "l": session.log_level,
            "s": sorted(session.subscribed or ()),
        }
        return self._state.seal.seal(key, json.dumps(record).encode("utf-8"))

    def _restored(self, session_id: str, record: dict[str, Any]) -> SharedSession:
        session = SharedSession(self, session_id, str(record["p"]))
        if record.get("v") is not None:
            session.handshake = Handshake(str(record["v"]), dict(record.get("c") or {}))
        session.log_level = record.get("l")
        subscribed = record.get("s") or []
        session.subscribed = set(subscribed) if subscribed else None
        session.loaded = frozenset(subscribed)
        return session

    async def _read(self, session_id: str) -> dict[str, Any] | None:
        """:raises StateUnavailableError: if Redis cannot be reached."""
        key = self._key("session", digest(session_id))
        async with guard():
            raw = await self._state.client.get(key)
        return None if raw is None else dict(json.loads(self._state.seal.open(key, _raw(raw))))

    async def _touch(
        self, session_digest: str, principal: str, sealed: bytes = b"", *, busy: int = 0
    ) -> bool:
        """Count the session as used now (and save ``sealed`` as its record, if given).

        :returns: whether the session lives.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        keys = self._session_keys(session_digest, principal)
        args = [self._idle_ms, session_digest, sealed, busy, table.lease_ms()]
        return bool(await self._run("touch", keys, args))

    def _wait(self, waits: str, request_id: str) -> bytes:
        """:returns: this instance's name, tagged as the one waiting for ``request_id``."""
        return self._state.seal.tag(f"{waits}#{request_id}", self.router.instance.encode("ascii"))

    def _subscribers(self, uri: str) -> str:
        return self._state.keys.key("session-subscribers", uri)


def _raw(value: object) -> bytes:
    """:returns: ``value``, a value read from Redis (bytes: responses are not decoded).

    :raises StateUnavailableError: if it is not bytes.
    """
    if not isinstance(value, bytes):
        raise StateUnavailableError(DAMAGED)
    return value
