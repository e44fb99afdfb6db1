"""OAuth mode's routes: the authorization server's beside ``/mcp``, and the bound service.

Routes (besides ``/mcp`` and ``/healthz``, as in bearer mode):

==========================================================  ==========  =====================
path                                                        methods     access
==========================================================  ==========  =====================
/.well-known/oauth-protected-resource[/mcp]                 GET         open, CORS ``*``
/.well-known/oauth-authorization-server, openid-configuration GET       open, CORS ``*``
/authorize                                                  GET, POST   consent cookie, CSRF
/token, /revoke                                             POST        the tokens, PKCE
/register (unless SEVDESK_HTTP_OAUTH_REGISTRATION=off)      POST        rate-limited per address
==========================================================  ==========  =====================

``/mcp`` runs each request in the account context of its grant: the router's authenticator is
:class:`~sevdesk_mcp.http.oauth.verifier.OAuthVerifier`, and ``apps`` (the command line wires the
account resolver and the server factory in; the HTTP layer knows no accounts) gives the app
builder for what it vouches for. The principal (``oauth:<account>:<grant>``) binds request state,
approvals and audit lines.

Every answer carries the page kit's CSP (:data:`~sevdesk_mcp.http.kit.headers.PUBLIC_CSP`)
instead of the bearer mode's stricter one (the pages need their one hashed stylesheet and the
upload page its script), and ``Referrer-Policy: same-origin`` instead of ``no-referrer``: under
``no-referrer`` browsers send ``Origin: null`` with the consent form, which the same-origin check
must refuse; cross-origin navigations still carry no referrer
(:func:`~sevdesk_mcp.http.kit.headers.public_headers`).

The command line binds and wires them (``cli.oauth.bind_oauth_service``): the grant store (the
file store in ``SEVDESK_HTTP_STATE_DIR``, or Redis with a shared state:
``redis_store.grant_store_for``), the inbox and file pages (``http.web``) and the rate limits.
When Redis cannot be reached, every route needing it answers 503 (the router answers every
:class:`StateUnavailableError` so).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

import anyio
import msgspec

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.auth import CURRENT_PRINCIPAL
from sevdesk_mcp.http.connection import Exchange, Handler
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.oauth import metadata
from sevdesk_mcp.http.oauth.authorize import authorize_get
from sevdesk_mcp.http.oauth.consent import authorize_post
from sevdesk_mcp.http.oauth.core import AuthServer
from sevdesk_mcp.http.oauth.register import REGISTRATION_LIMITS, register_endpoint
from sevdesk_mcp.http.oauth.revoke import revoke_endpoint
from sevdesk_mcp.http.oauth.token import token_endpoint
from sevdesk_mcp.http.oauth.verifier import GrantedAccess, OAuthVerifier
from sevdesk_mcp.http.ratelimit import MemoryRateLimits, RateLimits
from sevdesk_mcp.http.router import Route
from sevdesk_mcp.http.service.mcp_route import STREAM_METHODS, McpRoute
from sevdesk_mcp.http.service.serve import HttpService
from sevdesk_mcp.http.sessions import SessionStore
from sevdesk_mcp.http.settings import Site
from sevdesk_mcp.mcp.app import McpApp

AccountApps = Callable[[GrantedAccess], Awaitable[Callable[[], McpApp]]]


class OAuthMcpRoute:
    """``POST /mcp`` in OAuth mode: the MCP route of the request's account context.

    Besides the router's limit per client address, each sevDesk account has a token bucket of
    the same size (429 with ``Retry-After``): one account cannot use up the server for the
    others from many addresses or grants. The grant of the token is confirmed live first
    (:meth:`OAuthVerifier.confirm`).
    """

    def __init__(
        self,
        apps: AccountApps,
        limits: Limits,
        sessions: SessionStore | None,
        verifier: OAuthVerifier,
        rates: RateLimits | None = None,
    ) -> None:
        self._apps = apps
        self._verifier = verifier
        self._max_body_bytes = limits.mcp_max_body_bytes
        self._rates = rates or MemoryRateLimits(limits)
        self.sessions = sessions  # 2025-era sessions, bound to each grant's principal

    async def __call__(self, exchange: Exchange) -> None:
        """Serve one POST for the grant the verifier vouched for.

        :raises HttpError: 401 if no live grant was vouched for (the route is never public),
            429 over the account's rate.
        :raises StateUnavailableError: if a shared grant store cannot be reached.
        """
        access = CURRENT_PRINCIPAL.get()
        if not isinstance(access, GrantedAccess):
            raise HttpError(401, "Sign in: this server uses OAuth.")
        access = await self._verifier.confirm(access)
        CURRENT_PRINCIPAL.set(access)  # with its client's name (the inbox shows who asked)
        wait_s = await self._rates.retry_after_s(f"account:{access.account}")
        if wait_s is not None:
            raise HttpError(
                429, "Too many requests for this account.", headers=(("retry-after", str(wait_s)),)
            )
        build = await self._apps(access)
        route = McpRoute(
            build,
            principal=access.principal,
            max_body_bytes=self._max_body_bytes,
            sessions=self.sessions,
        )
        await route(exchange)

    def handlers(self) -> dict[str, Handler]:
        """:returns: the handlers of ``/mcp``: ``GET`` and ``DELETE`` only with sessions."""
        if self.sessions is None:
            return {"POST": self}
        return {"POST": self, "GET": self, "DELETE": self}


def oauth_routes(
    server: AuthServer,
    mcp: OAuthMcpRoute,
    health: Route,
    registration: RateLimits | None = None,
) -> dict[str, Route]:
    """:returns: every route of OAuth mode (those using the store answer 503 without it).

    :param health: the route of ``GET /healthz`` (``serve.health_route``).
    :param registration: the rate limit of ``/register`` per address (one in this process's
        memory unless given).
    """
    resource = metadata.document_handler(metadata.resource_metadata(server))
    authority = metadata.document_handler(metadata.server_metadata(server))
    routes = {
        "/mcp": Route(mcp.handlers(), streams=STREAM_METHODS),
        "/healthz": health,
        "/authorize": Route(
            {
                "GET": functools.partial(authorize_get, server),
                "POST": functools.partial(authorize_post, server),
            },
            public=True,
        ),
        "/token": _open_route(functools.partial(token_endpoint, server)),
        "/revoke": _open_route(functools.partial(revoke_endpoint, server)),
    }
    for path in metadata.RESOURCE_PATHS:
        routes[path] = _open_route(resource, "GET")
    for path in metadata.SERVER_PATHS:
        routes[path] = _open_route(authority, "GET")
    if server.settings.registration:
        limiter = registration or MemoryRateLimits(REGISTRATION_LIMITS)
        routes["/register"] = _open_route(functools.partial(register_endpoint, server, limiter))
    return routes


def _open_route(handler: Handler, method: str = "POST") -> Route:
    return Route(
        {method: handler, "OPTIONS": metadata.preflight},
        public=True,
        cross_origin=True,
    )


class OAuthService(msgspec.Struct, frozen=True):
    """A bound OAuth-mode server: the HTTP service, its authorization server and resolver."""

    http: HttpService
    server: AuthServer
    verifier: OAuthVerifier

    @property
    def site(self) -> Site:
        """:returns: the site (public URL, hosts, origins)."""
        return self.http.site

    async def server_verify(self, token: str) -> GrantedAccess:
        """:returns: what an access token vouches for (tests and benchmarks).

        :raises InvalidTokenError: if it is not valid.
        :raises StateUnavailableError: if a shared grant store cannot be reached.
        """
        return await self.verifier.verify(token)

    async def run(self, stop: anyio.Event) -> None:
        """Serve until ``stop`` is set (``HttpService.run``); then release the grant store."""
        try:
            await self.http.run(stop)
        finally:
            await self.server.store.aclose()
