"""What crosses instances for shared sessions: Redis pub/sub between the instances.

What runs belongs to the instance it runs on: a tool call waiting for the client's answer, a
running request, a GET stream (a :class:`~sevdesk_mcp.http.sessions.session.Presence`,
registered here while something of the session runs on this instance). What must reach it
from another instance is a message on a channel (every message sealed with the channel name as
associated data, so nobody without the server secret can read an answer or forge one):

- ``<ns>:channel:sessions``: every instance listens. ``end`` (a session ended or was evicted:
  its waiting calls fail, its running requests are cancelled, its GET stream closes, wherever
  they are), ``cancel`` (``notifications/cancelled`` for a request of a session, which runs on
  one instance), ``wake`` (a new event for the GET stream, or a newer stream).
- ``<ns>:channel:sessions:<instance>``: one instance listens: the client's answers to the
  requests that instance waits for (the store finds the instance in ``session-waits``).

Why pub/sub and not streams: every message is meant for a call or stream that is live at that
moment and worthless after it (an answer nobody waits for is refused anyway); pub/sub delivers
it at once to the instances listening and keeps nothing, where streams would need a consumer
group, trimming and acknowledgement per instance. What pub/sub does not give is covered where
it matters: an answer is handed over by one script (:data:`HAND_OVER`) that publishes it and
takes the wait out of ``session-waits`` only if the waiting instance heard it (``PUBLISH``
counts the listeners). Nobody heard it while the waiting instance's heartbeat lives
(``<ns>:instance:<instance>``, tagged, renewed every :data:`RECHECK_S` while it listens,
expiring after :data:`ALIVE_S`, longer than any wait; deleted when the instance stops), so
that instance is reconnecting to Redis, say just after an outage: the wait stays, and the
client is told to send the same answer again (503 with ``Retry-After``), so no answer is
consumed and lost. Without a heartbeat the instance is gone with its calls: the answer is
refused with 400 as one nobody waits for. A GET stream re-reads its
session from Redis at least every :data:`RECHECK_S` seconds, so it closes even if an ``end``
was missed while the connection to Redis was down. A cancellation or an end missed during such
an outage lets the running request finish (its answer is the client's to ignore) and a waiting
call time out.

Each instance subscribes once, to its two channels, in :meth:`SessionRouter.serve` (one
connection; it reconnects after a failure). While it is not listening, a server-to-client
request is refused with :class:`~sevdesk_mcp.errors.StateUnavailableError` instead of waiting
for an answer that cannot arrive, and ``/healthz`` answers 503 (``SharedStores.healthy``).

A message that does not open (published by someone who can write to Redis but lacks the server
secret, or a sealed value copied from another channel or key) is logged and ignored: a forged
``answer`` (say an elicitation's ``accept``), ``cancel``, ``end`` or ``wake`` changes nothing.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Final

import anyio
from anyio.abc import TaskStatus

from sevdesk_mcp.errors import StateUnavailableError
from sevdesk_mcp.http.limits import REQUEST_DEADLINE_S
from sevdesk_mcp.http.sessions.session import Presence
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.pending import ID_PREFIX
from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.shared.redis import SharedState, guard

if TYPE_CHECKING:
    from sevdesk_mcp.shared.redis import PubSub

log = logging.getLogger("sevdesk_mcp.http.sessions")

RECHECK_S: Final = 15.0
NOT_HEARD: Final = (
    "the instance that waits for this answer does not receive answers right now (its "
    "connection to the shared state is being re-established); the answer was not taken: send "
    "the same answer again in a few seconds"
)
ALIVE_S: Final = REQUEST_DEADLINE_S + 60.0  # longer than any wait for an answer may last
# KEYS: the session's waits, the waiting instance's heartbeat. ARGV: request id, the wait's
# stored value, channel, message, then the heartbeat's value tagged under each secret.
# Publishes the answer while the wait is still the one read, and takes the wait once the
# waiting instance heard it (returns the listeners), or if that instance is gone (no valid
# heartbeat: -1, as when nobody waits any more); otherwise keeps it and returns 0.
HAND_OVER: Final = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return -1 end
local heard = redis.call('PUBLISH', ARGV[3], ARGV[4])
if heard > 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return heard
end
local alive = redis.call('GET', KEYS[2])
for i = 5, #ARGV do
  if alive == ARGV[i] then return 0 end
end
redis.call('HDEL', KEYS[1], ARGV[1])
return -1
"""
ALIVE: Final = b"listening"
RECONNECT_S: Final = (0.5, 5.0)
POLL_S: Final = 1.0


class SessionRouter:
    """This instance's end of the channels, and what of each session runs here.

    :param state: the shared state.
    :ivar instance: this instance's random name (its channel, and its waits in Redis).
    :ivar listening: whether the channels are subscribed now.
    """

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self.instance = secrets.token_urlsafe(8)
        self._here: dict[str, Presence] = {}  # by session digest: what runs here
        self._presences = itertools.count(1)  # request ids never repeat on this instance
        self._broadcast = state.keys.channel("sessions")
        self._direct = self.channel_of(self.instance)
        self.listening = False
        self._hand_over = state.script(HAND_OVER)

    def channel_of(self, instance: str) -> str:
        """:returns: the channel of the instance named ``instance``."""
        return self._state.keys.channel(f"sessions:{instance}")

    def heartbeat_of(self, instance: str) -> str:
        """:returns: the key of the heartbeat of the instance named ``instance``."""
        return self._state.keys.plain("instance", instance)

    # -- what runs here -------------------------------------------------------------------

    def presence(self, session_digest: str) -> Presence:
        """:returns: what of the session runs here (a new, unregistered one if nothing does)."""
        found = self._here.get(session_digest)
        if found is not None:
            return found
        # a fresh prefix per presence: a late answer to an earlier request of the session
        # (whose presence ended) can never match a new request's id
        return Presence(f"{ID_PREFIX}{self.instance}-{next(self._presences)}-")

    def hold(self, session_digest: str, presence: Presence) -> Presence:
        """:returns: the registered presence of the session (``presence`` if there was none),
        counted busy once more."""
        here = self._here.setdefault(session_digest, presence)
        here.active += 1
        return here

    def release(self, session_digest: str, here: Presence) -> None:
        """Count ``here`` busy once less; forget it when nothing of it runs here."""
        here.active -= 1
        if here.idle and self._here.get(session_digest) is here:
            del self._here[session_digest]

    def deliver_here(self, session_digest: str, response: jsonrpc.Response) -> bool:
        """:returns: whether a call of the session waiting here took ``response``."""
        here = self._here.get(session_digest)
        return here is not None and here.pending.deliver(response)

    def cancel_here(self, session_digest: str, request_id: object) -> None:
        """Cancel the request ``request_id`` of the session if it runs here."""
        here = self._here.get(session_digest)
        if here is not None:
            here.cancel(request_id)

    # -- messages -------------------------------------------------------------------------

    async def ended(self, session_digest: str) -> None:
        """End the session here, and tell every instance.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        here = self._here.pop(session_digest, None)
        if here is not None:
            here.end()
        await self.send(self._broadcast, {"k": "end", "s": session_digest})

    async def wake(self, session_digest: str) -> None:
        """Wake the session's GET stream, wherever it is.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        here = self._here.get(session_digest)
        if here is not None:
            here.wake()
        await self.send(self._broadcast, {"k": "wake", "s": session_digest})

    async def cancel(self, session_digest: str, request_id: object) -> None:
        """Cancel the request ``request_id`` of the session, wherever it runs.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        if not jsonrpc.valid_id(request_id):
            return
        self.cancel_here(session_digest, request_id)
        await self.send(self._broadcast, {"k": "cancel", "s": session_digest, "r": request_id})

    async def answer(
        self,
        instance: str,
        session_digest: str,
        response: jsonrpc.Response,
        wait: tuple[str, bytes],
    ) -> bool:
        """Hand ``response`` to the call waiting on ``instance``; the wait (``session-waits``
        key and the value read from its field) is taken only once that instance heard it.

        :returns: whether a call waited for it (``False``: answered already, or its wait ended).
        :raises StateUnavailableError: if Redis cannot be reached, or if the waiting instance
            does not listen right now (the wait stays: the client may send the answer again).
        """
        if instance == self.instance:  # the waiting call takes its wait out itself
            return self.deliver_here(session_digest, response)
        waits, stored = wait
        channel, heartbeat = self.channel_of(instance), self.heartbeat_of(instance)
        answer: JsonObject = {"id": response.id, "result": response.result, "error": response.error}
        message: JsonObject = {"k": "answer", "s": session_digest, "m": answer}
        sealed = self._sealed(channel, message)
        alive = self._state.seal.tags(heartbeat, ALIVE)
        args: list[str | bytes] = [str(response.id), stored, channel, sealed, *alive]
        async with guard():
            heard = int(await self._hand_over(keys=[waits, heartbeat], args=args))
        if heard == 0:
            log.warning(
                "an answer for instance %s was not heard; the client is told to resend", instance
            )
            raise StateUnavailableError(NOT_HEARD)
        return heard > 0

    async def send(self, channel: str, message: JsonObject) -> int:
        """:returns: how many instances heard ``message`` (sealed for ``channel``).

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        sealed = self._sealed(channel, message)
        async with guard():
            return int(await self._state.client.publish(channel, sealed))

    def _sealed(self, channel: str, message: JsonObject) -> bytes:
        """:returns: ``message`` sealed for ``channel`` (another channel's does not open)."""
        return self._state.seal.seal(channel, json.dumps(message).encode("utf-8"))

    # -- listening ------------------------------------------------------------------------

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listen on this instance's channels until cancelled; reconnect after a failure.

        ``task_status.started()`` is called after the first attempt to subscribe, whether it
        succeeded or not (an unreachable Redis must not keep the server from starting: it
        answers 503 until Redis is back).
        """
        delay, started = RECONNECT_S[0], False
        try:
            while True:
                try:
                    async with self._subscribed() as pubsub:
                        self.listening, delay = True, RECONNECT_S[0]
                        if not started:
                            task_status.started()
                            started = True
                        await self._listen(pubsub)
                except StateUnavailableError as exc:
                    log.warning("session routing paused: %s", exc)
                finally:
                    self.listening = False
                if not started:
                    task_status.started()
                    started = True
                await anyio.sleep(delay)
                delay = min(delay * 2, RECONNECT_S[1])
        finally:  # stopped: answers for the calls that waited here are refused at once
            with anyio.CancelScope(shield=True), anyio.move_on_after(POLL_S), suppress(Exception):
                await self._state.client.delete(self.heartbeat_of(self.instance))

    async def _beat(self) -> None:
        """Renew this instance's heartbeat: while it lives, an answer for a call waiting here
        that this instance does not hear (it is reconnecting) is kept for the client to resend.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        heartbeat = self.heartbeat_of(self.instance)
        value = self._state.seal.tag(heartbeat, ALIVE)
        async with guard():
            await self._state.client.set(heartbeat, value, px=int(ALIVE_S * 1000))

    @asynccontextmanager
    async def _subscribed(self) -> AsyncIterator[PubSub]:
        """:raises StateUnavailableError: if Redis cannot be reached."""
        pubsub = self._state.client.pubsub(ignore_subscribe_messages=True)
        try:
            async with guard():
                await pubsub.subscribe(self._broadcast, self._direct)
            yield pubsub
        finally:
            with anyio.CancelScope(shield=True), suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _listen(self, pubsub: PubSub) -> None:
        """Dispatch each message until the connection fails.

        :raises StateUnavailableError: when it does.
        """
        beat = -RECHECK_S
        while True:
            if anyio.current_time() - beat >= RECHECK_S:
                await self._beat()
                beat = anyio.current_time()
            async with guard():
                message = await pubsub.get_message(timeout=POLL_S)
            if message is not None and message.get("type") == "message":
                self._dispatch(message["channel"].decode("utf-8"), message["data"])

    def _dispatch(self, channel: str, data: bytes) -> None:
        """Act on one message of the channels (one that does not open is dropped)."""
        try:
            message = json.loads(self._state.seal.open(channel, data))
        except (StateUnavailableError, ValueError):
            log.warning("a session message on %s does not open; dropped", channel)
            return
        kind, session_digest = message.get("k"), str(message.get("s"))
        if kind == "answer" and channel == self._direct:
            answer = message.get("m") or {}
            request_id = answer.get("id")
            if jsonrpc.valid_id(request_id):
                response = jsonrpc.Response(request_id, answer.get("result"), answer.get("error"))
                self.deliver_here(session_digest, response)
        elif kind == "cancel":
            self.cancel_here(session_digest, message.get("r"))
        elif kind == "end" and session_digest in self._here:
            self._here.pop(session_digest).end()
        elif kind == "wake" and session_digest in self._here:
            self._here[session_digest].wake()
