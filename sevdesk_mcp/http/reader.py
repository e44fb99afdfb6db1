"""The one reader of a connection: the only task that receives from its socket.

It runs for the whole connection, not per request. Everything it receives goes into the
connection's h11 buffer, and the request loop waiting for bytes (:meth:`Reader.wait`) is woken.
While a handler runs with its whole body read, the end of the stream or a socket error calls the
abort callback the connection armed (:meth:`Reader.arm`): the client has gone, nobody will read
the answer, so the handler is cancelled. A request pipelined behind the running one is simply
kept in the buffer for later.

Back-pressure: once ``budget`` bytes arrived that the request loop did not ask for (it asks when
it needs more of a head or body), the reader stops receiving until it is asked again, so a client
that pipelines without reading its answers meets TCP's flow control instead of our memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import anyio
import anyio.abc
import h11

from sevdesk_mcp.http.limits import READ_CHUNK_BYTES

SOCKET_ERRORS: Final = (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)
CLIENT_GONE: Final = "client closed the connection"

OnClose = Callable[[str], None]


class Reader:
    """Receives a connection's bytes into its h11 buffer, for the connection's whole life.

    :ivar closed: the stream ended or failed; nothing more will arrive.
    """

    def __init__(self, stream: anyio.abc.ByteStream, conn: h11.Connection, budget: int) -> None:
        self.closed = False
        self._stream = stream
        self._conn = conn
        self._budget = budget
        self._unasked = 0  # bytes received since the request loop last asked for more
        self._failure: BaseException | None = None
        self._arrived = anyio.Event()
        self._asked = anyio.Event()
        self._on_close: OnClose | None = None

    async def run(self) -> None:
        """Receive until the stream ends or fails; socket errors end it, never escape it."""
        while not self.closed:
            if self._unasked >= self._budget:  # enough unasked-for bytes: let TCP push back
                self._asked = anyio.Event()
                await self._asked.wait()
                continue
            await self._receive()
        if self._on_close is not None:
            self._on_close(CLIENT_GONE)

    async def _receive(self) -> None:
        try:
            data = await self._stream.receive(READ_CHUNK_BYTES)
        except anyio.EndOfStream:
            data = b""
        except SOCKET_ERRORS as exc:
            self._failure = exc
            self.closed = True
            self._arrived.set()
            return
        self._conn.receive_data(data)  # b"" tells h11 the stream ended
        self._unasked += len(data)
        self.closed = not data
        self._arrived.set()

    async def wait(self) -> None:
        """Wait until more bytes are in the buffer, or the stream ended (h11 then knows it).

        :raises OSError: (or anyio's broken or closed resource error) if the socket failed.
        """
        if not self.closed:
            self._unasked = 0
            self._asked.set()
            self._arrived = anyio.Event()
            await self._arrived.wait()
        if self._failure is not None:
            raise self._failure

    def arm(self, on_close: OnClose) -> None:
        """Call ``on_close`` with the reason once the client leaves (at once if it has left)."""
        if self.closed:
            on_close(CLIENT_GONE)
        else:
            self._on_close = on_close

    def disarm(self) -> None:
        """Forget the callback of :meth:`arm`."""
        self._on_close = None
