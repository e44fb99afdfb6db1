"""``GET /mcp`` and ``DELETE /mcp``: a 2025-era session's own stream, and its end.

- ``GET`` with ``Mcp-Session-Id`` opens the session's event stream: notifications that belong
  to no request (resource updates of its subscriptions, list changes). Each event carries an
  ``id``; a client that reconnects with ``Last-Event-ID`` gets the events after it that the
  replay buffer still holds (:data:`~sevdesk_mcp.http.sessions.REPLAY_EVENTS`), then the new
  ones. One stream per session: a newer one ends the older. The stream ends by itself a little
  before the request deadline (the client reconnects), and when the session ends.
- ``DELETE`` with ``Mcp-Session-Id`` ends the session: 204.
- Without the header, 405 with ``Allow: POST``, as a stateless server answers (there is no
  stream or session to end without a session); a session id that is not one of the principal's
  live sessions, 404; a malformed one, 400.
"""

from __future__ import annotations

from contextlib import suppress

import anyio

from sevdesk_mcp.errors import HttpError, StateUnavailableError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.sessions import SESSION_HEADER, Session, SessionStore
from sevdesk_mcp.http.sse import SSE_HEADERS, sse_event
from sevdesk_mcp.mcp.pending import DEADLINE_MARGIN_S

MISSING: str = (
    "Send the Mcp-Session-Id header the initialize answer carried; 2025-era sessions exist only "
    "after initialize (2026-07-28 clients use no sessions and no GET stream)."
)
UNKNOWN: str = (
    "Session not found: it ended, expired or was never issued to you. Send initialize again "
    "without Mcp-Session-Id to start a new session."
)


def session_id(exchange: Exchange) -> str | None:
    """:returns: the request's ``Mcp-Session-Id``, or ``None`` if it has none.

    :raises HttpError: 400 for one that cannot be an id of ours (too long, or not visible ASCII).
    """
    value = exchange.request.headers.get(SESSION_HEADER)
    if value is None:
        return None
    if not 0 < len(value) <= 128 or not all(0x21 <= ord(c) <= 0x7E for c in value):
        raise HttpError(400, "The Mcp-Session-Id header is malformed; " + MISSING)
    return value


async def find(store: SessionStore, exchange: Exchange, principal: str) -> Session:
    """:returns: the live session the request names.

    :raises HttpError: 405 without the header, 400 for a malformed one, 404 for an unknown
        session.
    :raises StateUnavailableError: if a shared store cannot be reached.
    """
    value = _required(exchange)
    session = await store.get(value, principal)
    if session is None:
        raise HttpError(404, UNKNOWN)
    return session


async def listen(store: SessionStore, exchange: Exchange, principal: str) -> None:
    """Serve ``GET /mcp``: the session's event stream (see the module docstring).

    :raises HttpError: 405, 400 or 404 (:func:`find`).
    :raises StateUnavailableError: if a shared store cannot be reached before the stream starts
        (later, the stream ends and the client reconnects).
    """
    session = await find(store, exchange, principal)
    async with session.holding():
        generation = await session.open_stream()  # an older stream ends
        cursor = await _last_event_id(exchange, session)
        await exchange.start(200, SSE_HEADERS)
        with anyio.move_on_after(_until_deadline()), suppress(StateUnavailableError):
            await _stream(exchange, session, generation, cursor)
    await exchange.finish()


async def _stream(exchange: Exchange, session: Session, generation: int, cursor: int) -> None:
    """Send the events after ``cursor`` and then each new one, while the stream may go on.

    :raises StateUnavailableError: if a shared store cannot be reached.
    """
    while await session.streaming(generation):
        sent = cursor
        for event_id, data in await session.events_after(cursor):
            await exchange.send(sse_event(data, event_id))
            cursor = event_id
        if cursor != sent:
            await session.sent(cursor)
        await session.changed()


async def end(store: SessionStore, exchange: Exchange, principal: str) -> None:
    """Serve ``DELETE /mcp``: end the session.

    :raises HttpError: 405 without the header, 400 for a malformed one, 404 for an unknown
        session.
    :raises StateUnavailableError: if a shared store cannot be reached.
    """
    value = _required(exchange)
    if not await store.end(value, principal):
        raise HttpError(404, UNKNOWN)
    await exchange.respond(204, [])


def _required(exchange: Exchange) -> str:
    """:returns: the request's ``Mcp-Session-Id``.

    :raises HttpError: 405 (``Allow: POST``) without one, 400 for a malformed one.
    """
    value = session_id(exchange)
    if value is None:
        raise HttpError(405, "Method not allowed. " + MISSING, headers=(("allow", "POST"),))
    return value


async def _last_event_id(exchange: Exchange, session: Session) -> int:
    """:returns: the event the stream resumes after: ``Last-Event-ID`` if it is one of ours,
    otherwise the last event a stream of this session sent."""
    value = exchange.request.headers.get("last-event-id")
    if value is not None and value.isdigit() and len(value) <= 18:
        return int(value)
    return await session.last_sent()


def _until_deadline() -> float:
    """:returns: seconds the stream may stay open: until shortly before the request deadline."""
    deadline = anyio.current_effective_deadline()
    return max(0.0, deadline - anyio.current_time() - DEADLINE_MARGIN_S)
