"""``POST /mcp``: Streamable HTTP, stateless, both protocol eras.

- Every request gets a fresh server instance (``build_app()``, the server factory's ``build``)
  and a fresh connection state; nothing of one request is visible to the next. 2025-era
  requests are served without a session: ``initialize`` is answered and forgotten, later
  requests are served at the version their ``MCP-Protocol-Version`` header names.
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
- The server cannot send requests to the client here: there is no channel for the answers.
  2025-era requests that need a human decision get the core's actionable error instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import anyio
import anyio.lowlevel

from sevdesk_mcp.errors import INVALID_REQUEST, HttpError, ProtocolError
from sevdesk_mcp.http.connection import SOCKET_ERRORS, Exchange
from sevdesk_mcp.http.messages import JSON_TYPE, Headers
from sevdesk_mcp.mcp import jsonrpc, streamable
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import PeerRequestError
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.types import MODERN_VERSION, Era, JsonObject

SSE_TYPE: Final = "text/event-stream"
MCP_HEADER_PREFIX: Final = "mcp-"
SSE_HEADERS: Final = [("content-type", SSE_TYPE), ("x-accel-buffering", "no")]
SEND_FAILED: Final = "the connection failed while answering"


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
        notification: JsonObject = {"jsonrpc": "2.0", "method": method, "params": params}
        try:
            await self.send_event(jsonrpc.encode(notification))
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
                await exchange.start(200, SSE_HEADERS)
                self.streaming = True
            await exchange.send(b"event: message\ndata: " + data + b"\n\n")

    async def request(self, method: str, params: JsonObject, timeout_s: float) -> JsonObject:
        """:raises PeerRequestError: always."""
        raise PeerRequestError("Requests to the client are not possible over stateless HTTP.")


class McpRoute:
    """The handler of ``POST /mcp``.

    :param build_app: returns a fresh :class:`McpApp` (the factory's ``build(account)``).
    :param principal: who the requests act for (bound into sealed request state).
    """

    def __init__(
        self, build_app: Callable[[], McpApp], *, principal: str, max_body_bytes: int
    ) -> None:
        self._build_app = build_app
        self._principal = principal
        self._max_body_bytes = max_body_bytes

    async def __call__(self, exchange: Exchange) -> None:
        """Serve one POST.

        :raises HttpError: 415 for another media type, the body's refusals (413, 408, 400).
        """
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
            await exchange.respond(202, [])

    async def _request(self, exchange: Exchange, request: jsonrpc.Request) -> None:
        """Answer with JSON, or with an event stream once a notification comes first (or when
        the client takes only event streams)."""
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
        peer = HttpPeer(exchange if _accepts_stream(headers) else None)
        conn = streamable.open_connection(request, meta, headers, peer, self._principal)
        answer, data = await Dispatcher(self._build_app()).handle_encoded(request, conn, meta)
        status = streamable.http_status(answer, era)
        if peer.streaming or (status == 200 and not _accepts_json(headers)):
            await peer.send_event(data)
            await exchange.finish()
        else:
            await _send_encoded(exchange, status, answer, data)


async def _send_json(exchange: Exchange, status: int, answer: JsonObject) -> None:
    await _send_encoded(exchange, status, answer, jsonrpc.encode(answer))


async def _send_encoded(exchange: Exchange, status: int, answer: JsonObject, data: bytes) -> None:
    """Send ``answer``, already encoded as ``data``."""
    error = answer.get("error")
    if isinstance(error, dict):
        exchange.notes["rpc_error"] = str(error.get("code"))
    await exchange.respond(status, [("content-type", JSON_TYPE)], data)


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


def _method_note(message: jsonrpc.Message) -> str:
    return message.method if isinstance(message, jsonrpc.Notification) else "response"
