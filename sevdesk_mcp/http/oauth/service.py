"""OAuth mode wired: the authorization server's routes beside ``/mcp``, bound and run.

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

The grant store is the file store in ``SEVDESK_HTTP_STATE_DIR``, or Redis when the command line
passes a shared state (``redis_store.grant_store_for``); when Redis cannot be reached, every
route needing it answers 503 (the router answers every :class:`StateUnavailableError` so).
"""

from __future__ import annotations

import functools
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import anyio
import msgspec

from sevdesk_mcp.config import Config
from sevdesk_mcp.errors import HttpError, StartupError
from sevdesk_mcp.http.auth import CURRENT_PRINCIPAL
from sevdesk_mcp.http.connection import Exchange, Handler, Wiring
from sevdesk_mcp.http.hardening import security_headers
from sevdesk_mcp.http.kit.headers import public_headers
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.mcp_route import McpRoute
from sevdesk_mcp.http.oauth import metadata
from sevdesk_mcp.http.oauth.authorize import authorize_get
from sevdesk_mcp.http.oauth.cimd import CimdFetcher
from sevdesk_mcp.http.oauth.cimd_body import document_trust
from sevdesk_mcp.http.oauth.clients import ClientResolver
from sevdesk_mcp.http.oauth.consent import authorize_post
from sevdesk_mcp.http.oauth.core import AuthServer, Identify
from sevdesk_mcp.http.oauth.redis_store import grant_store_for
from sevdesk_mcp.http.oauth.register import REGISTRATION_LIMITS, register_endpoint
from sevdesk_mcp.http.oauth.revoke import revoke_endpoint
from sevdesk_mcp.http.oauth.seal import Sealer
from sevdesk_mcp.http.oauth.store import GrantStore
from sevdesk_mcp.http.oauth.token import token_endpoint
from sevdesk_mcp.http.oauth.verifier import GrantedAccess, OAuthVerifier
from sevdesk_mcp.http.ratelimit import MemoryRateLimits, RateLimits
from sevdesk_mcp.http.router import Route, Router
from sevdesk_mcp.http.serve import HttpService, background, health_route, session_store
from sevdesk_mcp.http.server import HttpServer, bound_port, open_listeners
from sevdesk_mcp.http.sessions import SessionStore
from sevdesk_mcp.http.settings import HttpSettings, Site, derive_site, limits_for
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.http.web.routes import with_web
from sevdesk_mcp.mcp.app import McpApp

AccountApps = Callable[[GrantedAccess], Awaitable[Callable[[], McpApp]]]
if TYPE_CHECKING:
    from sevdesk_mcp.http.scaleout import SharedStores

log = logging.getLogger("sevdesk_mcp.http")


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
    lifecycle: Lifecycle,
    shared: SharedStores | None = None,
) -> dict[str, Route]:
    """:returns: every route of OAuth mode (those using the store answer 503 without it)."""
    resource = metadata.document_handler(metadata.resource_metadata(server))
    authority = metadata.document_handler(metadata.server_metadata(server))
    routes = {
        "/mcp": Route(mcp.handlers()),
        "/healthz": health_route(lifecycle, shared),
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
        limiter: RateLimits = MemoryRateLimits(REGISTRATION_LIMITS)
        if shared is not None:
            limiter = shared.rates(REGISTRATION_LIMITS, "register")
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


class OAuthSeams(msgspec.Struct, frozen=True):
    """Test seams of OAuth mode.

    :param transport: the sevDesk transport (the fake's in tests; the network otherwise).
    :param verify: TLS verification for metadata-document fetches (``True``: certifi's
        authorities and those of ``SEVDESK_HTTP_OAUTH_CA_FILE``).
    :param store: the grant store (the file store in the state directory otherwise; the
        command line passes ``redis_store.grant_store_for(...)``).
    """

    verify: ssl.SSLContext | bool = True
    store: GrantStore | None = None
    clock: Callable[[], float] = time.time
    web: WebHub | None = None  # the inbox and file pages (``http.web``), when wired
    shared: SharedStores | None = None  # SEVDESK_HTTP_STATE_URL: every store on Redis


async def bind_oauth_service(  # noqa: PLR0913 - each is a separate, explicit input
    settings: HttpSettings,
    config: Config,
    *,
    identify: Identify,
    apps: AccountApps,
    limits: Limits | None = None,
    access_log: AccessLog | None = None,
    seams: OAuthSeams | None = None,
) -> OAuthService:
    """Bind the configured address and wire OAuth mode.

    :raises OSError: if the address cannot be bound.
    :raises StartupError: if the state directory is unusable or locked by another process.
    """
    assert settings.oauth is not None  # load_http_settings sets it in OAuth mode
    seams = seams or OAuthSeams()
    limits = limits or Limits()
    shared = seams.shared
    store = seams.store or grant_store_for(settings.oauth, shared.state if shared else None)
    try:
        listeners = await open_listeners(settings.host, settings.port)
    except OSError:
        await store.aclose()
        raise
    port = bound_port(listeners)
    site = derive_site(settings, port)
    trust = seams.verify if seams.verify is not True else document_trust(settings.oauth.ca_pem)
    fetcher = CimdFetcher(allow_loopback=settings.oauth.loopback_clients, verify=trust)
    server = AuthServer(
        site=site,
        sealer=Sealer(settings.secrets),
        store=store,
        clients=ClientResolver(store, fetcher, settings.oauth.client_hosts),
        allowed=config.tiers,
        identify=identify,
        settings=settings.oauth,
        clock=seams.clock,
    )
    lifecycle = Lifecycle()
    verifier = OAuthVerifier(server)
    sessions = shared.sessions if shared is not None else session_store(settings, None)
    rates = shared.rates(limits, "accounts") if shared is not None else None
    mcp = OAuthMcpRoute(apps, limits, sessions, verifier, rates)
    routes = with_web(
        oauth_routes(server, mcp, lifecycle, shared), seams.web, server, settings.secrets[0]
    )
    client_rates = shared.rates(limits) if shared is not None else None
    router = Router(routes, site, limits, auth=verifier, lifecycle=lifecycle, rates=client_rates)
    headers = public_headers(security_headers(site))
    wiring = Wiring(router, limits, headers, access_log or AccessLog(), lifecycle)
    serving = HttpServer(listeners, wiring)
    http = HttpService(site, port, serving, lifecycle, limits, background(shared))
    return OAuthService(http, server, verifier)


def serve_oauth(  # noqa: PLR0913 - each is a separate, explicit input
    config: Config,
    settings: HttpSettings,
    *,
    identify: Identify,
    apps: AccountApps,
    until_stopped: Callable[[Callable[[anyio.Event], Awaitable[None]]], Awaitable[None]],
    web: WebHub | None = None,
    shared: SharedStores | None = None,
) -> int:
    """Run OAuth mode until SIGTERM or SIGINT (the command line's ``--http``); ``web``: the
    inbox and file pages; ``shared``: the stores on the shared state (``SEVDESK_HTTP_STATE_URL``),
    which then hold the grants instead of ``SEVDESK_HTTP_STATE_DIR`` (the caller closes it).

    :returns: 0.
    :raises StartupError: if the address cannot be bound or the state directory is unusable.
    """

    async def run() -> None:
        assert settings.oauth is not None  # load_http_settings sets it in OAuth mode
        try:
            service = await bind_oauth_service(
                settings,
                config,
                identify=identify,
                apps=apps,
                limits=limits_for(settings),
                seams=OAuthSeams(web=web, shared=shared),
            )
        except OSError as exc:
            where = f"{settings.host}:{settings.port}"
            raise StartupError(f"cannot listen on {where} ({exc.strerror or exc})") from None
        log.info("serving MCP at %s (OAuth authentication)", service.site.mcp_url)
        await until_stopped(service.run)

    anyio.run(run)
    return 0
