"""Misbehaving servers on 127.0.0.1 for fetch failures: a port that refuses connections and a
socket server (plain TCP or TLS) whose answer a test writes byte for byte."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Respond = Callable[[socket.socket], None]


@contextmanager
def refusing_port() -> Iterator[int]:
    """:returns: a port on 127.0.0.1 that is bound but not listening: connections are refused
    (the port stays taken until the block ends, so nothing else can start listening on it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


@contextmanager
def socket_server(respond: Respond, tls: ssl.SSLContext | None = None) -> Iterator[int]:
    """Serve each connection with ``respond`` (after a TLS handshake with ``tls``, if given)
    until the block ends; :returns: the port."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn, contextlib.suppress(OSError):
                conn.settimeout(5)
                if tls is None:
                    respond(conn)
                    continue
                with tls.wrap_socket(conn, server_side=True) as wrapped:
                    respond(wrapped)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def read_request(conn: socket.socket) -> bytes:
    """:returns: the request head (up to the blank line), read from ``conn``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data
