"""Sessions of 2025-era clients over Streamable HTTP (``Mcp-Session-Id``).

A 2025-era ``initialize`` over HTTP creates a session (``SEVDESK_HTTP_SESSIONS=on``, the
default): its id is 256 random bits (``secrets.token_urlsafe(32)``, 43 visible ASCII
characters), and it belongs to the principal that initialized it (the bearer identity or the
OAuth grant). What it remembers: the handshake (version, client capabilities), the log level,
the server's requests waiting for the client's answers (``mcp.pending``, the routing stdio
uses), the client's requests in flight (for ``notifications/cancelled``), its resource
subscriptions and the events of its GET stream, kept in a bounded replay buffer for
``Last-Event-ID``.

Rules of the store (``session_table``, one for both stores):

- a session id presented by another principal is unknown (404), exactly like an id that never
  existed, ended or expired;
- a session unused for :data:`SESSION_IDLE_S` expires; the start and end of a request or GET
  stream are uses, and none runs longer than the request deadline;
- a session is busy while a request or GET stream of it runs, within a busy lease
  (``session_table.BUSY_LEASE_S``) of the last one to start;
- at most :data:`MAX_SESSIONS_PER_PRINCIPAL` per principal, 4 times that per account, and
  :data:`MAX_SESSIONS` in all: at each cap the least recently used idle session is ended for a
  new one (429, 429, 503 if every one is busy);
- ending a session (``DELETE /mcp``, expiry, eviction) fails the server's waiting requests (the
  call waiting for an approval learns it was not given), cancels its running requests and closes
  its GET stream.

:class:`SessionStore` is the seam (``session``): :class:`MemorySessionStore` (``memory``) keeps
sessions in one process; :class:`~sevdesk_mcp.http.sessions.redis_store.RedisSessionStore`
(``redis_store``, with ``redis_session``, ``redis_routing`` and ``redis_scripts``) shares them
between
instances (``SEVDESK_HTTP_STATE_URL``) and brings a client's answer, a cancellation, the end of
a session and the events of its GET stream to the instance that needs them. The store's calls
are async (Redis); a :class:`Session` is what one instance sees of a session, and its own
async methods carry what crosses instances (answers, cancellations, the GET stream's events).
Every store has a background task, :meth:`SessionStore.serve`, that the composition root
starts before serving (the memory store's does nothing).
"""

from __future__ import annotations

from sevdesk_mcp.http.sessions.memory import MemorySessionStore
from sevdesk_mcp.http.sessions.session import (
    ACCOUNT_FACTOR,
    ENDED,
    ID_BYTES,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_PRINCIPAL,
    MAX_SUBSCRIPTIONS,
    REPLAY_EVENTS,
    SESSION_HEADER,
    SESSION_IDLE_S,
    Presence,
    Session,
    SessionStore,
    account_of,
)

__all__ = [
    "ACCOUNT_FACTOR",
    "ENDED",
    "ID_BYTES",
    "MAX_SESSIONS",
    "MAX_SESSIONS_PER_PRINCIPAL",
    "MAX_SUBSCRIPTIONS",
    "REPLAY_EVENTS",
    "SESSION_HEADER",
    "SESSION_IDLE_S",
    "MemorySessionStore",
    "Presence",
    "Session",
    "SessionStore",
    "account_of",
]
