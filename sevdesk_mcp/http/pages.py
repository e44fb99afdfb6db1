"""Pages for the user's browser on a loopback listener of their own: the approval page today.

A page app (:class:`PageApp`: a pure function from :class:`Request` to :class:`Response`, the
headers of every answer and a body cap; ``approval_page.ApprovalSite``) is served by the same
connection and listener code as MCP (``connection``, ``server``), with the limits of
:data:`PAGE_LIMITS`:

- ``127.0.0.1`` and an ephemeral port only; at most 16 connections (one more is closed at once);
- one request per connection, answered with ``Connection: close`` and a lingering close;
- heads of at most 16 KiB within 10 s of the first byte (the first byte within 10 s of the
  connection), the body within 10 s of the first byte and within the app's cap (8 KiB for the
  approval page; 413 at once when ``Content-Length`` announces more), 10 s for the answer;
- every rule of ``connection`` (smuggling, bare LF, header count and target length) applies;
  a request that repeats a header is refused (400): the page sees each header once;
- the app's headers on every answer, refusals included; a failing app is a 500 without details.

The app's own checks (``Host`` against DNS rebinding, ``Origin`` and ``Sec-Fetch-Site``, cookie,
CSRF) run on every request it gets. :class:`PageServer` runs the listener on an event loop of
its own in a daemon thread, so the page answers whatever the MCP transport's loop is doing
(ADR 0005); access lines go to the ``sevdesk_mcp.http.pages`` logger at debug level.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any, ClassVar, Final, Protocol

import anyio
import anyio.from_thread
import anyio.lowlevel
import msgspec

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.connection import Exchange, Handler, Wiring
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.limits import KIB, Limits
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.server import HttpServer, bound_port, open_listeners
from sevdesk_mcp.safety.approval_local import NOT_STARTED, PageServerError
from sevdesk_mcp.safety.redact import Undisclosed

LOOPBACK: Final = "127.0.0.1"
START_TIMEOUT_S: Final = 10.0
STOP_TIMEOUT_S: Final = 5.0
PAGE_LIMITS: Final = Limits(
    max_connections=16,
    max_connections_per_client=16,  # every connection comes from 127.0.0.1
    max_header_bytes=16 * KIB,
    mcp_max_body_bytes=8 * KIB,  # what the reader and the lingering close take in at most
    header_deadline_s=10.0,
    receive_deadline_s=10.0,
    request_deadline_s=10.0,
    max_requests_per_connection=1,
    linger_s=1.0,
)
log = logging.getLogger("sevdesk_mcp.http.pages")
_PAGE_ID: Final = re.compile(r"/a/[A-Za-z0-9_-]{43}")


class Request(msgspec.Struct, frozen=True):
    """One request to a page app.

    :param target: the request target as sent (path and query).
    :param headers: lower-case names; the listener refuses requests that repeat a header.
    :param host: the listener's own ``127.0.0.1:<port>``.
    """

    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    host: str

    def __rich_repr__(self) -> list[tuple[str, Any]]:  # msgspec's lists every field
        return [("request", repr(self))]

    def __repr__(self) -> str:  # the path (/a/<id>), query, cookie and form carry secrets
        path = _PAGE_ID.sub("/a/…", self.target.partition("?")[0])
        return f"Request({self.method} {path!r}, {len(self.body)} bytes)"

    def get_all(self, name: str) -> list[str]:
        """:returns: the header ``name`` as a list (the listener lets each through once)."""
        value = self.headers.get(name)
        return [] if value is None else [value]


class Response(Undisclosed, msgspec.Struct, frozen=True):
    """One answer of a page app; the listener adds the app's headers. Its repr shows neither
    the page (a CSRF token) nor the headers (a cookie)."""

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"headers"})

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


class PageApp(Protocol):
    """Pages for the user's browser, as a pure function; what a listener serves.

    A listener sends ``headers`` with every answer (its own refusals included), refuses a body
    over ``max_body_bytes`` (413) and a request that repeats a header (400), and passes every
    other request to ``handle`` whole. ``handle`` must be safe to call from another thread.
    """

    @property
    def headers(self) -> tuple[tuple[str, str], ...]:
        """The headers of every answer (CSP, framing, caching, ...)."""
        ...

    @property
    def max_body_bytes(self) -> int:
        """The largest request body passed to :meth:`handle`."""
        ...

    def handle(self, request: Request) -> Response:
        """:returns: the answer to ``request``; never raises for anything a client sends."""
        ...


def page_handler(app: PageApp, host: Callable[[], str]) -> Handler:
    """:returns: the handler that serves ``app``; ``host`` gives the listener's own
    ``127.0.0.1:<port>``."""

    async def handle(exchange: Exchange) -> None:
        request = exchange.request
        if len(request.headers.names()) != len(request.headers):
            raise HttpError(400, "A header was sent twice.")
        body = await exchange.read_body(app.max_body_bytes)
        target = f"{request.path}?{request.query}" if request.query else request.path
        headers = {name: request.headers.get(name) or "" for name in request.headers.names()}
        page = Request(request.method, target, headers, body, host())
        try:
            response = app.handle(page)
        except Exception:  # the page is ours; a bug in it must not end the listener
            log.exception("a page failed on /%s", request.path.split("/")[1][:20])  # no page id
            raise HttpError(500, "The page failed; see the server's log.") from None
        await exchange.respond(response.status, list(response.headers), response.body)

    return handle


class PageServer:
    """Serves a page app on ``127.0.0.1`` and an ephemeral port, from a daemon thread.

    :param app: the pages; :meth:`PageApp.handle` runs on the server's thread.
    :param limits: the listener's limits (:data:`PAGE_LIMITS` by default).
    """

    def __init__(self, app: PageApp, limits: Limits | None = None) -> None:
        self._app = app
        self._limits = limits or PAGE_LIMITS
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._host: str | None = None
        self._stop: Callable[[], None] | None = None

    @property
    def host(self) -> str:
        """:returns: ``127.0.0.1:<port>``, the value every request's ``Host`` must have.

        :raises PageServerError: if the server is not running.
        """
        if self._host is None:
            raise PageServerError(NOT_STARTED)
        return self._host

    def start(self) -> str:
        """Start the server unless it runs already.

        :returns: its ``host``.
        :raises PageServerError: if it cannot listen.
        """
        with self._lock:
            if self._thread is None or not self._thread.is_alive():  # never started, or ended
                self._ready.clear()
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
        listeners = await open_listeners(LOOPBACK, 0)
        host = f"{LOOPBACK}:{bound_port(listeners)}"
        wiring = Wiring(
            handler=page_handler(self._app, lambda: host),
            limits=self._limits,
            base_headers=list(self._app.headers),
            log=AccessLog(sink=log.debug),
            lifecycle=Lifecycle(),
        )
        with anyio.CancelScope() as scope:
            token = anyio.lowlevel.current_token()
            self._stop = lambda: anyio.from_thread.run_sync(scope.cancel, token=token)
            self._host = host
            self._ready.set()
            try:
                await HttpServer(listeners, wiring).serve()
            finally:
                self._stop = None
