"""The command line: ``mcp-server-sevdesk [--stdio]``.

stdout belongs to the transport. Errors in the configuration stop start-up with one line on
stderr and exit status 2; so does any unknown argument.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

import anyio

from sevdesk_mcp import __version__
from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.stdio import StdioServer, claim_stdout, fd_reader, fd_writer
from sevdesk_mcp.server import ServerFactory

PROG = "mcp-server-sevdesk"
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="MCP server for sevDesk. Read-only unless SEVDESK_ALLOW enables more.",
    )
    parser.add_argument("--stdio", action="store_true", help="serve MCP over stdio (default)")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    :returns: the process exit status.
    """
    _parser().parse_args(argv)  # exits with status 2 on unknown arguments
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format=f"{PROG}: %(message)s")
    try:
        config = load_config(os.environ)
        factory = ServerFactory(config)
    except ConfigError as exc:
        print(f"{PROG}: configuration error: {exc}", file=sys.stderr)  # noqa: T201
        return EXIT_USAGE
    app = factory.build(AccountContext(config=config))
    protocol_fd = claim_stdout()
    server = StdioServer(Dispatcher(app), fd_reader(0), fd_writer(protocol_fd))
    try:
        anyio.run(server.serve)
    except KeyboardInterrupt:
        return 130
    return 0
