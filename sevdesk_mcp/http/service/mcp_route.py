"""``/mcp``: Streamable HTTP, both protocol eras; sessions for the 2025 era.

- Every request is served by the app of its account (``build_app()``: in bearer mode the one
  app the server factory built at start, as over stdio; in OAuth mode the factory's ``build``
  for the grant's account). An app holds no request state (that lives in the request's
  ``Connection`` and context), so 2026-07-28 requests are stateless: nothing of one request
  is visible to the next.
- 2025-era requests, with sessions on (``SEVDESK_HTTP_SESSIONS=on``, the default, and a
  :class:`~sevdesk_mcp.http.sessions.SessionStore` given): ``initialize`` creates a session and
  answers its id in ``Mcp-Session-Id``; a request carrying that header is served in the
  session (its handshake, log level and subscriptions), and during a tool call the server may
  send requests to the client (``elicitation/create``, ``sampling/createMessage``,
  ``roots/list``) as events on that POST's stream. The client's answer arrives in a new POST
  with the session id and is routed to the waiting call (``mcp.pending``, as over stdio), on
  whichever instance holds it when the store is shared (``sessions.redis_store``); an answer
  no call waits for is refused (400). ``notifications/cancelled`` cancels a running request of the
  session, wherever it runs. The session's handshake, log level and subscriptions are saved
  before the answer leaves, so the client's next request may reach any instance. A header
  naming no live session of the principal is 404; a shared store that cannot be reached, 503.
  ``GET`` and ``DELETE`` are ``http.mcp_stream``'s.
- 2025-era requests without a session (sessions off, or a client that sends no
  ``Mcp-Session-Id``) are served statelessly as before: ``initialize`` is answered and
  forgotten, later requests are served at the version their ``MCP-Protocol-Version`` header
  names, and the server cannot ask the client anything.
- The body must be ``application/json`` (415 otherwise) and one JSON-RPC message within the
  route's cap (413). Parse errors, invalid envelopes and batches are 400; notifications and
  responses are accepted with 202 and no body.
- The header ladder and the HTTP statuses are the protocol core's (``mcp.streamable``). An
  ``Mcp-*`` header sent on more than one line (two ``Mcp-Name`` lines, say) is refused with 400
  and -32600 before the body is decoded: taking the first or the last line would let a gateway
  and this server read two different requests (threat J06).
- The answer is JSON. It becomes an SSE stream (``text/event-stream``) only when the request
  produces a notification before its answer (progress with a ``progressToken``, logs with a log
  level) and the client accepts event streams; a client that lists only ``text/event-stream``
  gets every answer as a stream. ``Accept`` is never a reason to refuse (no 406). The handler
  writes each event itself as it notifies (no queue, no second task); a connection that fails
  meanwhile gives the request up (the handler is cancelled, logged as ``aborted``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Final

import anyio
import anyio.lowlevel

from sevdesk_mcp.errors import INVALID_REQUEST, HttpError, ProtocolError, StateUnavailableError
from sevdesk_mcp.http.connection import SOCKET_ERRORS, Exchange, Handler
from sevdesk_mcp.http.messages import JSON_TYPE, HeaderList, Headers
from sevdesk_mcp.http.service import mcp_stream
from sevdesk_mcp.http.sessions import SESSION_HEADER, Session, SessionStore
from sevdesk_mcp.http.sse import SSE_HEADERS, SSE_TYPE, sse_event
from sevdesk_mcp.mcp import jsonrpc, streamable
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import PeerRequestError
from sevdesk_mcp.mcp.dispatcher import Connection, Dispatcher
from sevdesk_mcp.mcp.envelope import RequestMeta
from sevdesk_mcp.mcp.types import MODERN_VERSION, Era, JsonObject

__all__ = ["SSE_HEADERS", "SSE_TYPE", "HttpPeer", "McpRoute", "SessionPeer"]

log = logging.getLogger("sevdesk_mcp.http")

MCP_HEADER_PREFIX: Final = "mcp-"
STREAM_METHODS: Final = frozenset({"GET"})  # a session's GET is its long-lived event stream
SEND_FAILED: Final = "the connection failed while answering"
NO_STREAM: Final = (
    "The client takes no event stream on this request (its Accept header lacks "
    "text/event-stream), so the server cannot send it a request here."
)


class HttpPeer:
    """The way back to the client during one request: notifications only, no requests.

    The first message sent through it turns the response into an event stream; the handler
    that notifies writes each event itself (no queue, no second task), one at a time and in the
    order the notifications were made, also when several tasks of the handler notify at once.

    :param exchange: the request's exchange, or ``None`` when the client takes no event
        stream (notifications are then dropped).
    :ivar streaming: whether the event stream has started.
    """

    def __init__(self, exchange: Exchange | None) -> None:
        self._exchange = exchange
        self._lock: anyio.Lock | None = None  # made by the first event: most requests send none
        self.streaming = False
        self.headers: HeaderList = []  # more headers of the answer (``Mcp-Session-Id``)

    @property
    def can_request(self) -> bool:
        """:returns: ``False``: stateless HTTP has no channel for the client's answers."""
        return False

    async def notify(self, method: str, params: JsonObject) -> None:
        """Send a notification as an event; dropped if the client takes no event stream.

        If the connection fails, the request is given up: the handler is cancelled here.
        """
        if self._exchange is None:
            return
        await self.send_message({"jsonrpc": "2.0", "method": method, "params": params})

    async def send_message(self, message: JsonObject) -> None:
        """Send a JSON-RPC message as an event; if the connection fails, the request is given
        up (the handler is cancelled here)."""
        assert self._exchange is not None  # only called for a client that takes event streams
        try:
            await self.send_event(jsonrpc.encode(message))
        except SOCKET_ERRORS:
            self._exchange.abort(SEND_FAILED)
            await anyio.lowlevel.checkpoint()  # the cancellation of the handler, raised here

    async def send_event(self, data: bytes) -> None:
        """Send one JSON-RPC message (``data``, encoded) as an event, starting the stream.

        :raises OSError: (or anyio's broken or closed resource error) if the socket failed.
        """
        exchange = self._exchange
        assert exchange is not None  # only called for a client that takes event streams
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:  # tasks of one handler notify at once; events go out in order
            if not self.streaming:
                await exchange.start(200, [*SSE_HEADERS, *self.headers])
                self.streaming = True
            await exchange.send(sse_event(data))

    async def request(self, method: str, params: JsonObject, timeout_s: float) -> JsonObject:
        """:raises PeerRequestError: always."""
        raise PeerRequestError("Requests to the client are not possible over stateless HTTP.")


class SessionPeer(HttpPeer):
    """The way back to a 2025-era client in a session: notifications, and requests sent as
    events on this POST's stream, whose answers arrive in other POSTs of the session.

    :param exchange: as for :class:`HttpPeer`.
    :param session: the session the answers are routed through.
    """

    def __init__(self, exchange: Exchange | None, session: Session) -> None:
        super().__init__(exchange)
        self._session = session

    @property
    def can_request(self) -> bool:
        """:returns: whether the client takes this request's event stream and the session
        lives."""
        return self._exchange is not None and self._session.can_request

    async def request(self, method: str, params: JsonObject, timeout_s: float) -> JsonObject:
        """Send a request on this POST's stream and wait for the answer, routed by the session.

        :raises PeerRequestError: on an error answer, the end of the session, the timeout, or a
            client that takes no event stream here.
        :raises StateUnavailableError: if a shared session store cannot route the answer.
        """
        if self._exchange is None:
            raise PeerRequestError(NO_STREAM)
        return await self._session.request(self.send_message, method, params, timeout_s)


class McpRoute:
    """The handler of ``/mcp``: ``POST``, and with sessions ``GET`` and ``DELETE``.

    :param build_app: returns the :class:`McpApp` serving the request's account.
    :param principal: who the requests act for (bound into sealed request state and sessions).
    :param sessions: where 2025-era sessions live; ``None`` serves every request statelessly
        (``SEVDESK_HTTP_SESSIONS=off``).
    """

    def __init__(
        self,
        build_app: Callable[[], McpApp],
        *,
        principal: str,
        max_body_bytes: int,
        sessions: SessionStore | None = None,
    ) -> None:
        self._build_app = build_app
        self._principal = principal
        self._max_body_bytes = max_body_bytes
        self._sessions = sessions

    def handlers(self) -> dict[str, Handler]:
        """:returns: the route's handlers by method: ``GET`` and ``DELETE`` only with sessions."""
        if self._sessions is None:
            return {"POST": self}
        return {"POST": self, "GET": self, "DELETE": self}

    async def __call__(self, exchange: Exchange) -> None:
        """Serve one request.

        :raises HttpError: 415 for another media type, the body's refusals (413, 408, 400); for
            sessions 400 (malformed or missing ``Mcp-Session-Id``) and 404 (unknown session);
            405 for ``GET`` or ``DELETE`` without sessions; 503 if a shared session store cannot
            be reached.
        """
        try:
            await self._serve(exchange)
        except StateUnavailableError as exc:
            raise HttpError(503, str(exc), headers=(("retry-after", "5"),)) from None

    async def _serve(self, exchange: Exchange) -> None:
        method = exchange.request.method
        if method != "POST":
            await self._session_method(exchange, method)
            return
        headers = exchange.request.headers
        media_type = (headers.get("content-type") or "").partition(";")[0].strip().lower()
        if media_type != JSON_TYPE:
            raise HttpError(415, "Send the JSON-RPC message as application/json.")
        body = await exchange.read_body(self._max_body_bytes)
        repeated = _repeated_mcp_header(headers)
        if repeated is not None:
            await _send_json(exchange, 400, repeated)
            return
        message = jsonrpc.decode(body)
        if isinstance(message, jsonrpc.Rejected):
            await _send_json(exchange, 400, message.answer)
        elif isinstance(message, jsonrpc.Request):
            await self._request(exchange, message)
        elif isinstance(message, jsonrpc.Response) and _is_modern_header(headers):
            answer = jsonrpc.error_answer(
                None,
                INVALID_REQUEST,
                f"Invalid request: a {MODERN_VERSION} server sends no "
                "requests, so there is nothing to respond to",
            )
            await _send_json(exchange, 400, answer)
        else:
            exchange.notes["mcp_method"] = _method_note(message)
            await self._from_client(exchange, message)

    async def _session_method(self, exchange: Exchange, method: str) -> None:
        if self._sessions is None:
            raise HttpError(405, "Method not allowed.", headers=(("allow", "POST"),))
        exchange.notes["mcp_method"] = "stream" if method == "GET" else "end session"
        if method == "GET":
            await mcp_stream.listen(self._sessions, exchange, self._principal)
        else:
            await mcp_stream.end(self._sessions, exchange, self._principal)

    async def _from_client(
        self, exchange: Exchange, message: jsonrpc.Notification | jsonrpc.Response
    ) -> None:
        """Accept a notification or a response (202); in a session, a response goes to the call
        waiting for it (400 if none waits) and ``notifications/cancelled`` cancels a request."""
        session = await self._session(exchange)
        if session is not None and isinstance(message, jsonrpc.Response):
            if not await session.deliver(message):
                answer = jsonrpc.error_answer(
                    None,
                    INVALID_REQUEST,
                    f"Invalid request: no request with the id {str(message.id)[:64]!r} waits for "
                    "an answer in this session (never sent, answered already, or its wait "
                    "ended); answer only requests the server sent, once",
                )
                await _send_json(exchange, 400, answer)
                return
        elif isinstance(message, jsonrpc.Notification) and _is_cancel(message, session):
            assert session is not None  # checked by _is_cancel
            await session.cancel(message.params.get("requestId"))
        await exchange.respond(202, [])

    async def _session(self, exchange: Exchange) -> Session | None:
        """:returns: the session the request names; ``None`` without sessions or header.

        :raises HttpError: 400 for a malformed header, 404 for an unknown session.
        """
        if self._sessions is None:
            return None
        value = mcp_stream.session_id(exchange)
        if value is None:
            return None
        return await mcp_stream.find(self._sessions, exchange, self._principal)

    async def _request(self, exchange: Exchange, request: jsonrpc.Request) -> None:
        """Answer with JSON, or with an event stream once a notification or a request to the
        client comes first (or when the client takes only event streams)."""
        exchange.notes["mcp_method"] = request.method  # masked, then cut, by the access log
        headers = exchange.request.headers
        try:
            meta = streamable.check_request(request, headers)
        except ProtocolError as exc:
            answer = jsonrpc.error_answer(request.id, exc.code, exc.message, exc.data)
            await _send_json(exchange, 400, answer)
            return
        era: Era = "legacy" if meta is None else "modern"
        exchange.notes["era"] = era
        stream = exchange if _accepts_stream(headers) else None
        session = await self._session(exchange) if meta is None else None
        if session is not None and self._sessions is not None:
            peer_in = SessionPeer(stream, session)
            await self._in_session(exchange, request, session, peer_in, self._sessions)
            return
        peer = HttpPeer(stream)
        if meta is None and request.method == "initialize" and self._sessions is not None:
            await self._initialize(exchange, request, peer, self._sessions)
            return
        conn = streamable.open_connection(request, meta, headers, peer, self._principal)
        await self._answer(exchange, request, conn, meta)

    async def _initialize(
        self, exchange: Exchange, request: jsonrpc.Request, peer: HttpPeer, store: SessionStore
    ) -> None:
        """``initialize`` with sessions on: the session is made first (its caps may refuse),
        kept if the handshake succeeded (saved before the answer leaves: the client's next
        request may reach another instance), and named in ``Mcp-Session-Id``."""
        session = await store.create(self._principal)
        conn = Connection(peer, self._principal, subscriptions=session)
        peer.headers = [(SESSION_HEADER, session.id)]

        async def keep(conn: Connection) -> None:
            if conn.handshake is not None:
                session.handshake = conn.handshake
                await store.save(session)
                exchange.notes["session"] = "created"

        try:
            await self._answer(exchange, request, conn, None, keep)
        finally:
            if session.handshake is None:
                with anyio.CancelScope(shield=True), suppress(StateUnavailableError):
                    await store.end(session.id, self._principal)

    async def _in_session(
        self,
        exchange: Exchange,
        request: jsonrpc.Request,
        session: Session,
        peer: SessionPeer,
        store: SessionStore,
    ) -> None:
        """Serve a request in its session; cancelled by ``notifications/cancelled`` or the end
        of the session, it ends without an answer. The log level and subscriptions are saved
        before the answer leaves (the end of a long call counts as use, not only its start)."""
        conn = Connection(
            peer, self._principal, session.handshake, session.log_level, subscriptions=session
        )

        async def keep(conn: Connection) -> None:
            session.log_level = conn.log_level
            try:
                await store.save(session)
            except StateUnavailableError as exc:  # the answer (a write's result) must go out
                log.warning("the session's log level and subscriptions were not saved: %s", exc)

        async with session.running(request.id) as scope:
            await self._answer(exchange, request, conn, None, keep)
        if scope.cancelled_caught and exchange.status is None:
            await exchange.respond(202, [])  # cancelled before anything was sent: no answer
        elif scope.cancelled_caught:
            await exchange.finish()  # the stream ends without an answer

    async def _answer(
        self,
        exchange: Exchange,
        request: jsonrpc.Request,
        conn: Connection,
        meta: RequestMeta | None,
        keep: Callable[[Connection], Awaitable[None]] | None = None,
    ) -> None:
        """Dispatch ``request`` and send its answer; ``keep`` runs in between (a session's
        state is saved before its client can send the next request)."""
        peer = conn.peer
        assert isinstance(peer, HttpPeer)
        answer, data = await Dispatcher(self._build_app()).handle_encoded(request, conn, meta)
        if keep is not None:
            await keep(conn)
        status = streamable.http_status(answer, "legacy" if meta is None else "modern")
        headers = exchange.request.headers
        if peer.streaming or (status == 200 and not _accepts_json(headers)):
            await peer.send_event(data)
            await exchange.finish()
        else:
            await _send_encoded(exchange, status, answer, data, peer.headers)


async def _send_json(exchange: Exchange, status: int, answer: JsonObject) -> None:
    await _send_encoded(exchange, status, answer, jsonrpc.encode(answer))


async def _send_encoded(
    exchange: Exchange,
    status: int,
    answer: JsonObject,
    data: bytes,
    extra: HeaderList | None = None,
) -> None:
    """Send ``answer``, already encoded as ``data``, with ``extra`` headers."""
    error = answer.get("error")
    if isinstance(error, dict):
        exchange.notes["rpc_error"] = str(error.get("code"))
    await exchange.respond(status, [("content-type", JSON_TYPE), *(extra or [])], data)


def _repeated_mcp_header(headers: Headers) -> JsonObject | None:
    """:returns: the error answer for an ``Mcp-*`` header sent on more than one line, or
    ``None`` if every one is sent once."""
    for name in headers.names():
        if name.startswith(MCP_HEADER_PREFIX) and headers.count(name) > 1:
            return jsonrpc.error_answer(
                None,
                INVALID_REQUEST,
                f"Invalid request: the {name} header is sent {headers.count(name)} times; send "
                "each MCP header once, with one value",
            )
    return None


def _accepts_stream(headers: Headers) -> bool:
    accept = (headers.get("accept") or "").lower()
    return not accept or SSE_TYPE in accept or "*/*" in accept


def _accepts_json(headers: Headers) -> bool:
    accept = (headers.get("accept") or "").lower()
    return SSE_TYPE not in accept or any(t in accept for t in (JSON_TYPE, "application/*", "*/*"))


def _is_modern_header(headers: Headers) -> bool:
    return headers.get(streamable.HEADER_VERSION) == MODERN_VERSION


def _is_cancel(message: jsonrpc.Notification, session: Session | None) -> bool:
    return session is not None and message.method == "notifications/cancelled"


def _method_note(message: jsonrpc.Message) -> str:
    return message.method if isinstance(message, jsonrpc.Notification) else "response"
