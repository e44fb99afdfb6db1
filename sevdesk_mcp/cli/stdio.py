"""``--stdio`` (the default): one account, the token's or with ``--demo`` the demo books', served
over stdin and stdout."""

from __future__ import annotations

import os

import anyio

from sevdesk_mcp.accounts.profiles import local_environment
from sevdesk_mcp.cli.demo import demo_account, demo_company
from sevdesk_mcp.cli.run import (
    AccountName,
    account_name,
    check_token,
    freeze_long_lived,
    pages_in,
    token_account,
    until_stopped,
)
from sevdesk_mcp.config import load_config
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.stdio import StdioServer, claim_stdout, fd_reader, fd_writer
from sevdesk_mcp.server import ServerFactory


def serve_stdio(*, demo: bool, rehearse: bool = False) -> int:
    """Serve MCP over stdio until EOF, SIGTERM or SIGINT; stdout is claimed for the protocol's
    frames before anything runs; ``rehearse`` (``--rehearse``) as ``SEVDESK_REHEARSE=on``.

    :returns: 0.
    :raises ConfigError: if the configuration is invalid or no token is configured.
    :raises StartupError: if sevDesk refuses the token.
    """
    env = local_environment(os.environ)  # SEVDESK_PROFILE under the environment
    if rehearse:
        env = {**env, "SEVDESK_REHEARSE": "on"}
    config = load_config(env)
    name = AccountName()  # read from sevDesk before serving
    company = demo_company if demo else name  # asked when the approval page is first made
    factory = ServerFactory(config, pages=pages_in(config, company))  # checks the settings
    account = demo_account(config, receipts=True) if demo else token_account(config, env)
    protocol_fd = claim_stdout()

    async def run() -> None:
        if not demo:
            await check_token(account)
            name.value = await account_name(account)
        app = factory.build(account)
        freeze_long_lived()
        server = StdioServer(Dispatcher(app), fd_reader(0), fd_writer(protocol_fd))
        await until_stopped(server.serve)

    anyio.run(run)
    return 0
