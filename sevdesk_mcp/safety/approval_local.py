"""The local page server for browser approval: h11 on anyio, in a thread of its own.

One per process (:func:`shared_pages`), started on first use, listening on ``127.0.0.1`` and
an ephemeral port only. It runs its own event loop in a daemon thread, so it serves the page
whatever the MCP transport is doing (over stdio the loop is busy reading the client). Each
connection carries one request and is closed after the answer. Limits: at most
:data:`MAX_CONNECTIONS` open connections (more are closed at once), request heads within
:data:`HEADER_DEADLINE_S` and of at most :data:`MAX_HEAD_BYTES` (h11 checks the size between
reads, so one read of :data:`READ_CHUNK_BYTES` may go over), bodies within
:data:`BODY_DEADLINE_S` and of at most :data:`MAX_BODY_BYTES`.
"""

from __future__ import annotations

import http
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
import h11

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.approval_page import ApprovalSite, Request, Response, page

LOOPBACK: Final = "127.0.0.1"
MAX_CONNECTIONS: Final = 16
MAX_HEAD_BYTES: Final = 16 * 1024
MAX_BODY_BYTES: Final = 8 * 1024
HEADER_DEADLINE_S: Final = 10.0
BODY_DEADLINE_S: Final = 10.0
SEND_DEADLINE_S: Final = 10.0
LINGER_S: Final = 1.0  # after answering, unread input is drained this long so no RST cuts it
MAX_LINGER_BYTES: Final = 64 * 1024
START_TIMEOUT_S: Final = 10.0
STOP_TIMEOUT_S: Final = 5.0
READ_CHUNK_BYTES: Final = 4096

log = logging.getLogger("sevdesk_mcp.approvals")
Handler = Callable[[Request], Response]


class PageServerError(ToolError):
    """The local approval page could not be started."""


class PageServer:
    """An HTTP/1.1 server on ``127.0.0.1`` and an ephemeral port, in a daemon thread.

    :param handler: answers one request; it runs on the server's thread.
    """

    def __init__(  # noqa: PLR0913 - each limit is a keyword with a safe default
        self,
        handler: Handler,
        *,
        max_connections: int = MAX_CONNECTIONS,
        header_deadline_s: float = HEADER_DEADLINE_S,
        body_deadline_s: float = BODY_DEADLINE_S,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_head_bytes: int = MAX_HEAD_BYTES,
    ) -> None:
        self._handler = handler
        self._max_connections = max_connections
        self._header_deadline_s = header_deadline_s
        self._body_deadline_s = body_deadline_s
        self._max_body_bytes = max_body_bytes
        self._max_head_bytes = max_head_bytes
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._host: str | None = None
        self._stop: Callable[[], None] | None = None
        self._active = 0

    @property
    def host(self) -> str:
        """:returns: ``127.0.0.1:<port>``, the value every request's ``Host`` must have.

        :raises PageServerError: if the server is not running.
        """
        if self._host is None:
            raise PageServerError(
                "The local approval page could not be started, so nothing can be approved. "
                "Check that this machine allows listening on 127.0.0.1. Nothing was changed."
            )
        return self._host

    def start(self) -> str:
        """Start the server unless it runs already.

        :returns: its ``host``.
        :raises PageServerError: if it cannot listen.
        """
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="sevdesk-approval-page", daemon=True
                )
                self._thread.start()
        self._ready.wait(START_TIMEOUT_S)
        return self.host

    def stop(self) -> None:
        """Stop the server and wait for its thread (for tests and shutdown)."""
        stop, thread = self._stop, self._thread
        if stop is not None:
            stop()
        if thread is not None:
            thread.join(STOP_TIMEOUT_S)

    def _run(self) -> None:
        try:
            anyio.run(self._main)
        except Exception:
            log.exception("The local approval page stopped")
        finally:
            self._host = None
            self._ready.set()

    async def _main(self) -> None:
        listener = await anyio.create_tcp_listener(local_host=LOOPBACK, local_port=0)
        async with listener, anyio.create_task_group() as group:
            port = listener.extra(anyio.abc.SocketAttribute.local_port)  # noqa: S610 - not Django
            token = anyio.lowlevel.current_token()
            self._stop = lambda: anyio.from_thread.run_sync(group.cancel_scope.cancel, token=token)
            self._host = f"{LOOPBACK}:{port}"
            self._ready.set()
            await listener.serve(self._connection, task_group=group)

    async def _connection(self, stream: anyio.abc.SocketStream) -> None:
        if self._active >= self._max_connections:
            await stream.aclose()
            return
        self._active += 1
        try:
            async with stream:
                response = await self._answer(stream)
                if response is not None:
                    with anyio.move_on_after(SEND_DEADLINE_S):
                        await stream.send(serialize(response))
                    await _linger(stream)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            log.debug("approval page: a connection broke")
        except Exception:  # one bad connection must never stop the page server
            log.exception("approval page: a connection failed")
        finally:
            self._active -= 1

    async def _answer(self, stream: anyio.abc.SocketStream) -> Response | None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=self._max_head_bytes)
        try:
            request = await self._read(stream, conn)
        except h11.RemoteProtocolError:
            return page(400, "Bad request", "The request could not be read.")
        if request is None or isinstance(request, Response):
            return request
        try:
            return self._handler(request)
        except Exception:
            log.exception("approval page: the handler failed")
            return page(500, "Error", "The approval page failed; see the server's log.")

    async def _read(
        self, stream: anyio.abc.SocketStream, conn: h11.Connection
    ) -> Request | Response | None:
        head: object = None
        with anyio.move_on_after(self._header_deadline_s):
            head = await _next_event(stream, conn)
        if head is None:
            return _too_slow()
        if not isinstance(head, h11.Request):
            return None
        problem = _head_problem(head, self._max_body_bytes)
        if problem is not None:
            return problem
        body: bytes | Response = _too_slow()
        with anyio.move_on_after(self._body_deadline_s):
            body = await self._body(stream, conn)
        if isinstance(body, Response):
            return body
        return _request(head, body, self.host)

    async def _body(self, stream: anyio.abc.SocketStream, conn: h11.Connection) -> bytes | Response:
        chunks: list[bytes] = []
        size = 0
        event = await _next_event(stream, conn)
        while isinstance(event, h11.Data):  # until EndOfMessage; h11 raises for a cut body
            size += len(event.data)
            if size > self._max_body_bytes:
                return _too_large()
            chunks.append(bytes(event.data))
            event = await _next_event(stream, conn)
        return b"".join(chunks)


async def _linger(stream: anyio.abc.SocketStream) -> None:
    """Close our side, then read and drop what the client still sends, briefly."""
    drained = 0
    with anyio.move_on_after(LINGER_S):
        try:
            await stream.send_eof()
            while drained < MAX_LINGER_BYTES:
                drained += len(await stream.receive(READ_CHUNK_BYTES))
        except anyio.EndOfStream:
            return


async def _next_event(stream: anyio.abc.SocketStream, conn: h11.Connection) -> object:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        try:
            data = await stream.receive(READ_CHUNK_BYTES)
        except anyio.EndOfStream:
            data = b""
        conn.receive_data(data)


def _head_problem(head: h11.Request, max_body_bytes: int) -> Response | None:
    names = [name.decode("latin-1") for name, _ in head.headers]
    if len(set(names)) != len(names):
        return page(400, "Bad request", "A header was sent twice.")
    for name, value in head.headers:
        if name == b"content-length" and int(value) > max_body_bytes:
            return _too_large()
    return None


def _too_slow() -> Response:
    return page(408, "Too slow", "The request did not arrive in time.")


def _too_large() -> Response:
    return page(413, "Too large", "The request body is too large.")


def _request(head: h11.Request, body: bytes, host: str) -> Request:
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in head.headers}
    return Request(
        method=head.method.decode("ascii"),
        target=head.target.decode("latin-1"),
        headers=headers,
        body=body,
        host=host,
    )


def serialize(response: Response) -> bytes:
    """:returns: the response as HTTP/1.1 bytes, closing the connection afterwards."""
    reason = http.HTTPStatus(response.status).phrase
    lines = [f"HTTP/1.1 {response.status} {reason}"]
    lines += [f"{name}: {value}" for name, value in response.headers]
    lines += [f"Content-Length: {len(response.body)}", "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1") + response.body


@dataclass(frozen=True, slots=True)
class Pages:
    """The approval site and the server that serves it."""

    site: ApprovalSite
    server: PageServer

    def link(self, approval_id: str) -> str:
        """:returns: the page link of an approval (secret: for the human, never the model)."""
        return f"http://{self.server.host}/a/{approval_id}"


_shared_lock: Final = threading.Lock()
_shared: list[Pages] = []


def shared_pages() -> Pages:
    """:returns: the process's approval pages, starting the server on first use.

    :raises PageServerError: if the server cannot listen.
    """
    with _shared_lock:
        if not _shared:
            site = ApprovalSite()
            _shared.append(Pages(site, PageServer(site.handle)))
        pages = _shared[0]
    pages.server.start()
    return pages
