"""A stdio server with the fixture providers, for interop tests: ``python -m tests.interop.fixture_server``."""

from __future__ import annotations

import anyio

from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.stdio import StdioServer, claim_stdout, fd_reader, fd_writer
from tests.fixture_app import fixture_app


def main() -> None:
    fd = claim_stdout()
    print("this line must land on stderr, not on the protocol stream")
    anyio.run(StdioServer(Dispatcher(fixture_app()), fd_reader(0), fd_writer(fd)).serve)


if __name__ == "__main__":
    main()
