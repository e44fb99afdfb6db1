"""The listener: accepts connections up to the cap and serves each in its own task.

- At most ``max_connections`` connections are served at once, and at most
  ``max_connections_per_client`` from one client address (the socket peer; IPv6 counted per
  /64, as the rate limit does); one more is closed at once, before a byte is read or written.
  Answering it (503) would mean waiting for the client to read the answer, and holding sockets
  open is the attack. An address's first refusal is logged (again only after all its
  connections closed), naming the settings to check behind a reverse proxy.
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
from sevdesk_mcp.http.hardening import client_key

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
        self.per_client: dict[str, int] = {}  # an entry only while its address has connections
        self._warned: set[str] = set()  # addresses at their cap whose refusal was logged

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
            peer = _peer_address(stream)
            if peer is None or not self._admit(client_key(peer)):
                await stream.aclose()  # gone already, or over a cap: closed before any byte
                continue
            tg.start_soon(self._serve_connection, stream, peer)

    def _admit(self, key: str) -> bool:
        """Count a new connection from ``key`` if both caps allow it.

        :returns: whether it is admitted.
        """
        limits = self._wiring.limits
        if self.connections >= limits.max_connections:
            return False
        held = self.per_client.get(key, 0)
        if held >= limits.max_connections_per_client:
            if key not in self._warned:
                self._warned.add(key)
                log.warning(
                    "%s holds %d connections, the cap per client address; more are closed. "
                    "Behind a reverse proxy set SEVDESK_HTTP_TRUST_PROXY; to allow more, raise "
                    "SEVDESK_HTTP_CONNECTIONS_PER_CLIENT",
                    key,
                    held,
                )
            return False
        self.connections += 1
        self.per_client[key] = held + 1
        return True

    def _release(self, key: str) -> None:
        self.connections -= 1
        held = self.per_client.pop(key) - 1
        if held:
            self.per_client[key] = held
        else:
            self._warned.discard(key)  # logged again only after the address let go entirely

    async def _serve_connection(self, stream: anyio.abc.SocketStream, peer: str) -> None:
        try:
            await HttpConnection(stream, peer, self._wiring).serve()
        except Exception:
            log.exception("a connection failed unexpectedly")
        finally:
            self._release(client_key(peer))


def _peer_address(stream: anyio.abc.SocketStream) -> str | None:
    """:returns: the peer's address, or ``None`` if the client has disconnected already."""
    address = stream.extra(SocketAttribute.remote_address, None)  # noqa: S610 - not Django
    if address is None:
        return None
    return str(address[0]) if isinstance(address, tuple) else str(address)
