"""One HTTP/1.1 connection on h11: request reading, deadlines, body caps, pipelining, aborts.

Rules:

1. One request at a time, answered in order; pipelined requests wait in h11's buffer.
2. Deadlines per phase: an idle connection waits ``keepalive_idle_s`` for its next request
   (``header_deadline_s`` for its first); the head must be complete ``header_deadline_s`` after
   its first byte and the body ``receive_deadline_s`` after it (408 and close otherwise); the
   handler has ``request_deadline_s`` for the whole response (503 if nothing was sent yet).
   One cancel scope serves the whole connection; each phase moves its deadline (a scope per
   phase and request cost about 10 µs a request). Every expiry ends the connection, so the
   scope is never needed again once it fired; what is owed (nothing, 408 or 503) is answered
   after it, by the phase it fired in.
3. A refused head (malformed, smuggling, too large, too slow) is answered and the connection
   closed. h11 refuses conflicting lengths, bad chunks and oversized heads; this module adds
   what h11 tolerates: Content-Length together with Transfer-Encoding, Transfer-Encoding on
   HTTP/1.0, bare LF line endings, too many header lines and overlong targets.
4. A body over the route's cap is refused with 413 before more of it is read: at once when
   Content-Length announces it, as soon as the running total passes the cap when chunked.
5. One reader task per connection (``http.reader``) is the only one receiving from the socket;
   once a handler has the whole body, the end of the stream cancels the handler (the client
   left: :attr:`Exchange.aborted`, logged as 499).
6. A response sent before the body was read, the last request of a connection, and every
   refusal carry ``Connection: close``; every response carries the base (security) headers.
7. A connection the server ends is closed gracefully: our side first, then what the client
   still sends is drained for a bounded time, so a refusal is not lost to a TCP reset.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Final

import anyio
import anyio.abc
import h11
import msgspec

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.limits import READ_CHUNK_BYTES, Limits
from sevdesk_mcp.http.log import AccessLog, AccessRecord
from sevdesk_mcp.http.messages import JSON_TYPE, HeaderList, Headers, Request
from sevdesk_mcp.http.reader import SOCKET_ERRORS, Reader

__all__ = ["CLIENT_CLOSED", "SOCKET_ERRORS", "Exchange", "Handler", "HttpConnection", "Wiring"]

Handler = Callable[["Exchange"], Awaitable[None]]
HeadEvent = h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]

CLIENT_CLOSED: Final = 499  # logged only (nginx's convention); never sent
IDLE, HEAD, HANDLER = "idle", "head", "handler"  # the phases of the connection's deadline
_REASONS: Final = {status.value: status.phrase.encode("ascii") for status in HTTPStatus}
_FRAMING: Final = frozenset({"connection", "content-length", "transfer-encoding"})
_json_encoder = msgspec.json.Encoder()


def header_block(headers: HeaderList) -> bytes:
    """:returns: ``headers`` as the lines h11 would write for them, checked by h11 once.

    :raises h11.LocalProtocolError: for a name or value h11 would refuse to send.
    :raises ValueError: for a header that decides the framing (h11 must see those).
    """
    if any(name.lower() in _FRAMING for name, _ in headers):
        raise ValueError("framing headers cannot be fixed headers of every response")
    response = h11.Response(status_code=200, headers=headers)
    return b"".join(b"%s: %s\r\n" % pair for pair in response.headers.raw_items())


@dataclass(frozen=True, slots=True)
class Wiring:
    """What every connection of a server shares.

    :ivar base_block: ``base_headers`` as bytes, validated once when the wiring is built and
        written into every response head as is (h11 validates only the per-response headers).
    """

    handler: Handler
    limits: Limits
    base_headers: HeaderList
    log: AccessLog
    lifecycle: Lifecycle
    base_block: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "base_block", header_block(self.base_headers))


class Exchange:
    """One request and its response, as a handler sees it.

    :ivar client: the client address; the router replaces the socket peer by the address from
        ``X-Forwarded-For`` when proxies are trusted.
    :ivar notes: extra fields for the request's log line (route, MCP method, ...).
    :ivar aborted: why the answer was given up (the client left, or the connection failed while
        answering), or ``None``; logged as ``aborted``, and as status 499 if nothing was sent.
    :ivar body_read: whether the request's body has been read (or it has none).
    """

    __slots__ = (
        "_conn",
        "_last",
        "aborted",
        "body_read",
        "client",
        "notes",
        "request",
        "sent_bytes",
        "status",
    )

    def __init__(self, conn: HttpConnection, request: Request, *, last: bool) -> None:
        self.request = request
        self.client = request.peer
        self.notes: dict[str, str] = {}
        self.status: int | None = None
        self.sent_bytes = 0
        self.aborted: str | None = None
        self.body_read = False
        self._conn = conn
        self._last = last

    async def read_body(self, max_bytes: int) -> bytes:
        """:returns: the whole body.

        :raises HttpError: 413 over ``max_bytes``, 408 past the receive deadline, 400 if malformed.
        """
        return await self._conn.read_body(self, max_bytes)

    async def respond(self, status: int, headers: HeaderList, body: bytes = b"") -> None:
        """Send a complete response, in one write (the head alone for a ``HEAD`` request).

        :raises h11.LocalProtocolError: for a header h11 refuses to send.
        """
        conn = self._conn.h11
        head = self._head(status, [*headers, ("content-length", str(len(body)))])
        body = b"" if self.request.method == "HEAD" else body
        data = (conn.send(h11.Data(data=body)) or b"") if body else b""
        await self._conn.write(head + data + (conn.send(h11.EndOfMessage()) or b""))
        self.status = status
        self.sent_bytes += len(body)

    async def start(self, status: int, headers: HeaderList) -> None:
        """Send the status line and headers; the body follows with :meth:`send`.

        :raises h11.LocalProtocolError: for a header h11 refuses to send.
        """
        await self._conn.write(self._head(status, headers))
        self.status = status

    def _head(self, status: int, headers: HeaderList) -> bytes:
        """:returns: the response head: h11 writes it from ``headers`` (and keeps its state),
        the connection's fixed headers are put in right after the status line."""
        if self._last or self._conn.h11.their_state is not h11.DONE:
            headers = [*headers, ("connection", "close")]
        reason = _REASONS.get(status, b"")
        event = h11.Response(status_code=status, headers=headers, reason=reason)
        head = self._conn.h11.send(event) or b""
        line_end = head.index(b"\r\n") + 2
        return head[:line_end] + self._conn.wiring.base_block + head[line_end:]

    def abort(self, reason: str) -> None:
        """Give the answer up (the client left, or the connection failed): the handler is
        cancelled at its next checkpoint, and the request logged as ``aborted``."""
        self._conn.abort(self, reason)

    async def send(self, data: bytes) -> None:
        """Send a piece of the body."""
        self.sent_bytes += len(data)
        await self._conn.send(h11.Data(data=data))

    async def finish(self) -> None:
        """End the response."""
        await self._conn.send(h11.EndOfMessage())


class HttpConnection:
    """Serves the requests of one accepted socket."""

    def __init__(self, stream: anyio.abc.ByteStream, peer: str, wiring: Wiring) -> None:
        self.wiring = wiring
        limits = wiring.limits
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.max_header_bytes)
        self._stream = stream
        self._reader = Reader(stream, self.h11, limits.max_header_bytes + limits.mcp_max_body_bytes)
        self._peer = peer
        self._first_byte_at = 0.0
        self._deadline = anyio.CancelScope()  # the connection's, moved per phase (rule 2)
        self._phase = IDLE
        self._handling = False  # a handler runs: cancelling the scope cancels it
        self._current: Exchange | None = None  # the exchange not logged yet
        self._started = 0.0  # when the current exchange started (monotonic)

    async def serve(self) -> None:
        """Serve requests until the client leaves, a limit ends the connection, or it fails."""
        linger = False
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._reader.run)
                linger = await self._serve_requests()
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                if linger:
                    await self._linger()
                await self._stream.aclose()

    async def _serve_requests(self) -> bool:
        """:returns: whether to linger: the server ends the connection, the client has not."""
        try:
            await self._loop()
        except SOCKET_ERRORS:
            return False  # the client went away; nothing left to answer
        return not self._reader.closed

    async def _linger(self) -> None:
        """Close our side, then drain the client's ("lingering close"), within bounds."""
        limits = self.wiring.limits
        budget = limits.max_header_bytes + limits.mcp_max_body_bytes
        with anyio.move_on_after(limits.linger_s):
            try:
                await self._stream.send_eof()
                while budget > 0:
                    with anyio.fail_after(limits.linger_idle_s):
                        budget -= len(await self._stream.receive(READ_CHUNK_BYTES))
            except (TimeoutError, anyio.EndOfStream, *SOCKET_ERRORS):
                return

    async def _loop(self) -> None:
        """Serve the requests within the connection's deadline scope; answer a refusal or an
        expired deadline after it.

        :raises OSError: (or anyio's broken or closed resource error) if the socket failed.
        """
        try:
            try:
                with self._deadline:
                    await self._requests()
            except HttpError as exc:
                await self._refuse(exc, self._current)
                return
            if self._deadline.cancelled_caught:
                await self._expired()
        finally:
            if self._current is not None:
                self._log(self._current, self._started)

    async def _requests(self) -> None:
        """:raises HttpError: for a refused head or request (answered by :meth:`_loop`)."""
        limits = self.wiring.limits
        for number in range(1, limits.max_requests_per_connection + 1):
            request = await self._next_request(first=number == 1)
            if request is None:
                return
            last = number == limits.max_requests_per_connection or self.wiring.lifecycle.draining
            if not await self._exchange(request, last=last):
                return
            self.h11.start_next_cycle()

    async def _expired(self) -> None:
        """Answer what the phase whose deadline fired owes (or the aborted exchange's end)."""
        if self._phase == HEAD:
            await self._refuse(HttpError(408, "The request headers did not arrive in time."), None)
            return
        exchange = self._current
        if self._phase != HANDLER or exchange is None or exchange.aborted is not None:
            return  # idle too long: nothing to answer; aborted: nobody to answer
        exchange.notes["deadline"] = "exceeded"
        if exchange.status is None:
            await self._refuse(
                HttpError(503, "The request took too long and was stopped."), exchange
            )

    def _move_deadline(self, phase: str, deadline: float) -> None:
        self._phase = phase
        self._deadline.deadline = deadline

    async def _next_request(self, *, first: bool) -> Request | None:
        """:returns: the next request's head, checked; ``None`` if the client closed.

        :raises HttpError: 431, 414 or 400 for a refused head.
        """
        limits = self.wiring.limits
        if not self._buffered():
            idle = limits.header_deadline_s if first else limits.keepalive_idle_s
            self._move_deadline(IDLE, anyio.current_time() + idle)
            await self._reader.wait()
            if not self._buffered():
                return None  # closed between requests: nothing to answer
        self._first_byte_at = anyio.current_time()
        event = self._head_event()
        if event is h11.NEED_DATA:  # only then is a deadline needed (a whole head costs none)
            self._move_deadline(HEAD, self._first_byte_at + limits.header_deadline_s)
            event = await self._read_head()
        if isinstance(event, h11.Request):
            return self._check_head(event)
        return None  # the client closed the connection

    async def _read_head(self) -> HeadEvent:
        while (event := self._head_event()) is h11.NEED_DATA:
            await self._reader.wait()
        return event

    def _head_event(self) -> HeadEvent:
        """:returns: the next event from what is buffered (``NEED_DATA`` if the head is not
        complete yet).

        :raises HttpError: 431 or 400 for a head that is too large or malformed.
        """
        self._check_raw_head(self.h11.trailing_data[0])
        try:
            return self.h11.next_event()
        except h11.RemoteProtocolError as exc:
            status = 431 if exc.error_status_hint == 431 else 400
            raise HttpError(status, "Malformed or oversized request head.") from None

    def _check_raw_head(self, buffered: bytes) -> None:
        # h11 caps only a head that is still incomplete; a complete one arriving in one read
        # is measured here, before h11 parses it.
        end = buffered.find(b"\r\n\r\n")
        raw_head = buffered if end < 0 else buffered[: end + 4]
        if len(raw_head) > self.wiring.limits.max_header_bytes:
            raise HttpError(431, "The request head is too large.")
        if raw_head.count(b"\n") != raw_head.count(b"\r\n"):  # a LF without its CR
            raise HttpError(400, "Malformed request: bare LF line endings.")

    def _check_head(self, event: h11.Request) -> Request:
        limits = self.wiring.limits
        headers = Headers(event.headers)
        if len(headers) > limits.max_header_count:
            raise HttpError(431, "Too many header lines.")
        if len(event.target) > limits.max_target_bytes:
            raise HttpError(414, "The request target is too long.")
        if headers.get("transfer-encoding") is not None and (
            headers.get("content-length") is not None or event.http_version == b"1.0"
        ):
            raise HttpError(400, "Malformed request: ambiguous body framing.")
        target = event.target.decode("ascii", errors="replace")
        path, _, query = target.partition("?")
        method = event.method.decode("ascii", errors="replace")
        return Request(method=method, path=path, query=query, headers=headers, peer=self._peer)

    async def _exchange(self, request: Request, *, last: bool) -> bool:
        """Handle one request and log it (a refusal or an expired deadline is answered and
        logged by :meth:`_loop`).

        :returns: whether the connection may serve another request.
        :raises HttpError: for a refusal the handler raised, or 500 for no answer.
        """
        exchange = self._current = Exchange(self, request, last=last)
        self._started = time.monotonic()
        with self.wiring.lifecycle.handling():
            await self._handle(exchange)
        self._current = None
        self._log(exchange, self._started)
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    async def _handle(self, exchange: Exchange) -> None:
        """Run the handler within the request deadline.

        :raises HttpError: for a refusal the handler raised, or 500 for no answer.
        """
        self._move_deadline(HANDLER, anyio.current_time() + self.wiring.limits.request_deadline_s)
        self._handling = True
        try:
            if not exchange.request.has_body:
                self.h11.next_event()  # the EndOfMessage of an empty body
                self._body_done(exchange)
            await self.wiring.handler(exchange)
        except SOCKET_ERRORS:
            exchange.aborted = "the connection failed while answering"
        finally:
            self._reader.disarm()
            self._handling = False
        if exchange.aborted is None and exchange.status is None:
            raise HttpError(500, "The request was not answered.")

    def _body_done(self, exchange: Exchange) -> None:
        """From now on the client leaving cancels the handler (rule 5)."""
        exchange.body_read = True
        self._reader.arm(lambda reason: self.abort(exchange, reason))

    def abort(self, exchange: Exchange, reason: str) -> None:
        """Record why ``exchange`` is given up and cancel its running handler."""
        exchange.aborted = reason
        if self._handling:
            self._deadline.cancel()

    async def read_body(self, exchange: Exchange, max_bytes: int) -> bytes:
        """:returns: the body of the current request (see :meth:`Exchange.read_body`)."""
        if exchange.body_read:
            return b""  # no body was announced (or it was read already)
        length = exchange.request.headers.get("content-length")
        if length is not None and int(length.split(",")[0]) > max_bytes:
            raise HttpError(413, f"The body is larger than {max_bytes} bytes.")
        body = bytearray()
        if not self._take_chunks(body, max_bytes):  # a body read whole with its head needs no
            deadline = self._first_byte_at + self.wiring.limits.receive_deadline_s
            with anyio.CancelScope(deadline=deadline) as scope:  # deadline, nor a 100 Continue
                await self._continue()
                await self._read_chunks(body, max_bytes)
            if scope.cancelled_caught:
                raise HttpError(408, "The request body did not arrive in time.")
        self._body_done(exchange)
        return bytes(body)

    async def _continue(self) -> None:
        if self.h11.they_are_waiting_for_100_continue:
            await self.send(h11.InformationalResponse(status_code=100, headers=[]))

    async def _read_chunks(self, body: bytearray, max_bytes: int) -> None:
        while not self._take_chunks(body, max_bytes):
            await self._reader.wait()

    def _take_chunks(self, body: bytearray, max_bytes: int) -> bool:
        """Move the buffered body into ``body``.

        :returns: whether the body is complete (``False``: more must be received).
        :raises HttpError: 413 over ``max_bytes``, 400 if malformed or cut off.
        """
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError:
                raise HttpError(400, "Malformed request body.") from None
            if event is h11.NEED_DATA:
                return False
            if isinstance(event, h11.EndOfMessage):
                return True
            if not isinstance(event, h11.Data):
                raise HttpError(400, "The client closed the connection mid-body.")
            body += event.data
            if len(body) > max_bytes:
                raise HttpError(413, f"The body is larger than {max_bytes} bytes.")

    def _buffered(self) -> bool:
        return bool(self.h11.trailing_data[0])

    async def send(self, *events: h11.Event) -> None:
        """Write h11 events to the socket, in one write."""
        await self.write(b"".join(self.h11.send(event) or b"" for event in events))

    async def write(self, data: bytes) -> None:
        """Write bytes h11 produced to the socket (nothing for none)."""
        if data:
            await self._stream.send(data)

    async def _refuse(self, exc: HttpError, exchange: Exchange | None) -> None:
        """Answer a refusal; the connection closes after it.

        Written without h11: a refusal may follow an error that left h11 unable to send (a
        header value a handler got wrong), and nothing of the connection is reused after it.
        """
        if exchange is not None and exchange.status is not None:
            return  # the response had started: closing the connection is all that is left
        body = _json_encoder.encode({"error": exc.message})
        headers = [
            *self.wiring.base_headers,
            ("content-type", JSON_TYPE),
            ("content-length", str(len(body))),
            ("connection", "close"),
            *exc.headers,
        ]
        head = [f"HTTP/1.1 {exc.status} {HTTPStatus(exc.status).phrase}"]
        head += [f"{name}: {value}" for name, value in headers]
        await self._stream.send(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        if exchange is None:
            self.wiring.log.write(self._refusal_record(exc.status, len(body)))
        else:
            exchange.status, exchange.sent_bytes = exc.status, len(body)

    def _refusal_record(self, status: int, sent: int) -> AccessRecord:
        return AccessRecord(
            method="-",
            path="-",
            status=status,
            sent_bytes=sent,
            duration_s=0.0,
            client=self._peer,
            notes={},
        )

    def _log(self, exchange: Exchange, started: float) -> None:
        status, notes = exchange.status, exchange.notes
        if exchange.aborted is not None:
            notes = {**notes, "aborted": exchange.aborted}
            status = CLIENT_CLOSED if status is None else status
        self.wiring.log.write(
            AccessRecord(
                method=exchange.request.method,
                path=exchange.request.path,
                status=status or 0,
                sent_bytes=exchange.sent_bytes,
                duration_s=time.monotonic() - started,
                client=exchange.client,
                notes=notes,
            )
        )
