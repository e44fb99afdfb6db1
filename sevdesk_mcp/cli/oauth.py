"""``--http`` in OAuth mode: each user connects their own sevDesk account; with ``--demo`` the
demo books stand in for sevDesk (their token is accepted on the consent page).

Built here: the identity lookup and the account resolver (one pacer per sevDesk account), the
server factory and the account apps, the inbox and file pages (``http.web``), the grant store
(the file store in ``SEVDESK_HTTP_STATE_DIR``, or Redis with the shared state), the rate limits,
the authorization server and the routes of ``http.oauth.service``, bound and run. The HTTP stack
knows no accounts, and its rooms never reach up for their parts: they are handed in.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import ssl
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio
import msgspec

from sevdesk_mcp.cli.demo import DEMO_API_URL, DEMO_BANNER, demo_books
from sevdesk_mcp.cli.http import HttpSetup, closing, listening, server_factory
from sevdesk_mcp.cli.run import pacers_of, pages_in, until_stopped
from sevdesk_mcp.config import Config
from sevdesk_mcp.http.connection import Wiring
from sevdesk_mcp.http.hardening import security_headers
from sevdesk_mcp.http.kit.headers import public_headers
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import AccessLog, install_access_logger
from sevdesk_mcp.http.oauth.cimd import CimdFetcher
from sevdesk_mcp.http.oauth.cimd_body import document_trust
from sevdesk_mcp.http.oauth.clients import ClientResolver
from sevdesk_mcp.http.oauth.core import AuthServer, Identify
from sevdesk_mcp.http.oauth.redis_store import grant_store_for
from sevdesk_mcp.http.oauth.register import REGISTRATION_LIMITS
from sevdesk_mcp.http.oauth.seal import Sealer
from sevdesk_mcp.http.oauth.service import AccountApps, OAuthMcpRoute, OAuthService, oauth_routes
from sevdesk_mcp.http.oauth.store import GrantStore
from sevdesk_mcp.http.oauth.verifier import OAuthVerifier
from sevdesk_mcp.http.router import Router
from sevdesk_mcp.http.server import HttpServer, bound_port, open_listeners
from sevdesk_mcp.http.service.serve import HttpService, background, health_route, session_store
from sevdesk_mcp.http.settings import HttpSettings, derive_site, limits_for
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.http.web.routes import with_web

if TYPE_CHECKING:
    from sevdesk_mcp.accounts.identity import IdentityLookup
    from sevdesk_mcp.accounts.resolver import GrantedAccess
    from sevdesk_mcp.cli.scaleout import SharedStores
    from sevdesk_mcp.mcp.app import McpApp

http_log = logging.getLogger("sevdesk_mcp.http")


def serve_oauth(setup: HttpSetup, *, demo: bool) -> int:
    """Run OAuth mode until SIGTERM or SIGINT; with the shared state, Redis holds the grants
    instead of ``SEVDESK_HTTP_STATE_DIR`` and is closed once the server has stopped.

    :returns: 0.
    :raises StartupError: if the address cannot be bound or the state directory is unusable.
    """
    settings, shared = setup.settings, setup.shared
    install_access_logger()
    wiring = oauth_wiring(setup.config, settings, demo=demo, shared=shared)

    async def run() -> None:
        with listening(settings):
            service = await bind_oauth_service(
                settings,
                wiring.config,
                identify=wiring.lookup,
                apps=wiring.apps,
                limits=limits_for(settings),
                seams=OAuthSeams(web=wiring.web, shared=shared),
            )
        http_log.info("serving MCP at %s (OAuth authentication)", service.site.mcp_url)
        async with closing(shared):
            await until_stopped(service.run)

    anyio.run(run)
    return 0


@dataclasses.dataclass(frozen=True, slots=True)
class OAuthWiring:
    """OAuth mode's parts, before binding: the configuration (with ``--demo`` on the demo
    books' API root), the identity lookup, the account apps and the pages."""

    config: Config
    lookup: IdentityLookup
    apps: AccountApps
    web: WebHub


def oauth_wiring(
    config: Config, settings: HttpSettings, *, demo: bool, shared: SharedStores | None
) -> OAuthWiring:
    """:returns: OAuth mode's parts; with ``demo`` the demo books serve the API and their
    export storage (:func:`~sevdesk_mcp.cli.demo.demo_books`), as over stdio and in bearer
    mode. The tools that need files are offered only with file transfer on
    (``SEVDESK_HTTP_FILES``).

    :raises ConfigError: if a rehearsal is asked for (``cli.rehearse``: one account per process).
    """
    from msgspec.structs import replace  # noqa: PLC0415

    from sevdesk_mcp.accounts.identity import IdentityLookup  # noqa: PLC0415
    from sevdesk_mcp.accounts.resolver import AccountResolver  # noqa: PLC0415
    from sevdesk_mcp.cli.rehearse import refuse_in_oauth  # noqa: PLC0415

    refuse_in_oauth(config)
    inbox = config.confirm == "browser"  # approvals wait in the inbox, not on a local page
    web = shared.web(inbox=inbox) if shared else WebHub(files=settings.files, inbox=inbox)
    pages = web.pages if inbox else pages_in(config)
    factory = server_factory(
        config, pages, shared, files="none" if web.transfers is None else "transfer"
    )
    transport = demo_books() if demo else None
    if demo:
        config = replace(config, api_url=DEMO_API_URL)
        print(DEMO_BANNER, file=sys.stderr)  # noqa: T201
    lookup = IdentityLookup(config.api_url, proxy=config.proxy, transport=transport)
    resolver = AccountResolver(config, lookup, pacers=pacers_of(shared))

    async def apps(access: GrantedAccess) -> Callable[[], McpApp]:
        return functools.partial(factory.build, await resolver.context(access))

    return OAuthWiring(config, lookup, apps, web)


class OAuthSeams(msgspec.Struct, frozen=True):
    """Test seams of OAuth mode.

    :param verify: TLS verification for metadata-document fetches (``True``: certifi's
        authorities and those of ``SEVDESK_HTTP_OAUTH_CA_FILE``).
    :param store: the grant store (otherwise the file store in the state directory, or with
        ``shared`` Redis: ``redis_store.grant_store_for(...)``).
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
    register = shared.rates(REGISTRATION_LIMITS, "register") if shared is not None else None
    routes = oauth_routes(server, mcp, health_route(lifecycle, shared), register)
    routes = with_web(routes, seams.web, server, settings.secrets[0])
    client_rates = shared.rates(limits) if shared is not None else None
    router = Router(routes, site, limits, auth=verifier, lifecycle=lifecycle, rates=client_rates)
    headers = public_headers(security_headers(site), scripts=seams.web is not None)
    wiring = Wiring(router, limits, headers, access_log or AccessLog(), lifecycle)
    serving = HttpServer(listeners, wiring)
    http = HttpService(site, port, serving, lifecycle, limits, background(shared))
    return OAuthService(http, server, verifier)
