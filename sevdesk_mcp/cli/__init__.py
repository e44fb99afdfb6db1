"""The command line.

::

    mcp-server-sevdesk [--stdio] [--demo] [--rehearse]
                                                   serve MCP over stdio (the default)
    mcp-server-sevdesk --http [--demo] [--rehearse] [--host H] [--port N]
                                                   serve MCP over Streamable HTTP (bearer auth)
    mcp-server-sevdesk healthcheck [--port N]      ask the local HTTP server's /healthz (0/1)
    mcp-server-sevdesk generate-secret             print a new random bearer secret
    mcp-server-sevdesk grants list|revoke ID       the grants of OAuth mode (state directory)
    mcp-server-sevdesk account-id                  print the account of SEVDESK_API_TOKEN
    mcp-server-sevdesk token set|check|delete      the token in the OS keychain
    mcp-server-sevdesk profiles list               the local profiles (SEVDESK_PROFILE)
    mcp-server-sevdesk fake-sevdesk [--port N]     serve the fake sevDesk with the demo books
    mcp-server-sevdesk --version

This module parses the arguments and chooses; each mode is wired in a module of its own:
``stdio.py``, ``demo.py`` (the demo books, for every transport), ``bearer.py`` and ``oauth.py``
(the two ``--http`` modes, on what ``http.py`` gives both, with ``scaleout.py`` for the shared
state of several instances) and ``fake.py``; ``run.py`` holds the process parts every mode
shares.

stdout belongs to the transport. A configuration error, a missing token or a token sevDesk
refuses stops start-up with one line on stderr and exit status 2; so does an unknown argument,
and so does ``--http`` without authentication configured.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from typing import Final

from sevdesk_mcp import __version__
from sevdesk_mcp.cli.fake import FAKE_PORT, serve_fake
from sevdesk_mcp.cli.run import PROG, approval_pages
from sevdesk_mcp.cli.stdio import serve_stdio
from sevdesk_mcp.config import demo_requested
from sevdesk_mcp.errors import (
    ConfigError,
    StartupError,
    StateUnavailableError,
    ToolDefinitionError,
)
from sevdesk_mcp.safety.redact import RedactingFilter

__all__ = ["PROG", "approval_pages", "main"]

EXIT_USAGE: Final = 2
DEFAULT_HTTP_PORT: Final = 8080  # the HTTP settings' default, named in the help
LISTENING_FLAGS: Final = ("--host", "--port")
REHEARSE: Final = "SEVDESK_REHEARSE"  # what --rehearse sets


SETTINGS_HELP: Final = """\
settings (environment variables; the rest: docs/configuration.md):
  SEVDESK_API_TOKEN       the sevDesk API token (sevDesk: Settings > Users > API token);
                          or SEVDESK_API_TOKEN_FILE (a file holding it), or the OS keychain
                          ('mcp-server-sevdesk token set', entry SEVDESK_KEYCHAIN_ENTRY)
  SEVDESK_ALLOW           the permission tiers: read (default), write, commit, external,
                          comma-separated (e.g. read,write,commit); SEVDESK_READ_ONLY=1 wins
  SEVDESK_CONFIRM         how binding actions are approved: elicit (default: the client
                          asks you), browser (a local approval page), off (needs
                          SEVDESK_I_UNDERSTAND_NO_CONFIRM=1)
  SEVDESK_DRY_RUN         1: write tools only show their preview, nothing changes
  SEVDESK_FILE_DIRS       the folders receipts may be read from (absolute, ':'-separated;
                          ';' on Windows)
  SEVDESK_LANGUAGE        de or en: the language of approvals and pages (default: the
                          locale's)
  SEVDESK_DEMO            1: the same as --demo
  SEVDESK_REHEARSE        on: the same as --rehearse (docs/rehearsal.md);
                          SEVDESK_REHEARSE_CONFIRM=off skips the rehearsal's approvals

try it without a token:  mcp-server-sevdesk --demo
rehearse on your books:  mcp-server-sevdesk --rehearse  (nothing is written to sevDesk)
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="MCP server for sevDesk. Read-only unless SEVDESK_ALLOW enables more.",
        epilog=SETTINGS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    parser.add_argument(
        "--demo",
        action="store_true",
        help="serve invented demo books from memory: no token needed, nothing real changes",
    )
    parser.add_argument(
        "--rehearse",
        action="store_true",
        help="rehearsal: read the account as usual, keep every write on this machine (nothing "
        "is sent to sevDesk or to anyone, all gone at the end); with --demo on the demo books",
    )
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
    if args.rehearse:
        env[REHEARSE] = "on"
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
        from sevdesk_mcp.http.oauth.commands import generate_secret  # noqa: PLC0415

        return generate_secret()
    if args.command == "healthcheck":
        from sevdesk_mcp.http.oauth.commands import healthcheck  # noqa: PLC0415

        return healthcheck(_listening_env(args))
    if args.command == "fake-sevdesk":
        return serve_fake(args.host, args.port)
    demo = args.demo or demo_requested(os.environ)
    if args.http:
        return _serve_http(_listening_env(args), demo=demo)
    return serve_stdio(demo=demo, rehearse=args.rehearse)


def _serve_http(env: dict[str, str], *, demo: bool) -> int:
    """``--http``: bearer or OAuth mode, as ``SEVDESK_HTTP_AUTH`` says."""
    from sevdesk_mcp.cli.http import http_setup  # noqa: PLC0415 - the HTTP modes only

    setup = http_setup(env)
    if setup.settings.auth == "oauth":
        from sevdesk_mcp.cli.oauth import serve_oauth  # noqa: PLC0415

        return serve_oauth(setup, demo=demo)
    from sevdesk_mcp.cli.bearer import serve_bearer  # noqa: PLC0415

    return serve_bearer(setup, env, demo=demo)


def _operator_command(args: argparse.Namespace) -> int:
    if args.command in ("token", "profiles"):
        return _local_command(args)
    if args.command == "grants":
        from sevdesk_mcp.http.oauth.commands import grants  # noqa: PLC0415 - OAuth mode only

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
