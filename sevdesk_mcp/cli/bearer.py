"""``--http`` in bearer mode: one account (the token's, or with ``--demo`` the demo books') for
every client that presents the shared secret, one app for the process, as over stdio."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Final

import anyio
import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.cli.demo import demo_account, demo_company
from sevdesk_mcp.cli.http import HttpSetup, closing, listening, server_factory
from sevdesk_mcp.cli.rehearse import refuse_shared
from sevdesk_mcp.cli.run import (
    AccountName,
    freeze_long_lived,
    pages_in,
    token_account,
    until_stopped,
)
from sevdesk_mcp.config import flag
from sevdesk_mcp.errors import AuthenticationError, StartupError, UpstreamError
from sevdesk_mcp.safety.audit import AuditLog

log = logging.getLogger("sevdesk_mcp")

HTTP_PRINCIPAL: Final = "bearer"  # bearer mode: one account, one shared secret


def serve_bearer(setup: HttpSetup, env: Mapping[str, str], *, demo: bool) -> int:
    """Run bearer mode until SIGTERM or SIGINT.

    :returns: 0.
    :raises ConfigError: if no token is configured, or a rehearsal is asked for with the shared
        state (``cli.rehearse``).
    :raises StartupError: if sevDesk refuses the token or the address cannot be bound.
    """
    from sevdesk_mcp.http.log import install_access_logger  # noqa: PLC0415
    from sevdesk_mcp.http.service.serve import bind_service  # noqa: PLC0415
    from sevdesk_mcp.http.settings import limits_for  # noqa: PLC0415

    config, settings, shared = setup.config, setup.settings, setup.shared
    refuse_shared(config, shared=shared is not None)
    note_bearer_files(env)
    company = AccountName(demo_company() if demo else "")
    factory = server_factory(config, pages_in(config, company), shared, files="none")
    account = demo_account(config, shared) if demo else token_account(config, shared=shared)
    account = msgspec.structs.replace(account, principal=HTTP_PRINCIPAL)
    install_access_logger()

    async def run() -> None:
        named = await _attribute_bearer(account, factory.safety.audit)
        company.value = named or company.value
        app = factory.build(account)  # one account for the process: one app, as over stdio
        with listening(settings):
            service = await bind_service(
                settings,
                lambda: app,
                principal=account.principal,
                limits=limits_for(settings),
                shared=shared,
            )
        log.info("serving MCP at %s (bearer authentication)", service.site.mcp_url)
        freeze_long_lived()
        async with closing(shared):
            await until_stopped(service.run)

    anyio.run(run)
    return 0


def note_bearer_files(env: Mapping[str, str]) -> None:
    """Say at start-up that ``SEVDESK_HTTP_FILES=on`` does nothing in bearer mode, instead of
    ignoring it silently."""
    if flag(env, "SEVDESK_HTTP_FILES", default=False):
        log.warning(
            "SEVDESK_HTTP_FILES=on has no effect in bearer mode: file transfer needs OAuth mode "
            "(SEVDESK_HTTP_AUTH=oauth), where each person signs in to the upload and download "
            "pages with their sevDesk account. The tools that need files are not offered."
        )


async def _attribute_bearer(account: AccountContext, audit: AuditLog) -> str:
    """Check the token once and read its sevDesk account (``GET /SevClient``), so every audit
    line names who acted: bearer mode, the account's id and name. The binding principal stays
    ``bearer`` (one account serves the process).

    :returns: the account's name (for the approval page), ``""`` if it could not be read.
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
        return ""
    audit.attribute(auth=HTTP_PRINCIPAL, account=identity.id, name=identity.name)
    log.info("bearer mode serves sevDesk account %s", identity.id)
    return identity.name
