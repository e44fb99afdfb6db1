"""The command line.

::

    mcp-server-sevdesk [--stdio] [--demo]          serve MCP over stdio (the default)
    mcp-server-sevdesk --http [--demo] [--host H] [--port N]
                                                   serve MCP over Streamable HTTP (bearer auth)
    mcp-server-sevdesk healthcheck [--port N]      ask the local HTTP server's /healthz (0/1)
    mcp-server-sevdesk generate-secret             print a new random bearer secret
    mcp-server-sevdesk grants list|revoke ID       the grants of OAuth mode (state directory)
    mcp-server-sevdesk account-id                  print the account of SEVDESK_API_TOKEN
    mcp-server-sevdesk token set|check|delete      the token in the OS keychain
    mcp-server-sevdesk profiles list               the local profiles (SEVDESK_PROFILE)
    mcp-server-sevdesk fake-sevdesk [--port N]     serve the fake sevDesk with the demo books
    mcp-server-sevdesk --version

stdout belongs to the transport. A configuration error, a missing token or a token sevDesk
refuses stops start-up with one line on stderr and exit status 2; so does an unknown argument,
and so does ``--http`` without authentication configured.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import functools
import gc
import logging
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import anyio
import httpx
import msgspec
from anyio.abc import TaskStatus

from sevdesk_mcp import __version__
from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.accounts.profiles import local_environment
from sevdesk_mcp.config import Config, load_config, require_token
from sevdesk_mcp.errors import (
    AuthenticationError,
    ConfigError,
    StartupError,
    StateUnavailableError,
    ToolDefinitionError,
    UpstreamError,
)
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.stdio import StdioServer, claim_stdout, fd_reader, fd_writer
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.redact import RedactingFilter
from sevdesk_mcp.server import Reach, ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer, pacer_for

if TYPE_CHECKING:
    from sevdesk_mcp.accounts.identity import IdentityLookup
    from sevdesk_mcp.accounts.resolver import GrantedAccess
    from sevdesk_mcp.fake import FakeSevdesk
    from sevdesk_mcp.http.scaleout import SharedStores
    from sevdesk_mcp.http.settings import HttpSettings
    from sevdesk_mcp.http.web.hub import WebHub
    from sevdesk_mcp.mcp.app import McpApp
    from sevdesk_mcp.safety.approval_local import Pages, SharedPages

PROG: Final = "mcp-server-sevdesk"
EXIT_USAGE: Final = 2
DEMO_API_URL: Final = "https://demo.sevdesk.invalid/api/v1"  # never resolved: served in memory
DEMO_BANNER: Final = (
    f"{PROG}: DEMO MODE. Serving invented books from memory; nothing here is real, and every "
    "change is gone when the server stops. Confirmations are still asked."
)
DEFAULT_HTTP_PORT: Final = 8080  # the HTTP settings' default, named in the help
FAKE_PORT: Final = 8089
LISTENING_FLAGS: Final = ("--host", "--port")
HTTP_PRINCIPAL: Final = "bearer"  # bearer mode: one account, one shared secret
log = logging.getLogger("sevdesk_mcp")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="MCP server for sevDesk. Read-only unless SEVDESK_ALLOW enables more.",
    )
    parser.add_argument(
        "command",
        nargs="?",
        choices=[
            "fake-sevdesk",
            "healthcheck",
            "generate-secret",
            "grants",
            "account-id",
            "token",
            "profiles",
        ],
        help="fake-sevdesk: serve the fake sevDesk with the demo books on loopback; "
        "healthcheck: ask the local HTTP server's /healthz (exit 0 or 1); "
        "generate-secret: print a new random bearer secret; "
        "grants list | grants revoke ID: the grants of OAuth mode; "
        "account-id: print the sevDesk account of SEVDESK_API_TOKEN; "
        "token set | check | delete: the token in the OS keychain; "
        "profiles list: the local profiles",
    )
    parser.add_argument(
        "operands",
        nargs="*",
        help="for grants: list, or revoke ID; for token: set, check or delete; for profiles: list",
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="serve MCP over stdio (default)")
    transport.add_argument(
        "--http",
        action="store_true",
        help="serve MCP over Streamable HTTP (needs SEVDESK_HTTP_AUTH=bearer and a secret)",
    )
    parser.add_argument("--demo", action="store_true", help="serve the built-in demo books")
    parser.add_argument(
        "--port",
        type=_port,
        help="port to listen on: with --http and healthcheck it wins over SEVDESK_HTTP_PORT "
        f"(default {DEFAULT_HTTP_PORT}); for fake-sevdesk the default is {FAKE_PORT}; 0 picks a "
        "free port",
    )
    parser.add_argument(
        "--host",
        help="address to listen on: with --http and healthcheck it wins over SEVDESK_HTTP_HOST "
        "(default 127.0.0.1); fake-sevdesk listens on loopback only",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def _port(text: str) -> int:
    """:raises argparse.ArgumentTypeError: unless ``text`` is a port number (0 picks one)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: use a number from 0 to 65535")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    :returns: the process exit status.
    """
    parser = _parser()
    args = parser.parse_args(argv)  # exits with status 2 on unknown arguments
    _refuse_meaningless_flags(parser, args)
    _setup_logging()
    try:
        return _run(args)
    # StateUnavailableError: grants on Redis; ToolDefinitionError: an unreadable tool index
    except (ConfigError, StartupError, StateUnavailableError, ToolDefinitionError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)  # noqa: T201
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _refuse_meaningless_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with status 2 when ``--host`` or ``--port`` is given to a command that listens on
    nothing, instead of ignoring it."""
    listens = args.http or args.command in ("fake-sevdesk", "healthcheck")
    given = [flag for flag in LISTENING_FLAGS if getattr(args, flag[2:]) is not None]
    if given and not listens:
        what = args.command or "stdio (the default transport)"
        parser.error(
            f"{' and '.join(given)} mean nothing for {what}: it listens on no port. Use them "
            "with --http, healthcheck or fake-sevdesk."
        )


def _listening_env(args: argparse.Namespace) -> dict[str, str]:
    """:returns: the environment with ``--host``/``--port`` in place of the HTTP settings
    (flags win over ``SEVDESK_HTTP_HOST``/``SEVDESK_HTTP_PORT``)."""
    env = dict(os.environ)
    if args.host is not None:
        env["SEVDESK_HTTP_HOST"] = args.host
    if args.port is not None:
        env["SEVDESK_HTTP_PORT"] = str(args.port)
    return env


def _run(args: argparse.Namespace) -> int:
    # The HTTP stack is imported only by the commands that use it: stdio starts faster.
    if args.operands and args.command not in ("grants", "token", "profiles"):
        raise ConfigError("arguments", f"unexpected {' '.join(args.operands)[:40]!r}")
    if args.command in ("grants", "account-id", "token", "profiles"):
        return _operator_command(args)
    if args.command == "generate-secret":
        from sevdesk_mcp.http.commands import generate_secret  # noqa: PLC0415

        return generate_secret()
    if args.command == "healthcheck":
        from sevdesk_mcp.http.commands import healthcheck  # noqa: PLC0415

        return healthcheck(_listening_env(args))
    if args.command == "fake-sevdesk":
        port = FAKE_PORT if args.port is None else args.port
        return _fake_sevdesk(args.host or "127.0.0.1", port)
    if args.http:
        return _serve_http(_listening_env(args), demo=args.demo)
    return _serve_stdio(demo=args.demo)


def _operator_command(args: argparse.Namespace) -> int:
    if args.command in ("token", "profiles"):
        return _local_command(args)
    if args.command == "grants":
        from sevdesk_mcp.http.commands import grants  # noqa: PLC0415 - OAuth mode only

        return grants(os.environ, args.operands)
    from sevdesk_mcp.accounts.identity import account_id  # noqa: PLC0415

    return account_id(os.environ)


def _local_command(args: argparse.Namespace) -> int:
    from sevdesk_mcp.accounts import local_commands  # noqa: PLC0415 - these commands only

    if args.command == "token":
        return local_commands.token_command(os.environ, args.operands)
    return local_commands.profiles_command(os.environ, args.operands)


def _setup_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RedactingFilter())
    handler.setFormatter(logging.Formatter(f"{PROG}: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    for chatty in ("httpx", "httpcore"):  # one line per request would drown the useful ones
        logging.getLogger(chatty).setLevel(logging.WARNING)


def _fake_sevdesk(host: str, port: int) -> int:
    from sevdesk_mcp.fake import run_fake_server  # noqa: PLC0415 - only this command needs it

    try:
        run_fake_server(port, host)
    except (ValueError, OSError) as exc:
        raise StartupError(str(exc)) from None
    return 0


def approval_pages() -> Pages:
    """:returns: the process's approval pages (``SEVDESK_CONFIRM=browser``): the approval site on
    the HTTP stack's loopback page listener, in a thread of its own (ADR 0005), started on first
    use. Imported only then; safety itself never imports the HTTP stack.

    :raises PageServerError: if the listener cannot listen.
    """
    return _shared_pages()()


@functools.cache  # called from the event loop's thread only
def _shared_pages() -> SharedPages:
    from sevdesk_mcp.http.pages import PageServer  # noqa: PLC0415 - only browser approval
    from sevdesk_mcp.safety.approval_local import SharedPages  # noqa: PLC0415

    return SharedPages(PageServer)


def _serve_stdio(*, demo: bool) -> int:
    env = local_environment(os.environ)  # SEVDESK_PROFILE under the environment
    config = load_config(env)
    factory = ServerFactory(config, pages=approval_pages)
    account = _demo_account(config, receipts=True) if demo else _account(config, env)
    protocol_fd = claim_stdout()

    async def run() -> None:
        if not demo:
            await _check_token(account)
        app = factory.build(account)
        _freeze_long_lived()
        server = StdioServer(Dispatcher(app), fd_reader(0), fd_writer(protocol_fd))
        await _until_stopped(server.serve)

    anyio.run(run)
    return 0


def _serve_http(env: dict[str, str], *, demo: bool) -> int:
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
    _note_bearer_files(env)
    factory = _factory(config, approval_pages, shared, files="none")  # bearer: no transfer
    account = _demo_account(config, shared) if demo else _account(config, shared=shared)
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
        _freeze_long_lived()
        async with _closing(shared):
            await _until_stopped(service.run)

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


def _note_bearer_files(env: Mapping[str, str]) -> None:
    """Say at start-up that ``SEVDESK_HTTP_FILES=on`` does nothing in bearer mode, instead of
    ignoring it silently."""
    from sevdesk_mcp.config import flag  # noqa: PLC0415

    if "SEVDESK_HTTP_FILES" in env and flag(env, "SEVDESK_HTTP_FILES", default=False):
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

    async def until_stopped(serve: Callable[[anyio.Event], Awaitable[None]]) -> None:
        async with _closing(shared):
            await _until_stopped(serve)

    return serve_oauth(
        wiring.config,
        settings,
        identify=wiring.lookup,
        apps=wiring.apps,
        until_stopped=until_stopped,
        web=wiring.web,
        shared=shared,
    )


def oauth_wiring(
    config: Config, settings: HttpSettings, *, demo: bool, shared: SharedStores | None
) -> OAuthWiring:
    """:returns: OAuth mode's parts; with ``demo`` the demo books serve the API and their
    export storage (:func:`_demo_books`), as over stdio and in bearer mode. The tools that need
    files are offered only with file transfer on (``SEVDESK_HTTP_FILES``)."""
    from msgspec.structs import replace  # noqa: PLC0415

    from sevdesk_mcp.accounts.identity import IdentityLookup  # noqa: PLC0415
    from sevdesk_mcp.accounts.resolver import AccountResolver  # noqa: PLC0415
    from sevdesk_mcp.http.web.hub import WebHub  # noqa: PLC0415

    inbox = config.confirm == "browser"  # approvals wait in the inbox, not on a local page
    web = shared.web(inbox=inbox) if shared else WebHub(files=settings.files, inbox=inbox)
    pages = web.pages if inbox else approval_pages
    factory = _factory(config, pages, shared, files="none" if web.transfers is None else "transfer")
    transport = _demo_books() if demo else None
    if demo:
        config = replace(config, api_url=DEMO_API_URL)
        print(DEMO_BANNER, file=sys.stderr)  # noqa: T201
    lookup = IdentityLookup(config.api_url, proxy=config.proxy, transport=transport)
    resolver = AccountResolver(config, lookup, pacers=_pacers(shared))

    async def apps(access: GrantedAccess) -> Callable[[], McpApp]:
        return functools.partial(factory.build, await resolver.context(access))

    return OAuthWiring(config, lookup, apps, web)


def _freeze_long_lived() -> None:
    """Keep what start-up built (modules, tools, configuration) out of the cyclic garbage
    collector's full passes: they live as long as the process, and scanning them paused every
    request in flight for several milliseconds (``gc.freeze``)."""
    gc.freeze()


async def _until_stopped(serve: Callable[[anyio.Event], Awaitable[None]]) -> None:
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


def _gate(config: Config) -> WriteGate:
    return WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run)


def _pacer(config: Config, shared: SharedStores | None = None, account: str = "") -> Pacer:
    """:returns: the account's pacer: this process's, or with the shared state one bucket in
    Redis for every instance serving the account (keyed by ``account``, digested)."""
    return _pacers(shared)(account, config.rate_per_s)


def _pacers(shared: SharedStores | None) -> Callable[[str, float], Pacer]:
    """:returns: how pacers are made: per process, or one per account on the shared state."""
    if shared is None:
        return lambda _account, rate: pacer_for(rate)
    from sevdesk_mcp.sevdesk.pacing_shared import shared_pacer_for  # noqa: PLC0415

    state = shared.state
    return lambda account, rate: shared_pacer_for(state, account, rate)


def _account(
    config: Config, env: Mapping[str, str] = os.environ, *, shared: SharedStores | None = None
) -> AccountContext:
    token = require_token(env)  # the variables, else the OS keychain
    client = SevdeskClient(
        base_url=config.api_url,
        token=token,
        gate=_gate(config),
        proxy=config.proxy,
        pacer=_pacer(config, shared, shared.account_key(token.reveal()) if shared else ""),
    )
    return AccountContext(config=config, client=client)


def _demo_account(
    config: Config, shared: SharedStores | None = None, *, receipts: bool = False
) -> AccountContext:
    """:returns: the demo books' account; with ``receipts`` (stdio) and no
    ``SEVDESK_FILE_DIRS``, the demo receipt files are offered as the file folder."""
    from msgspec.structs import replace  # noqa: PLC0415

    from sevdesk_mcp.fake.token import DEMO_TOKEN  # noqa: PLC0415 - demo wiring only
    from sevdesk_mcp.safety.redact import Secret  # noqa: PLC0415

    if receipts and not config.file_dirs:
        config = replace(config, file_dirs=(_demo_receipts(),))
    demo_config = replace(config, api_url=DEMO_API_URL)
    books = _demo_books()
    client = SevdeskClient(
        base_url=DEMO_API_URL,
        token=Secret(DEMO_TOKEN),
        gate=_gate(config),
        pacer=_pacer(config, shared, "demo"),
        transport=books,
    )
    print(DEMO_BANNER, file=sys.stderr)  # noqa: T201
    return AccountContext(
        config=demo_config, client=client, demo=True, today=lambda: books.fake().today
    )


def _demo_receipts() -> Path:
    """Write the demo receipts (supplier invoices as PDFs, one ZUGFeRD) into a private folder
    that is removed when the process ends.

    :returns: the folder, for ``SEVDESK_FILE_DIRS``.
    """
    from sevdesk_mcp.fake.demo_receipts import RECEIPTS, write_demo_receipts  # noqa: PLC0415

    base = Path(tempfile.mkdtemp(prefix="sevdesk-demo-"))  # mode 0700
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    folder = write_demo_receipts(base / "Belege")
    names = ", ".join(r.filename for r in RECEIPTS)
    print(f"{PROG}: demo receipts to file, in {folder}: {names}", file=sys.stderr)  # noqa: T201
    return folder


def _demo_books() -> LazyDemoBooks:
    """:returns: the demo books, for every transport and auth mode alike; DATEV downloads of
    this process then reach their export storage, never the network (the fake's
    ``FileStorage``, built with the books). Set before the event loop starts, so every task
    sees it."""
    from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT  # noqa: PLC0415 - demo wiring only

    books = LazyDemoBooks()
    FILE_TRANSPORT.set(books.files())
    return books


class LazyDemoBooks(httpx.AsyncBaseTransport):
    """The demo books as an httpx transport, built on the first request that needs them.

    Importing the fake and building the books takes about 35 ms; ``initialize`` and
    ``tools/list`` never need them, so start-up does not wait for them.
    """

    def __init__(self) -> None:
        self._fake: FakeSevdesk | None = None
        self._transport: httpx.AsyncBaseTransport | None = None

    def fake(self) -> FakeSevdesk:
        """:returns: the demo books, built on the first call.

        :raises RuntimeError: if :data:`DEMO_TOKEN` no longer matches the fake's token.
        """
        if self._fake is None:
            from sevdesk_mcp.fake import build_demo  # noqa: PLC0415 - demo wiring only

            self._fake = build_demo()
            _freeze_long_lived()  # the books live as long as the process, too
        return self._fake

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the demo books' answer to ``request``."""
        if self._transport is None:
            self._transport = self.fake().transport()
        return await self._transport.handle_async_request(request)

    def files(self) -> httpx.AsyncBaseTransport:
        """:returns: the demo books' export file storage, built with the books on first use."""
        return _LazyFiles(self)


class _LazyFiles(httpx.AsyncBaseTransport):
    """The demo books' export file storage (DATEV downloads), built on the first download."""

    def __init__(self, books: LazyDemoBooks) -> None:
        self._books = books

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the stored export file, or the storage's 404."""
        from sevdesk_mcp.fake.exports import FileStorage  # noqa: PLC0415 - demo wiring only

        return await FileStorage(self._books.fake().store).handle_async_request(request)


async def _check_token(account: AccountContext) -> None:
    """Check the token once with ``GET /Tools/bookkeepingSystemVersion``; a 401 is final."""
    try:
        await account.require_client().system_version()
    except AuthenticationError as exc:
        raise StartupError(str(exc)) from None
    except UpstreamError as exc:
        log.warning("could not check the sevDesk token at start-up: %s", exc)
