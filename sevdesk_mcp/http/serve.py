"""Wiring: a bound HTTP service with its routes, and running it until told to stop.

Routes:

========  ======  ===================================================  ======================
path      method  what                                                 access
========  ======  ===================================================  ======================
/mcp      POST    MCP, Streamable HTTP (``mcp_route``); with 2025-era  bearer secret
          GET,    sessions also the session's stream and its end
          DELETE  (``mcp_stream``)
/healthz  GET     ``{"status":"ok"}``; 503 while shutting down         open, no Host check
========  ======  ===================================================  ======================

Shutdown: when ``stop`` is set, ``/healthz`` answers 503, new MCP requests get 503, running
requests get ``shutdown_grace_s`` (10 s, the grace of every transport) to finish; then the stop
is forced (``mcp.shutdown``): every request still running is cancelled, a write still waiting for
sevDesk included (audited as ``outcome_unknown``), and every connection is closed. A connection
that finished its last answer may still drain the client's bytes for ``linger_s`` (2 s).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import anyio

from sevdesk_mcp.http.auth import BearerAuth
from sevdesk_mcp.http.connection import Exchange, Handler, Wiring
from sevdesk_mcp.http.hardening import security_headers
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.mcp_route import McpRoute
from sevdesk_mcp.http.messages import JSON_TYPE
from sevdesk_mcp.http.router import Route, Router
from sevdesk_mcp.http.server import HttpServer, bound_port, open_listeners
from sevdesk_mcp.http.sessions import MemorySessionStore, SessionStore
from sevdesk_mcp.http.settings import HttpSettings, Site, derive_site
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.shutdown import Shutdown, serving

log = logging.getLogger("sevdesk_mcp.http")

HEALTHY: Final = b'{"status":"ok"}'
SHUTTING_DOWN: Final = b'{"status":"shutting down"}'


def health_handler(lifecycle: Lifecycle) -> Handler:
    """:returns: the handler of ``GET /healthz``."""

    async def health(exchange: Exchange) -> None:
        draining = lifecycle.draining
        body = SHUTTING_DOWN if draining else HEALTHY
        await exchange.respond(503 if draining else 200, [("content-type", JSON_TYPE)], body)

    return health


def routes(
    build_app: Callable[[], McpApp],
    *,
    principal: str,
    limits: Limits,
    lifecycle: Lifecycle,
    sessions: SessionStore | None = None,
) -> dict[str, Route]:
    """:returns: the routes of the MCP server."""
    mcp = McpRoute(
        build_app, principal=principal, max_body_bytes=limits.mcp_max_body_bytes, sessions=sessions
    )
    return {
        "/mcp": Route(mcp.handlers()),
        "/healthz": Route({"GET": health_handler(lifecycle)}, open_access=True),
    }


def session_store(settings: HttpSettings, given: SessionStore | None) -> SessionStore | None:
    """:returns: the store of 2025-era sessions: ``given``, or a new one in memory; ``None``
    with ``SEVDESK_HTTP_SESSIONS=off``."""
    if not settings.sessions:
        return None
    return given if given is not None else MemorySessionStore()


@dataclass(frozen=True, slots=True)
class HttpService:
    """A bound, not yet running, HTTP server.

    :param site: the public URL and the allowed hosts and origins, known once bound.
    :param port: the bound port.
    """

    site: Site
    port: int
    server: HttpServer
    lifecycle: Lifecycle
    limits: Limits

    async def run(self, stop: anyio.Event) -> None:
        """Serve until ``stop`` is set, then shut down gracefully (see the module docstring)."""
        shutdown = Shutdown()
        with serving(shutdown):  # before the server starts: its connections inherit it
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.server.serve)
                await stop.wait()
                grace_s = self.limits.shutdown_grace_s
                log.info("shutting down: running requests get %g seconds", grace_s)
                await self.lifecycle.drain(grace_s)
                shutdown.force()
                tg.cancel_scope.cancel()


async def bind_service(  # noqa: PLR0913 - each is a separate, explicit input
    settings: HttpSettings,
    build_app: Callable[[], McpApp],
    *,
    principal: str,
    limits: Limits | None = None,
    access_log: AccessLog | None = None,
    sessions: SessionStore | None = None,
) -> HttpService:
    """Bind the configured address and wire the routes.

    :param build_app: returns a fresh app per request (the server factory's ``build``).
    :param sessions: the session store (tests); with ``settings.sessions`` and none given, one
        in this process's memory.
    :raises OSError: if the address cannot be bound.
    """
    limits = limits or Limits()
    listeners = await open_listeners(settings.host, settings.port)
    port = bound_port(listeners)
    site = derive_site(settings, port)
    lifecycle = Lifecycle()
    auth = BearerAuth(settings.secrets) if settings.auth == "bearer" else None
    router = Router(
        routes(
            build_app,
            principal=principal,
            limits=limits,
            lifecycle=lifecycle,
            sessions=session_store(settings, sessions),
        ),
        site,
        limits,
        auth=auth,
        lifecycle=lifecycle,
    )
    wiring = Wiring(router, limits, security_headers(site), access_log or AccessLog(), lifecycle)
    return HttpService(site, port, HttpServer(listeners, wiring), lifecycle, limits)
