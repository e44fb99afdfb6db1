"""A stdio server on the demo books with the write fixtures, for interop tests:
``python -m tests.interop.write_server``."""

from __future__ import annotations

import anyio

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.stdio import StdioServer, claim_stdout, fd_reader, fd_writer
from tests.writes.helpers import write_app


def main() -> None:
    fd = claim_stdout()
    app = write_app(build_demo())
    anyio.run(StdioServer(Dispatcher(app), fd_reader(0), fd_writer(fd)).serve)


if __name__ == "__main__":
    main()
