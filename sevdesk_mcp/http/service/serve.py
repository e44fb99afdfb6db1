"""A bound HTTP service with its routes, and running it until told to stop: bearer mode's routes
(:func:`bind_service`), and the service OAuth mode runs too (its routes are wired by the command
line, ``cli.oauth``).

Routes:

========  ======  ===================================================  ======================
path      method  what                                                 access
========  ======  ===================================================  ======================
/mcp      POST    MCP, Streamable HTTP (``mcp_route``); with 2025-era  bearer secret
          GET,    sessions also the session's stream and its end
          DELETE  (``mcp_stream``)
/healthz  GET     ``{"status":"ok"}``; 503 while shutting down, or     open, no Host check
                  while the shared state (Redis) does not answer
========  ======  ===================================================  ======================

Shutdown: when ``stop`` is set, ``/healthz`` answers 503, new MCP requests get 503, running
requests get ``shutdown_grace_s`` (10 s, the grace of every transport) to finish; then the stop
is forced (``mcp.shutdown``): a write still waiting for sevDesk ends (audited as
``outcome_unknown``) and answers its client with a result naming ``outcome_unknown`` within
``mcp.shutdown.ANSWER_S`` (6 s); then every request still running is cancelled and every
connection is closed. A connection
that finished its last answer may still drain the client's bytes for ``linger_s`` (2 s).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, Protocol

import anyio
import msgspec

from sevdesk_mcp.http.auth import BearerAuth
from sevdesk_mcp.http.connection import Exchange, Handler, Wiring
from sevdesk_mcp.http.hardening import security_headers
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.messages import JSON_TYPE
from sevdesk_mcp.http.router import Route, Router
from sevdesk_mcp.http.server import HttpServer, bound_port, open_listeners
from sevdesk_mcp.http.service.mcp_route import STREAM_METHODS, McpRoute
from sevdesk_mcp.http.sessions import MemorySessionStore, SessionStore
from sevdesk_mcp.http.settings import HttpSettings, Site, derive_site
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.shutdown import ANSWER_S, Shutdown, serving

if TYPE_CHECKING:
    from sevdesk_mcp.http.ratelimit import RateLimits
    from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore

log = logging.getLogger("sevdesk_mcp.http")

HEALTHY: Final = b'{"status":"ok"}'
SHUTTING_DOWN: Final = b'{"status":"shutting down"}'
NO_STATE: Final = b'{"status":"shared state unavailable"}'

Probe = Callable[[], Awaitable[bool]]
Task = Callable[..., Coroutine[Any, Any, None]]  # started with ``task_status``


class SharedBackend(Protocol):
    """The stores several instances share (``SEVDESK_HTTP_STATE_URL``), as the HTTP stack uses
    them; the command line builds them (``cli.scaleout.SharedStores``)."""

    @property
    def sessions(self) -> RedisSessionStore | None:
        """The 2025-era sessions (``None`` with ``SEVDESK_HTTP_SESSIONS=off``)."""
        ...

    def rates(self, limits: Limits, limiter: str = "clients") -> RateLimits:
        """:returns: the token buckets of ``limiter`` (client addresses, accounts, ...)."""
        ...

    async def healthy(self) -> bool:
        """:returns: whether this instance can serve (``/healthz``)."""
        ...


def health_handler(lifecycle: Lifecycle, state: Probe | None = None) -> Handler:
    """:returns: the handler of ``GET /healthz``.

    :param state: asks the shared state whether it answers (with ``SEVDESK_HTTP_STATE_URL``):
        an instance that cannot reach it is taken out of the load balancer's rotation.
    """

    async def health(exchange: Exchange) -> None:
        if lifecycle.draining:
            status, body = 503, SHUTTING_DOWN
        elif state is not None and not await state():
            status, body = 503, NO_STATE
        else:
            status, body = 200, HEALTHY
        await exchange.respond(status, [("content-type", JSON_TYPE)], body)

    return health


def session_store(settings: HttpSettings, given: SessionStore | None) -> SessionStore | None:
    """:returns: the store of 2025-era sessions: ``given``, or a new one in memory; ``None``
    with ``SEVDESK_HTTP_SESSIONS=off``."""
    if not settings.sessions:
        return None
    return given if given is not None else MemorySessionStore()


class HttpService(msgspec.Struct, frozen=True):
    """A bound, not yet running, HTTP server.

    :param site: the public URL and the allowed hosts and origins, known once bound.
    :param port: the bound port.
    """

    site: Site
    port: int
    server: HttpServer
    lifecycle: Lifecycle
    limits: Limits
    tasks: tuple[Task, ...] = ()

    async def run(self, stop: anyio.Event) -> None:
        """Serve until ``stop`` is set, then shut down gracefully (see the module docstring)."""
        shutdown = Shutdown()
        with serving(shutdown):  # before the server starts: its connections inherit it
            async with anyio.create_task_group() as tg:
                for task in self.tasks:  # the shared sessions' routing, subscribed first
                    await tg.start(task)
                tg.start_soon(self.server.serve)
                await stop.wait()
                grace_s = self.limits.shutdown_grace_s
                log.info("shutting down: running requests get %g seconds", grace_s)
                await self.lifecycle.drain(grace_s)
                shutdown.force()  # a write still sending ends as outcome_unknown ...
                await self.lifecycle.idle(ANSWER_S)  # ... and tells its client so
                tg.cancel_scope.cancel()


async def bind_service(  # noqa: PLR0913 - each is a separate, explicit input
    settings: HttpSettings,
    build_app: Callable[[], McpApp],
    *,
    principal: str,
    limits: Limits | None = None,
    access_log: AccessLog | None = None,
    sessions: SessionStore | None = None,
    shared: SharedBackend | None = None,
) -> HttpService:
    """Bind the configured address and wire the routes.

    :param build_app: returns the app serving a request (see :class:`~.mcp_route.McpRoute`).
    :param sessions: the session store (tests); with ``settings.sessions`` and none given, one
        in this process's memory.
    :param shared: the stores several instances share (``SEVDESK_HTTP_STATE_URL``): the rate
        limits, the sessions and the health probe then use them.
    :raises OSError: if the address cannot be bound.
    """
    limits = limits or Limits()
    listeners = await open_listeners(settings.host, settings.port)
    port = bound_port(listeners)
    site = derive_site(settings, port)
    lifecycle = Lifecycle()
    auth = BearerAuth(settings.secrets) if settings.auth == "bearer" else None
    if shared is not None:
        sessions = shared.sessions
    mcp = McpRoute(
        build_app,
        principal=principal,
        max_body_bytes=limits.mcp_max_body_bytes,
        sessions=session_store(settings, sessions),
    )
    router = Router(
        {
            "/mcp": Route(mcp.handlers(), streams=STREAM_METHODS),
            "/healthz": health_route(lifecycle, shared),
        },
        site,
        limits,
        auth=auth,
        lifecycle=lifecycle,
        rates=shared.rates(limits) if shared is not None else None,
    )
    wiring = Wiring(router, limits, security_headers(site), access_log or AccessLog(), lifecycle)
    server = HttpServer(listeners, wiring)
    return HttpService(site, port, server, lifecycle, limits, background(shared))


def health_route(lifecycle: Lifecycle, shared: SharedBackend | None) -> Route:
    """:returns: the open route of ``GET /healthz`` (asking Redis too when it is shared)."""
    probe = shared.healthy if shared is not None else None
    return Route({"GET": health_handler(lifecycle, probe)}, open_access=True)


def background(shared: SharedBackend | None) -> tuple[Task, ...]:
    """:returns: what runs beside the server: the shared sessions' answer routing."""
    if shared is None or shared.sessions is None:
        return ()
    return (shared.sessions.serve,)
