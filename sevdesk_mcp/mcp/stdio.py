"""The stdio transport: newline-delimited JSON-RPC on stdin and stdout.

- stdout carries protocol frames only: :func:`claim_stdout` moves the real stdout to a private
  descriptor and points file descriptor 1 and ``sys.stdout`` at stderr, so a stray ``print`` or
  a chatty library cannot corrupt the stream (wire digest section 7.2).
- Each request runs in its own task; ``notifications/cancelled`` cancels it and no answer is sent.
- A frame longer than :data:`MAX_FRAME_BYTES` is answered with -32700 and skipped.
- On stdin EOF, or when the caller's ``stop`` event is set (SIGTERM, SIGINT), the server stops
  reading, fails its own pending requests to the client, gives running calls
  :data:`EOF_GRACE_S` to finish, then forces the stop (``mcp.shutdown``): the rest is
  cancelled, and a write still waiting for the upstream ends and is audited as unknown.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Final

import anyio
from anyio.abc import TaskGroup

from sevdesk_mcp.errors import INVALID_REQUEST, PARSE_ERROR
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.dispatcher import Connection, Dispatcher
from sevdesk_mcp.mcp.pending import PendingRequests
from sevdesk_mcp.mcp.shutdown import SHUTDOWN_GRACE_S, Shutdown, serving
from sevdesk_mcp.mcp.types import JsonObject, RequestId

MAX_FRAME_BYTES: Final = 1024 * 1024
EOF_GRACE_S: Final = SHUTDOWN_GRACE_S  # on EOF and on a signal: the grace of every transport
READ_CHUNK_BYTES: Final = 64 * 1024

Reader = Callable[[], Awaitable[bytes]]
Writer = Callable[[bytes], Awaitable[None]]


class StdioPeer:
    """Notifications and server-to-client requests over the same stream; the answers are routed
    by :class:`~sevdesk_mcp.mcp.pending.PendingRequests` (shared with HTTP sessions)."""

    def __init__(self, send: Callable[[JsonObject], Awaitable[None]]) -> None:
        self._send = send
        self._pending = PendingRequests()

    @property
    def can_request(self) -> bool:
        """:returns: ``True`` while stdin is open."""
        return not self._pending.closed

    async def notify(self, method: str, params: JsonObject) -> None:
        """Send a notification."""
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: JsonObject, timeout_s: float) -> JsonObject:
        """Send a request and wait for the answer.

        :raises PeerRequestError: on an error answer, EOF or the timeout.
        """
        return await self._pending.request(self._send, method, params, timeout_s)

    def deliver(self, response: jsonrpc.Response) -> None:
        """Hand a client's response to the request waiting for it; unknown ids are ignored."""
        self._pending.deliver(response)

    def close(self) -> None:
        """Fail every pending request: no answer can arrive after EOF."""
        self._pending.close()


class StdioServer:
    """Serves one client over a byte reader and writer."""

    def __init__(self, dispatcher: Dispatcher, reader: Reader, writer: Writer) -> None:
        self._dispatcher = dispatcher
        self._reader = reader
        self._writer = writer
        self._lock = anyio.Lock()
        self.peer = StdioPeer(self.send)
        self._conn = Connection(peer=self.peer)
        self._inflight: dict[RequestId, anyio.CancelScope] = {}
        self._idle = anyio.Event()

    async def send(self, message: JsonObject) -> None:
        """Write one frame; frames never interleave."""
        await self._send_frame(jsonrpc.encode(message))

    async def _send_frame(self, data: bytes) -> None:
        async with self._lock:
            await self._writer(data + b"\n")

    async def serve(self, stop: anyio.Event | None = None) -> None:
        """Serve until stdin closes or ``stop`` is set, then finish or cancel the running calls.

        Running calls get :data:`EOF_GRACE_S`; then the stop is forced (see ``mcp.shutdown``).
        """
        shutdown = Shutdown()
        with serving(shutdown):
            async with anyio.create_task_group() as tg:
                await self._read(tg, stop or anyio.Event())
                self.peer.close()
                if self._inflight:
                    with anyio.move_on_after(EOF_GRACE_S):
                        await self._idle.wait()
                shutdown.force()
                tg.cancel_scope.cancel()

    async def _read(self, tg: TaskGroup, stop: anyio.Event) -> None:
        """Read and dispatch frames until stdin closes or ``stop`` is set."""
        async with anyio.create_task_group() as reading:
            reading.start_soon(_cancel_when_set, stop, reading.cancel_scope)
            async for frame in _frames(self._reader):
                await self._receive(frame, tg)
            reading.cancel_scope.cancel()

    async def _receive(self, frame: bytes | None, tg: TaskGroup) -> None:
        if frame is None:
            await self.send(jsonrpc.error_answer(None, PARSE_ERROR, "Parse error: frame too large"))
            return
        message = jsonrpc.decode(frame)
        if isinstance(message, jsonrpc.Rejected):
            await self.send(message.answer)
        elif isinstance(message, jsonrpc.Response):
            self.peer.deliver(message)
        elif isinstance(message, jsonrpc.Notification):
            self._notification(message)
        elif message.id in self._inflight:
            answer = f"Invalid request: the id {message.id!r} is already in flight"
            await self.send(jsonrpc.error_answer(None, INVALID_REQUEST, answer))
        else:
            scope = self._inflight[message.id] = anyio.CancelScope()
            self._idle = anyio.Event()
            tg.start_soon(self._run, message, scope)

    def _notification(self, message: jsonrpc.Notification) -> None:
        if message.method != "notifications/cancelled":
            return  # notifications/initialized and anything unknown: nothing to do, no answer
        request_id = message.params.get("requestId")
        if jsonrpc.valid_id(request_id) and request_id in self._inflight:
            self._inflight[request_id].cancel()

    async def _run(self, request: jsonrpc.Request, scope: anyio.CancelScope) -> None:
        try:
            with scope:
                _, data = await self._dispatcher.handle_encoded(request, self._conn)
                await self._send_frame(data)
        finally:
            del self._inflight[request.id]
            if not self._inflight:
                self._idle.set()


async def _cancel_when_set(event: anyio.Event, scope: anyio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def _frames(reader: Reader) -> AsyncIterator[bytes | None]:
    """Yield the non-blank lines of the stream; ``None`` for a line over the size cap."""
    buffer = b""
    skipping = False
    while chunk := await reader():
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            if skipping:
                skipping = False
            elif len(line) > MAX_FRAME_BYTES:
                yield None
            elif line.strip():
                yield line
        if len(buffer) > MAX_FRAME_BYTES:
            if not skipping:
                yield None
            buffer, skipping = b"", True
    if buffer.strip() and not skipping:
        yield buffer


def claim_stdout() -> int:
    """Reserve the real stdout for protocol frames and send everything else to stderr.

    :returns: a private file descriptor for the protocol stream.
    """
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_fd


def fd_reader(fd: int) -> Reader:
    """:returns: a reader of ``fd``. A pipe, socket or terminal is waited for on the event loop;
    anything the loop cannot wait for (a regular file, ``/dev/null``, Windows, anyio before
    4.7) is read in a worker thread, which costs a thread hand-off per read."""
    pollable = _pollable(fd)

    async def read() -> bytes:
        nonlocal pollable
        if pollable:
            try:
                await anyio.wait_readable(fd)
            except OSError:  # the kernel refuses to poll this descriptor after all
                pollable = False
            else:
                return os.read(fd, READ_CHUNK_BYTES)  # readable: returns at once, b"" at EOF
        return await anyio.to_thread.run_sync(os.read, fd, READ_CHUNK_BYTES, abandon_on_cancel=True)

    return read


def _pollable(fd: int) -> bool:
    """:returns: whether ``fd`` is a kind of descriptor the event loop may wait for."""
    if sys.platform == "win32" or not hasattr(anyio, "wait_readable"):
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def fd_writer(fd: int) -> Writer:
    """:returns: a writer that writes whole frames to ``fd``."""

    async def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    return write
