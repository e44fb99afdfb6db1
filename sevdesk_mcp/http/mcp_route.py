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
  gets every answer as a stream. ``Accept`` is never a reason to refuse (no 406).
- The server cannot send requests to the client here: there is no channel for the answers.
  2025-era requests that need a human decision get the core's actionable error instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from sevdesk_mcp.errors import INVALID_REQUEST, HttpError, ProtocolError
from sevdesk_mcp.http.connection import SOCKET_ERRORS, Exchange
from sevdesk_mcp.http.messages import JSON_TYPE, Headers
from sevdesk_mcp.mcp import jsonrpc, streamable
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import PeerRequestError
from sevdesk_mcp.mcp.dispatcher import Connection, Dispatcher
from sevdesk_mcp.mcp.envelope import RequestMeta
from sevdesk_mcp.mcp.types import MODERN_VERSION, Era, JsonObject

SSE_TYPE: Final = "text/event-stream"
MCP_HEADER_PREFIX: Final = "mcp-"
MAX_QUEUED_MESSAGES: Final = 64
SSE_HEADERS: Final = [("content-type", SSE_TYPE), ("x-accel-buffering", "no")]

_Kind = Literal["notification", "answer"]
_Out = tuple[_Kind, JsonObject]


class HttpPeer:
    """The way back to the client during one request: notifications only, no requests."""

    def __init__(self, send: MemoryObjectSendStream[_Out] | None) -> None:
        self._send = send

    @property
    def can_request(self) -> bool:
        """:returns: ``False``: stateless HTTP has no channel for the client's answers."""
        return False

    async def notify(self, method: str, params: JsonObject) -> None:
        """Queue a notification for the response stream; dropped if the client takes none."""
        if self._send is not None:
            notification: JsonObject = {"jsonrpc": "2.0", "method": method, "params": params}
            await self._send.send(("notification", notification))

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
        """Serve one POST."""
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
        if meta is not None and _quiet(meta) and _accepts_json(headers):
            await self._answer(exchange, request, meta)
            return
        send, receive = anyio.create_memory_object_stream[_Out](MAX_QUEUED_MESSAGES)
        peer = HttpPeer(send if _accepts_stream(headers) else None)
        conn = streamable.open_connection(request, meta, headers, peer, self._principal)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._dispatch, request, conn, meta, send)
            try:
                await _deliver(exchange, receive, era, json_ok=_accepts_json(headers))
            except SOCKET_ERRORS:  # handled here: the task group would wrap it in a group
                exchange.aborted = "the connection failed while answering"
                tg.cancel_scope.cancel()

    async def _answer(
        self, exchange: Exchange, request: jsonrpc.Request, meta: RequestMeta
    ) -> None:
        """Serve a 2026-07-28 request that cannot notify, as JSON: no stream, no second task."""
        conn = Connection(peer=HttpPeer(None), principal=self._principal)
        answer = await Dispatcher(self._build_app()).handle(request, conn, meta)
        await _send_json(exchange, streamable.http_status(answer, "modern"), answer)

    async def _dispatch(
        self,
        request: jsonrpc.Request,
        conn: Connection,
        meta: RequestMeta | None,
        send: MemoryObjectSendStream[_Out],
    ) -> None:
        async with send:
            answer = await Dispatcher(self._build_app()).handle(request, conn, meta)
            await send.send(("answer", answer))


async def _deliver(
    exchange: Exchange, receive: MemoryObjectReceiveStream[_Out], era: Era, *, json_ok: bool
) -> None:
    """Answer with JSON, or switch to an event stream once a notification comes first."""
    streaming = False
    async with receive:
        async for kind, message in receive:
            status = streamable.http_status(message, era) if kind == "answer" else 200
            if not streaming and (status != 200 or (kind == "answer" and json_ok)):
                await _send_json(exchange, status, message)
                return
            if not streaming:
                await exchange.start(200, SSE_HEADERS)
                streaming = True
            await exchange.send(b"event: message\ndata: " + jsonrpc.encode(message) + b"\n\n")
    if streaming:
        await exchange.finish()


async def _send_json(exchange: Exchange, status: int, answer: JsonObject) -> None:
    error = answer.get("error")
    if isinstance(error, dict):
        exchange.notes["rpc_error"] = str(error.get("code"))
    await exchange.respond(status, [("content-type", JSON_TYPE)], jsonrpc.encode(answer))


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


def _quiet(meta: RequestMeta) -> bool:
    """:returns: whether serving a 2026-07-28 request cannot send notifications: they need a
    ``progressToken`` or a log level in its ``_meta``, so a client that accepts JSON gets one
    JSON object. (On the 2025 era a server may log unasked, so it always gets the stream.)"""
    return meta.progress_token is None and meta.log_level is None


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
