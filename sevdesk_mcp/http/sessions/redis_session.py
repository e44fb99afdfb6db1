"""A session whose record is in Redis, as one instance sees it: what crosses instances goes
through its store (``redis_store``) and the instances' channels (``redis_routing``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from sevdesk_mcp.http.sessions.redis_routing import RECHECK_S
from sevdesk_mcp.http.sessions.session import Session
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.pending import Send
from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.shared.keys import digest

if TYPE_CHECKING:
    from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore


class SharedSession(Session):
    """A session whose record is in Redis; what crosses instances goes through its store."""

    __slots__ = ("_store", "hashed", "loaded")

    def __init__(self, store: RedisSessionStore, session_id: str, principal: str) -> None:
        self.hashed = digest(session_id)
        super().__init__(session_id, principal, 0.0, store.router.presence(self.hashed))
        self._store = store
        self.loaded: frozenset[str] = frozenset()  # the subscriptions in the record

    async def request(
        self, send: Send, method: str, params: JsonObject, timeout_s: float
    ) -> JsonObject:
        """See :meth:`Session.request`; the wait is registered in Redis so that the answer
        reaches this instance wherever it arrives.

        :raises PeerRequestError: on an error answer, the end of the session, or the timeout.
        :raises StateUnavailableError: if this instance does not receive answers right now.
        """
        return await self._store.request(self, send, method, params, timeout_s)

    async def deliver(self, response: jsonrpc.Response) -> bool:
        """See :meth:`Session.deliver`: to whichever instance waits for it.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        return await self._store.deliver(self.hashed, response)

    async def cancel(self, request_id: object) -> None:
        """See :meth:`Session.cancel`: on whichever instance runs it.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        await self._store.cancel(self.hashed, request_id)

    @asynccontextmanager
    async def holding(self) -> AsyncIterator[None]:
        """See :meth:`Session.holding`: busy in Redis too, and reachable here by the routing.

        :raises StateUnavailableError: if Redis cannot be reached at the start.
        """
        async with self._store.holding(self):
            yield

    async def publish(self, message: JsonObject) -> None:
        """See :meth:`Session.publish`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        await self._store.publish(self.hashed, message)

    async def open_stream(self) -> int:
        """See :meth:`Session.open_stream`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        return await self._store.open_stream(self.hashed)

    async def streaming(self, generation: int) -> bool:
        """See :meth:`Session.streaming`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        return not self.here.ended and await self._store.streaming(self.hashed, generation)

    async def events_after(self, event_id: int) -> list[tuple[int, bytes]]:
        """See :meth:`Session.events_after`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        return await self._store.events_after(self.hashed, event_id)

    async def sent(self, event_id: int) -> None:
        """See :meth:`Session.sent`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        await self._store.sent(self.hashed, event_id)

    async def last_sent(self) -> int:
        """See :meth:`Session.last_sent`.

        :raises StateUnavailableError: if Redis cannot be reached.
        """
        return await self._store.last_sent(self.hashed)

    async def changed(self) -> None:
        """See :meth:`Session.changed`; returns after :data:`RECHECK_S` at the latest, so the
        stream re-reads its session from Redis."""
        await self.here.changed(RECHECK_S)
