"""The account context a tool call runs in."""

from __future__ import annotations

from dataclasses import dataclass

from sevdesk_mcp.config import Config


@dataclass(frozen=True, slots=True)
class AccountContext:
    """One account: its frozen configuration and, once connected, its sevDesk client.

    Over stdio and in bearer mode there is one per process; in OAuth mode one per account.
    ``client`` stays ``None`` until the sevDesk client is wired in; tools that need it check.

    :param principal: who is asking, for binding confirmation state (``"local"`` over stdio).
    """

    config: Config
    principal: str = "local"
    client: object | None = None
