"""The router: the order in which every request meets the rules, then its route's handler.

1. the path is checked (400) and the client address resolved (``X-Forwarded-For``);
2. while shutting down, 503; ``Host`` must be allowed (421); both except on routes with open
   access (``/healthz``), which skip every rule up to the handler;
3. the client's token bucket (429 with ``Retry-After``), except on exempt routes; shared
   buckets (``ratelimit_shared``) fall back to this process's while Redis cannot be reached;
4. the route: 404 for an unknown path, 405 with ``Allow`` for another method;
5. the route's ``Origin`` policy (403; not on ``cross_origin`` routes, which use no cookies and
   answer with CORS) and authentication (401 with ``WWW-Authenticate``; not on ``public``
   routes such as the OAuth endpoints, which check their own credentials);
6. a slot among the requests in flight (429 per client, 503 overall);
7. the handler, which reads the body with its route's cap; the principal the authenticator
   vouched for is :data:`~sevdesk_mcp.http.auth.CURRENT_PRINCIPAL` meanwhile.

In bearer mode the OAuth discovery paths are answered with a 404 that says how to send the
secret instead (issue 14), so a client that tries OAuth after a 401 learns why it cannot.

A handler failing unexpectedly is answered with 500 and a short reference; the details go to the
log (redacted), never to the client. The shared state unreachable (``SEVDESK_HTTP_STATE_URL``:
:class:`~sevdesk_mcp.errors.StateUnavailableError` from any route) is 503 with its message and
``Retry-After``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Final

import msgspec

from sevdesk_mcp.errors import HttpError, StateUnavailableError
from sevdesk_mcp.http.auth import (
    BEARER_DISCOVERY_MESSAGE,
    CURRENT_PRINCIPAL,
    DISCOVERY_PATHS,
    Authenticator,
    BearerAuth,
)
from sevdesk_mcp.http.connection import SOCKET_ERRORS, Exchange, Handler
from sevdesk_mcp.http.hardening import (
    check_path,
    client_address,
    client_key,
    host_allowed,
    origin_allowed,
)
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.ratelimit import (
    RETRY_SOON,
    InflightLimiter,
    MemoryRateLimits,
    RateLimits,
)
from sevdesk_mcp.http.settings import Site

log = logging.getLogger("sevdesk_mcp.http")

_PASS_THROUGH: Final = (HttpError, *SOCKET_ERRORS)
STATE_RETRY: Final = (("retry-after", "5"),)


class Route(msgspec.Struct, frozen=True):
    """One path: its handlers per method and which rules apply to it."""

    handlers: Mapping[str, Handler]
    open_access: bool = False  # no Host, Origin, auth, rate or in-flight rules (health checks)
    public: bool = False  # no authentication (the OAuth endpoints check their own credentials)
    cross_origin: bool = False  # no Origin rule: no cookies, answered with CORS (OAuth)
    streams: frozenset[str] = frozenset()  # methods answered with a long-lived stream


class Router:
    """Applies the rules, then calls the route's handler.

    :param auth: the bearer check or the OAuth verifier, or ``None`` (tests and the
        conformance fixture only; the command line refuses to start without authentication).
    :param rates: the clients' token buckets; in this process by default, shared by every
        instance when given ``ratelimit_shared.RedisRateLimits``.
    """

    def __init__(  # noqa: PLR0913 - each collaborator is explicit, the optional ones by name
        self,
        routes: Mapping[str, Route],
        site: Site,
        limits: Limits,
        *,
        auth: Authenticator | None = None,
        lifecycle: Lifecycle | None = None,
        rates: RateLimits | None = None,
    ) -> None:
        self._routes = routes
        self._lifecycle = lifecycle or Lifecycle()
        self._site = site
        self._auth = auth
        self._rates = rates or MemoryRateLimits(limits)
        self.inflight = InflightLimiter(limits)

    async def __call__(self, exchange: Exchange) -> None:
        """Serve one request.

        :raises HttpError: for every refusal; the connection answers it.
        """
        try:
            await self._serve(exchange)
        except _PASS_THROUGH:
            raise
        except StateUnavailableError as exc:  # any route: never a 500, never this process's state
            raise HttpError(503, str(exc), headers=STATE_RETRY) from None
        except Exception:
            reference = secrets.token_hex(4)
            log.exception(
                "internal error on %s (reference %s)", exchange.request.path[:100], reference
            )
            raise HttpError(500, f"Internal error (reference {reference}).") from None

    async def _serve(self, exchange: Exchange) -> None:
        request = exchange.request
        check_path(request.path)
        exchange.client = client_address(request.peer, request.headers, self._site.trust_proxy)
        route = self._routes.get(request.path)
        if route is not None and route.open_access:
            await self._handler(route, exchange)(exchange)
            return
        key = client_key(exchange.client)
        await self._guard(exchange, key)
        handler = self._handler(route, exchange)
        assert route is not None  # _handler refused a missing route
        if not route.cross_origin and not origin_allowed(request.headers, self._site):
            raise HttpError(403, "This Origin is not allowed.")
        principal = None
        if self._auth is not None and not route.public:
            principal = self._auth.check(request.headers)
        if principal is not None:
            exchange.notes["principal"] = principal.principal
        reset = CURRENT_PRINCIPAL.set(principal)
        try:
            streams = request.method in route.streams
            with self.inflight.slot(key, stream=streams):
                await handler(exchange)
        finally:
            CURRENT_PRINCIPAL.reset(reset)

    async def _guard(self, exchange: Exchange, key: str) -> None:
        if self._lifecycle.draining:
            raise HttpError(503, "The server is shutting down.", headers=RETRY_SOON)
        if not host_allowed(exchange.request.headers, self._site):
            raise HttpError(421, "This Host is not served here.")
        wait_s = await self._rates.retry_after_s(key)
        if wait_s is not None:
            raise HttpError(429, "Too many requests.", headers=(("retry-after", str(wait_s)),))

    def _handler(self, route: Route | None, exchange: Exchange) -> Handler:
        if route is None:
            if isinstance(self._auth, BearerAuth) and exchange.request.path in DISCOVERY_PATHS:
                raise HttpError(404, BEARER_DISCOVERY_MESSAGE)
            raise HttpError(404, "Not found.")
        handler = route.handlers.get(exchange.request.method)
        if handler is None:
            allow = ", ".join(sorted(route.handlers))
            raise HttpError(405, "Method not allowed.", headers=(("allow", allow),))
        exchange.notes["route"] = exchange.request.path
        return handler
