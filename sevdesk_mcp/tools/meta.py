"""Toolset ``meta``: what this server is allowed to do, asked without touching sevDesk."""

from __future__ import annotations

from typing import Annotated

import msgspec

from sevdesk_mcp import __version__
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import Annotations, ToolContext, define_tool


class StatusInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """No arguments."""


class ServerStatus(msgspec.Struct, frozen=True, kw_only=True):
    """The server's own settings, as the model should understand them."""

    version: str
    tiers: list[str]
    read_only: bool
    dry_run: bool
    tools: list[str]
    protocol_version: str
    notes: list[Annotated[str, msgspec.Meta(max_length=300)]]


async def _status(_: StatusInput, ctx: ToolContext) -> ServerStatus:
    config = ctx.account.config
    notes = []
    if config.read_only:
        notes.append("SEVDESK_READ_ONLY is set: nothing can be changed in sevDesk.")
    elif config.tiers == {Tier.READ}:
        notes.append("Only reading is enabled; the user can enable writes with SEVDESK_ALLOW.")
    if config.dry_run:
        notes.append("SEVDESK_DRY_RUN is set: write tools only show what they would do.")
    return ServerStatus(
        version=__version__,
        tiers=[str(t) for t in sorted(config.tiers)],
        read_only=config.read_only,
        dry_run=config.dry_run,
        tools=list(ctx.registered),
        protocol_version=ctx.request.protocol_version,
        notes=notes,
    )


SERVER_STATUS = define_tool(
    name="sevdesk_server_status",
    title="Server status and permissions",
    description=(
        "Shows what this sevDesk server may do right now: the enabled permission tiers "
        "(read, write, commit, external), whether it is read-only or in dry-run mode, and the "
        "registered tools. Use it to explain to the user why an action is unavailable."
    ),
    toolset="meta",
    tier=Tier.READ,
    annotations=Annotations(read_only=True, destructive=False, idempotent=True, open_world=False),
    input=StatusInput,
    output=ServerStatus,
    handler=_status,
)

TOOLS = (SERVER_STATUS,)
