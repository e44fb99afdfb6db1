"""Serving a fake sevDesk over HTTP on the loopback interface.

:func:`serve_fake` runs the server in a background thread for tests and other programs;
:func:`run_fake_server` serves the demo company in the foreground for
``mcp-server-sevdesk fake-sevdesk --port N``. Only loopback hosts are accepted: the fake has
no real authentication worth the name and must never face a network.

Faults behave as on the httpx transport: a reset closes the socket without an answer; a
timeout after a write applies the change, holds the socket ``faults.timeout_hold_s`` seconds,
then closes it without an answer.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Final
from urllib.parse import parse_qsl, unquote, urlsplit

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo import build_demo
from sevdesk_mcp.fake.exchange import Action, Incoming, Outcome
from sevdesk_mcp.fake.transport import API_PREFIX, api_path

log = logging.getLogger("sevdesk_mcp.fake")

POLL_INTERVAL_S: Final = 0.05


def require_loopback(host: str) -> None:
    """Refuse any host that is not a loopback address.

    :raises ValueError: for other hosts, including names other than ``localhost``.
    """
    if host == "localhost":
        return
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"the fake sevDesk serves on loopback only, not on {host!r}") from None
    if not address.is_loopback:
        raise ValueError(f"the fake sevDesk serves on loopback only, not on {host!r}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], fake: FakeSevdesk) -> None:
        self.fake = fake
        super().__init__(address, _Handler)


class _Server6(_Server):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        """Answer any method from the fake; a reset or timeout closes without an answer."""
        fake = self.server.fake
        if fake.faults.latency_s > 0:
            time.sleep(fake.faults.latency_s)
        outcome = fake.handle(self._incoming())
        if outcome.action is Action.ANSWER:
            self._answer(outcome)
            return
        if outcome.action is Action.TIMEOUT:
            time.sleep(fake.faults.timeout_hold_s)
        self.close_connection = True

    do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

    def _incoming(self) -> Incoming:
        length = int(self.headers.get("Content-Length") or 0)
        split = urlsplit(self.path)
        return Incoming(
            method=self.command,
            path=api_path(unquote(split.path)),
            query=dict(parse_qsl(split.query, keep_blank_values=True)),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self.rfile.read(length) if length else b"",
        )

    def _answer(self, outcome: Outcome) -> None:
        self.send_response(outcome.status)
        for name, value in outcome.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(outcome.body)))
        self.end_headers()
        self.wfile.write(outcome.body)

    def log_message(self, format: str, *args: object) -> None:
        """Send the access log to the debug log instead of stderr."""
        log.debug("fake sevDesk: %s", format % args)


def _bind(fake: FakeSevdesk, host: str, port: int) -> _Server:
    require_loopback(host)
    server_class = _Server6 if ":" in host else _Server
    return server_class((host, port), fake)


def base_url(server: ThreadingHTTPServer) -> str:
    """:returns: ``http://HOST:PORT/api/v1`` for a bound server."""
    host, port = server.server_address[:2]
    shown = f"[{host!s}]" if ":" in str(host) else str(host)
    return f"http://{shown}:{port}{API_PREFIX}"


@contextlib.contextmanager
def serve_fake(fake: FakeSevdesk, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``fake`` over HTTP in a background thread while the block runs.

    :param port: the TCP port; 0 picks a free one.
    :returns: a context manager yielding the base URL, like ``http://127.0.0.1:PORT/api/v1``.
    :raises ValueError: for a host that is not a loopback address.
    :raises OSError: when the port cannot be bound.
    """
    server = _bind(fake, host, port)
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": POLL_INTERVAL_S},
        name="fake-sevdesk",
        daemon=True,
    )
    thread.start()
    try:
        yield base_url(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def run_fake_server(port: int, host: str = "127.0.0.1") -> None:
    """Serve the demo company in the foreground until Ctrl-C.

    Prints the base URL and the demo token to stderr.

    :raises ValueError: for a host that is not a loopback address.
    :raises OSError: when the port cannot be bound.
    """
    require_loopback(host)
    fake = build_demo()
    server = _bind(fake, host, port)
    sys.stderr.write(
        f"fake sevDesk (demo company) serving at {base_url(server)}\n"
        f"API token: {fake.token}\n"
        "Press Ctrl-C to stop.\n"
    )
    sys.stderr.flush()
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever(poll_interval=POLL_INTERVAL_S)
    finally:
        server.server_close()
