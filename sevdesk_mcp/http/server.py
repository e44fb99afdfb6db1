"""The listener: accepts connections up to the cap and serves each in its own task.

- At most ``max_connections`` connections are served at once; one more is closed at once.
- An accept that fails (out of file descriptors, EMFILE) is logged and retried after
  :data:`ACCEPT_BACKOFF_S`; the loop never dies of it.
- :meth:`HttpServer.serve` runs until cancelled; shutting down is the caller's order:
  drain the lifecycle (running requests get their grace), then cancel.
"""

from __future__ import annotations

import logging
from typing import Final

import anyio
import anyio.abc
from anyio.abc import SocketAttribute

from sevdesk_mcp.http.connection import HttpConnection, Wiring

ACCEPT_BACKOFF_S: Final = 0.1
log = logging.getLogger("sevdesk_mcp.http")


async def open_listeners(host: str, port: int) -> list[anyio.abc.SocketListener]:
    """Bind ``host:port``.

    :returns: the listeners (one per address ``host`` resolves to).
    :raises OSError: if the address cannot be bound.
    """
    multi = await anyio.create_tcp_listener(local_host=host, local_port=port, reuse_port=False)
    return [
        listener for listener in multi.listeners if isinstance(listener, anyio.abc.SocketListener)
    ]


def bound_port(listeners: list[anyio.abc.SocketListener]) -> int:
    """:returns: the port the listeners are bound to."""
    port: int = listeners[0].extra(SocketAttribute.local_port)  # noqa: S610 - not Django
    return port


class HttpServer:
    """Serves connections from listeners with one :class:`Wiring`."""

    def __init__(self, listeners: list[anyio.abc.SocketListener], wiring: Wiring) -> None:
        self._listeners = listeners
        self._wiring = wiring
        self.connections = 0

    async def serve(self) -> None:
        """Accept and serve connections until cancelled; then close everything."""
        try:
            async with anyio.create_task_group() as tg:
                for listener in self._listeners:
                    tg.start_soon(self._accept_loop, listener, tg)
        finally:
            with anyio.CancelScope(shield=True):
                for listener in self._listeners:
                    await listener.aclose()

    async def _accept_loop(
        self, listener: anyio.abc.SocketListener, tg: anyio.abc.TaskGroup
    ) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                log.warning("accepting a connection failed (%s); retrying", exc.strerror or exc)
                await anyio.sleep(ACCEPT_BACKOFF_S)
                continue
            if self.connections >= self._wiring.limits.max_connections:
                await stream.aclose()  # over the cap: closed at once, before reading a byte
                continue
            self.connections += 1
            tg.start_soon(self._serve_connection, stream)

    async def _serve_connection(self, stream: anyio.abc.SocketStream) -> None:
        try:
            peer = _peer_address(stream)
            await HttpConnection(stream, peer, self._wiring).serve()
        except Exception:
            log.exception("a connection failed unexpectedly")
        finally:
            self.connections -= 1


def _peer_address(stream: anyio.abc.SocketStream) -> str:
    address = stream.extra(SocketAttribute.remote_address)  # noqa: S610 - not Django
    return str(address[0]) if isinstance(address, tuple) else str(address)
