"""``--http``: bearer mode (one account, one shared secret) and OAuth mode (each user's own
account), with the shared state of several instances when ``SEVDESK_HTTP_STATE_URL`` is set."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Final

import anyio
import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.cli.demo import DEMO_API_URL, DEMO_BANNER, demo_account, demo_books
from sevdesk_mcp.cli.run import (
    approval_pages,
    freeze_long_lived,
    pacers_of,
    token_account,
    until_stopped,
)
from sevdesk_mcp.config import Config, flag, load_config
from sevdesk_mcp.errors import (
    AuthenticationError,
    ConfigError,
    StartupError,
    UpstreamError,
)
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.server import Reach, ServerFactory

if TYPE_CHECKING:
    from sevdesk_mcp.accounts.identity import IdentityLookup
    from sevdesk_mcp.accounts.resolver import GrantedAccess
    from sevdesk_mcp.http.scaleout import SharedStores
    from sevdesk_mcp.http.settings import HttpSettings
    from sevdesk_mcp.http.web.hub import WebHub
    from sevdesk_mcp.mcp.app import McpApp
    from sevdesk_mcp.safety.approval_local import Pages

log = logging.getLogger("sevdesk_mcp")


HTTP_PRINCIPAL: Final = "bearer"  # bearer mode: one account, one shared secret


def serve_http(env: dict[str, str], *, demo: bool) -> int:
    from sevdesk_mcp.http.log import install_access_logger  # noqa: PLC0415
    from sevdesk_mcp.http.serve import bind_service  # noqa: PLC0415
    from sevdesk_mcp.http.settings import (  # noqa: PLC0415
        limits_for,
        load_http_settings,
        require_auth,
    )

    config = load_config(env)
    settings = load_http_settings(env)
    require_auth(settings)
    shared = _shared_stores(settings, config)
    if settings.auth == "oauth":
        return _serve_oauth(config, settings, demo=demo, shared=shared)
    note_bearer_files(env)
    factory = _factory(config, approval_pages, shared, files="none")  # bearer: no transfer
    account = demo_account(config, shared) if demo else token_account(config, shared=shared)
    account = msgspec.structs.replace(account, principal=HTTP_PRINCIPAL)
    install_access_logger()

    async def run() -> None:
        await _attribute_bearer(account, factory.safety.audit)
        app = factory.build(account)  # one account for the process: one app, as over stdio
        try:
            service = await bind_service(
                settings,
                lambda: app,
                principal=account.principal,
                limits=limits_for(settings),
                shared=shared,
            )
        except OSError as exc:
            where = f"{settings.host}:{settings.port}"
            raise StartupError(f"cannot listen on {where} ({exc.strerror or exc})") from None
        log.info("serving MCP at %s (bearer authentication)", service.site.mcp_url)
        freeze_long_lived()
        async with _closing(shared):
            await until_stopped(service.run)

    anyio.run(run)
    return 0


def _shared_stores(settings: HttpSettings, config: Config) -> SharedStores | None:
    """:returns: the stores on ``SEVDESK_HTTP_STATE_URL``, or ``None`` without it.

    :raises ConfigError: if the redis extra is missing, or approvals would need this machine's
        local page (bearer mode with ``SEVDESK_CONFIRM=browser``), which other instances cannot
        reach.
    """
    if settings.state_url is None:
        return None
    if settings.auth == "bearer" and config.confirm == "browser":
        raise ConfigError(
            "SEVDESK_CONFIRM",
            "browser approval in bearer mode opens a page on the serving machine, which the "
            "other instances cannot reach; with SEVDESK_HTTP_STATE_URL use elicitation (the "
            "default) or OAuth mode, whose inbox every instance serves",
        )
    from sevdesk_mcp.http.scaleout import shared_stores  # noqa: PLC0415 - scale-out only

    shared = shared_stores(settings)
    log.info(
        "shared state: Redis at SEVDESK_HTTP_STATE_URL, namespace %s", settings.state_namespace
    )
    return shared


def _factory(
    config: Config,
    pages: Callable[[], Pages],
    shared: SharedStores | None,
    *,
    files: Reach,
) -> ServerFactory:
    """:returns: the server factory offering the tools ``files`` can serve; with the shared
    state its safety runtime and request-state sealer are the ones every instance shares."""
    if shared is None:
        return ServerFactory(config, pages=pages, files=files)
    safety = shared.safety(AuditLog(config.audit_log), pages)
    return ServerFactory(config, pages=pages, safety=safety, codec=shared.codec(), files=files)


def note_bearer_files(env: Mapping[str, str]) -> None:
    """Say at start-up that ``SEVDESK_HTTP_FILES=on`` does nothing in bearer mode, instead of
    ignoring it silently."""
    if flag(env, "SEVDESK_HTTP_FILES", default=False):
        log.warning(
            "SEVDESK_HTTP_FILES=on has no effect in bearer mode: file transfer needs OAuth mode "
            "(SEVDESK_HTTP_AUTH=oauth), where each person signs in to the upload and download "
            "pages with their sevDesk account. The tools that need files are not offered."
        )


async def _attribute_bearer(account: AccountContext, audit: AuditLog) -> None:
    """Check the token once and read its sevDesk account (``GET /SevClient``), so every audit
    line names who acted: bearer mode, the account's id and name. The binding principal stays
    ``bearer`` (one account serves the process).

    :raises StartupError: if sevDesk refuses the token (401 is final).
    """
    from sevdesk_mcp.accounts.identity import read_identity  # noqa: PLC0415

    try:
        identity = await read_identity(account.require_client())
    except AuthenticationError as exc:
        raise StartupError(str(exc)) from None
    except UpstreamError as exc:
        log.warning(
            "could not read the sevDesk account of the token at start-up: %s; audit lines name "
            "the auth mode only",
            exc,
        )
        audit.attribute(auth=HTTP_PRINCIPAL)
        return
    audit.attribute(auth=HTTP_PRINCIPAL, account=identity.id, name=identity.name)
    log.info("bearer mode serves sevDesk account %s", identity.id)


@contextlib.asynccontextmanager
async def _closing(shared: SharedStores | None) -> AsyncIterator[None]:
    """Close the shared state's connections when the server has stopped."""
    try:
        yield
    finally:
        if shared is not None:
            await shared.state.aclose()


@dataclasses.dataclass(frozen=True, slots=True)
class OAuthWiring:
    """OAuth mode's parts, before binding: the configuration (with ``--demo`` on the demo
    books' API root), the identity lookup, the account apps and the pages."""

    config: Config
    lookup: IdentityLookup
    apps: Callable[[GrantedAccess], Awaitable[Callable[[], McpApp]]]
    web: WebHub


def _serve_oauth(
    config: Config, settings: HttpSettings, *, demo: bool, shared: SharedStores | None
) -> int:
    """OAuth mode: each user connects their own account (``http.oauth``); with ``--demo`` the
    demo books stand in for sevDesk (their token is accepted on the consent page)."""
    from sevdesk_mcp.http.log import install_access_logger  # noqa: PLC0415
    from sevdesk_mcp.http.oauth.service import serve_oauth  # noqa: PLC0415

    install_access_logger()
    wiring = oauth_wiring(config, settings, demo=demo, shared=shared)

    async def closed_when_stopped(serve: Callable[[anyio.Event], Awaitable[None]]) -> None:
        async with _closing(shared):
            await until_stopped(serve)

    return serve_oauth(
        wiring.config,
        settings,
        identify=wiring.lookup,
        apps=wiring.apps,
        until_stopped=closed_when_stopped,
        web=wiring.web,
        shared=shared,
    )


def oauth_wiring(
    config: Config, settings: HttpSettings, *, demo: bool, shared: SharedStores | None
) -> OAuthWiring:
    """:returns: OAuth mode's parts; with ``demo`` the demo books serve the API and their
    export storage (:func:`demo_books`), as over stdio and in bearer mode. The tools that need
    files are offered only with file transfer on (``SEVDESK_HTTP_FILES``)."""
    from msgspec.structs import replace  # noqa: PLC0415

    from sevdesk_mcp.accounts.identity import IdentityLookup  # noqa: PLC0415
    from sevdesk_mcp.accounts.resolver import AccountResolver  # noqa: PLC0415
    from sevdesk_mcp.http.web.hub import WebHub  # noqa: PLC0415

    inbox = config.confirm == "browser"  # approvals wait in the inbox, not on a local page
    web = shared.web(inbox=inbox) if shared else WebHub(files=settings.files, inbox=inbox)
    pages = web.pages if inbox else approval_pages
    factory = _factory(config, pages, shared, files="none" if web.transfers is None else "transfer")
    transport = demo_books() if demo else None
    if demo:
        config = replace(config, api_url=DEMO_API_URL)
        print(DEMO_BANNER, file=sys.stderr)  # noqa: T201
    lookup = IdentityLookup(config.api_url, proxy=config.proxy, transport=transport)
    resolver = AccountResolver(config, lookup, pacers=pacers_of(shared))

    async def apps(access: GrantedAccess) -> Callable[[], McpApp]:
        return functools.partial(factory.build, await resolver.context(access))

    return OAuthWiring(config, lookup, apps, web)
