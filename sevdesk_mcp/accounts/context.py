"""The account context a tool call runs in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import msgspec

from sevdesk_mcp.config import Config
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.rehearsal import RehearsalLog
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk import dates
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.witness import Witness


class AccountContext(msgspec.Struct, frozen=True):
    """One account: its frozen configuration and its sevDesk client.

    Over stdio and in bearer mode there is one per process; in OAuth mode one per account.

    :param principal: who is asking, for binding confirmation state (``"local"`` over stdio).
    :param client: the account's sevDesk client; ``None`` when no account is connected.
    :param demo: whether the client talks to the built-in demo company.
    :param today: today's date in Berlin (the demo books have their own "today").
    :param account: the sevDesk account id in OAuth mode (``None`` where one account serves the
        process).
    :param rehearsal: the rehearsal the client's transport keeps every write in (``--rehearse``),
        ``None`` when writes reach sevDesk.
    :param real_reader: in a rehearsal, a client on the rehearsal's real transport (plain reads
        of the real account, past the overlay: the report's "before" figures).
    """

    config: Config
    principal: str = "local"
    client: SevdeskClient | None = None
    demo: bool = False
    today: Callable[[], dt.date] = dates.today
    account: str | None = None
    rehearsal: RehearsalLog | None = None
    real_reader: SevdeskClient | None = None

    def require_client(self) -> SevdeskClient:
        """:returns: the sevDesk client.

        :raises ToolError: if no account is connected, saying how to connect one.
        """
        if self.client is None:
            raise ToolError(
                "No sevDesk account is connected. Set SEVDESK_API_TOKEN (or "
                "SEVDESK_API_TOKEN_FILE), or start the server with --demo to try the demo books."
            )
        return self.client

    def reader(self, *, witnessed: bool = False) -> SevdeskClient:
        """:returns: a view of the client whose gate refuses every write (for ``prepare``);
            ``witnessed``: its ``witness`` records every answer read.

        :raises ToolError: if no account is connected.
        """
        gate = WriteGate(tiers=frozenset({Tier.READ}), read_only=True)
        witness = Witness() if witnessed else None
        return self.require_client().view(gate=gate, stamp=None, witness=witness)

    @property
    def lock_scope(self) -> str:
        """:returns: the account's name for record locks. Over stdio and in bearer mode one
        account serves the process, whoever asks, so the scope is that one account's API
        root; in OAuth mode many accounts share the API root, so the scope adds the sevDesk
        account id (every grant of one account shares its locks, other accounts do not)."""
        if self.account is None:
            return self.config.api_url
        return f"{self.config.api_url}#account={self.account}"

    def writer(self, tier: Tier) -> SevdeskClient:
        """:returns: a view of the client that stamps ``tier`` on every request (for
        ``execute``), under the gate of this account's configuration.

        :raises ToolError: if no account is connected.
        """
        config = self.config
        gate = WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run)
        return self.require_client().view(gate=gate, stamp=tier)

    @property
    def api_url(self) -> str:
        """:returns: the API root the client talks to."""
        return self.config.api_url
