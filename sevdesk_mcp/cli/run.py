"""The command line's process parts, shared by every transport: the write gate and the pacers,
the account of the configured token and its start-up check, the approval pages, and running
until SIGTERM or SIGINT."""

from __future__ import annotations

import functools
import gc
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Final

import anyio
from anyio.abc import TaskStatus

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import Config, require_token
from sevdesk_mcp.errors import (
    AuthenticationError,
    StartupError,
    UpstreamError,
)
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer, pacer_for

if TYPE_CHECKING:
    from sevdesk_mcp.cli.scaleout import SharedStores
    from sevdesk_mcp.safety.approval_local import Pages, SharedPages
    from sevdesk_mcp.safety.locale import Lang

PROG: Final = "mcp-server-sevdesk"
log = logging.getLogger("sevdesk_mcp")


def approval_pages(lang: Lang | None = None, company: Callable[[], str] | None = None) -> Pages:
    """:returns: the process's approval pages (``SEVDESK_CONFIRM=browser``): the approval site on
    the HTTP stack's loopback page listener, in a thread of its own (ADR 0005), started on first
    use. Imported only then; safety itself never imports the HTTP stack.

    :param lang: the pages' language where the browser names none (``SEVDESK_LANGUAGE``).
    :param company: the sevDesk account's name for the pages' top line, asked when the pages
        are first made (start-up has learned it by then).
    :raises PageServerError: if the listener cannot listen.
    """
    return _shared_pages(lang, company)()


class AccountName:
    """The one account's name (``GET /SevClient`` at start-up, or the demo company), for the top
    line of the approval page; empty until it is known."""

    def __init__(self, value: str = "") -> None:
        self.value = value

    def __call__(self) -> str:
        """:returns: the name, or ``""`` if it is not known."""
        return self.value


def pages_in(config: Config, company: Callable[[], str] | None = None) -> Callable[[], Pages]:
    """:returns: :func:`approval_pages` in the configured language (``config.language``), naming
    ``company`` at the top."""
    return functools.partial(approval_pages, config.language, company)


@functools.cache  # called from the event loop's thread only
def _shared_pages(lang: Lang | None, company: Callable[[], str] | None) -> SharedPages:
    from sevdesk_mcp.http.local.approval_page import local_pages  # noqa: PLC0415 - browser approval
    from sevdesk_mcp.safety.approval_local import SharedPages  # noqa: PLC0415

    return SharedPages(lambda: local_pages(lang, company() if company is not None else ""))


def freeze_long_lived() -> None:
    """Keep what start-up built (modules, tools, configuration) out of the cyclic garbage
    collector's full passes: they live as long as the process, and scanning them paused every
    request in flight for several milliseconds (``gc.freeze``)."""
    gc.freeze()


async def until_stopped(serve: Callable[[anyio.Event], Awaitable[None]]) -> None:
    """Run ``serve(stop)``; SIGTERM or SIGINT sets ``stop``, and the transport then gives its
    running calls the shutdown grace (``mcp.shutdown``) before it returns."""
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        await tg.start(_stop_on_signal, stop)
        await serve(stop)
        tg.cancel_scope.cancel()


async def _stop_on_signal(
    stop: anyio.Event, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    """Set ``stop`` on the first SIGTERM or SIGINT and keep catching them until cancelled: a
    second signal must not kill the process while a write waits for its audit line. Windows
    has no such signals for an event loop: there, stdio stops at EOF and HTTP on Ctrl-C."""
    if sys.platform == "win32":
        task_status.started()
        return
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        task_status.started()
        async for signum in signals:
            if stop.is_set():
                log.warning("already stopping; running calls still get their grace")
            else:
                log.info("%s: stopping", signal.Signals(signum).name)
            stop.set()


def write_gate(config: Config) -> WriteGate:
    return WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run)


def pacer_of(config: Config, shared: SharedStores | None = None, account: str = "") -> Pacer:
    """:returns: the account's pacer: this process's, or with the shared state one bucket in
    Redis for every instance serving the account (keyed by ``account``, digested)."""
    return pacers_of(shared)(account, config.rate_per_s)


def pacers_of(shared: SharedStores | None) -> Callable[[str, float], Pacer]:
    """:returns: how pacers are made: per process, or one per account on the shared state."""
    if shared is None:
        return lambda token_account, rate: pacer_for(rate)
    from sevdesk_mcp.sevdesk.pacing_shared import shared_pacer_for  # noqa: PLC0415

    state = shared.state
    return lambda account, rate: shared_pacer_for(state, account, rate)


def token_account(
    config: Config, env: Mapping[str, str] = os.environ, *, shared: SharedStores | None = None
) -> AccountContext:
    """:returns: the account of the configured token; with ``--rehearse`` its client's transport
    is a rehearsal in front of the network (``cli.rehearse``), which the context keeps.

    :raises ConfigError: as :func:`~sevdesk_mcp.config.require_token`.
    :raises StartupError: if there is no token anywhere.
    """
    token = require_token(env)  # the variables, else the OS keychain
    pacer = pacer_of(config, shared, shared.account_key(token.reveal()) if shared else "")
    gate = write_gate(config)
    if not config.rehearse:
        client = SevdeskClient(
            base_url=config.api_url, token=token, gate=gate, pacer=pacer, proxy=config.proxy
        )
        return AccountContext(config=config, client=client)
    from sevdesk_mcp.cli import rehearse  # noqa: PLC0415 - rehearsal only

    rehearsal = rehearse.rehearsal_of(
        rehearse.network_transport(config), config, api_url=config.api_url, token=token
    )
    rehearse.route_downloads(rehearsal)  # an export the overlay ran is downloaded from it
    # no proxy here: the rehearsal's real transport goes through it, and a client with a proxy
    # would send around the transport it is given
    client = SevdeskClient(
        base_url=config.api_url, token=token, gate=gate, pacer=pacer, transport=rehearsal
    )
    reader = rehearse.real_reader(rehearsal, config.api_url, token, pacer)
    rehearse.announce(config, f"the sevDesk account of the token ({config.api_url})", PROG)
    return AccountContext(config=config, client=client, rehearsal=rehearsal, real_reader=reader)


async def account_name(account: AccountContext) -> str:
    """:returns: the name of the token's sevDesk account (``GET /SevClient``), for the approval
    page's top line; ``""`` if sevDesk cannot tell now (the page then names none)."""
    from sevdesk_mcp.accounts.identity import read_identity  # noqa: PLC0415

    try:
        return (await read_identity(account.require_client())).name
    except UpstreamError as exc:
        log.warning("could not read the sevDesk account's name at start-up: %s", exc)
        return ""


async def check_token(account: AccountContext) -> None:
    """Check the token once with ``GET /Tools/bookkeepingSystemVersion``; a 401 is final."""
    try:
        await account.require_client().system_version()
    except AuthenticationError as exc:
        raise StartupError(str(exc)) from None
    except UpstreamError as exc:
        log.warning("could not check the sevDesk token at start-up: %s", exc)
