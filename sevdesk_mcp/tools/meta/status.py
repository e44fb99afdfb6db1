"""Toolset ``meta``: what this server is allowed to do, asked without touching sevDesk."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec

from sevdesk_mcp import __version__
from sevdesk_mcp.domain import reference
from sevdesk_mcp.domain.calendar import BERLIN
from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.catalog import tools as catalog_tools
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import LOCAL_READ_ANNOTATIONS, READ_ANNOTATIONS


class StatusInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """No arguments."""


class ServerStatus(msgspec.Struct, frozen=True, kw_only=True):
    """The server's own settings, as the model should understand them."""

    version: str
    tiers: Annotated[
        list[str], msgspec.Meta(description="What is on: read, write, commit, external")
    ]
    read_only_setting: Annotated[
        bool, msgspec.Meta(description="SEVDESK_READ_ONLY: when set, only read is on")
    ]
    dry_run: bool
    today: Annotated[
        dt.date, msgspec.Meta(description="Today in Berlin (the demo books' today in demo mode)")
    ]
    time_zone: str
    demo: bool
    tools: list[str]
    protocol_version: str
    notes: list[Annotated[str, msgspec.Meta(max_length=300)]]


async def _status(_: StatusInput, ctx: ToolContext) -> ServerStatus:
    config = ctx.account.config
    return ServerStatus(
        version=__version__,
        tiers=[str(t) for t in sorted(config.tiers)],
        read_only_setting=config.read_only,
        dry_run=config.dry_run,
        today=ctx.account.today(),
        time_zone=str(BERLIN),
        demo=ctx.account.demo,
        tools=list(ctx.registered),
        protocol_version=ctx.request.protocol_version,
        notes=_notes(ctx),
    )


def _notes(ctx: ToolContext) -> list[str]:
    config = ctx.account.config
    notes = []
    if config.read_only:
        notes.append("SEVDESK_READ_ONLY is set: only reading is on, whatever SEVDESK_ALLOW says.")
    elif config.tiers == {Tier.READ}:
        notes.append(
            "Only reading is on (the default); the user can turn on writes with SEVDESK_ALLOW."
        )
    if config.dry_run:
        notes.append("SEVDESK_DRY_RUN is set: write tools only show what they would do.")
    if ctx.account.demo:
        notes.append("DEMO MODE: invented books in memory; today is the demo books' today.")
    return notes


def brief_status(_: StatusInput, text: JsonObject) -> None:
    """Shorten the text of the server status: how many tools are registered, per tier, instead
    of every name (tools/list names them)."""
    names = text.pop("tools", [])
    listed = names if isinstance(names, list) else []
    text["tool_count"] = len(listed)
    text["tools_per_tier"] = tools_per_tier([n for n in listed if isinstance(n, str)])


def tools_per_tier(names: list[str]) -> JsonObject:
    """:returns: how many of the tools ``names`` need each tier, in tier order; a tool the
    product does not ship (a test's own) counts as ``other``."""
    tier_of = {tool.name: str(tool.tier) for tool in catalog_tools()}
    counts: dict[str, int] = {}
    for name in names:
        tier = tier_of.get(name, "other")
        counts[tier] = counts.get(tier, 0) + 1
    order = [str(t) for t in Tier] + ["other"]
    return {tier: counts[tier] for tier in order if tier in counts}


SERVER_STATUS = define_tool(
    name="sevdesk_server_status",
    title="Server status and permissions",
    description=(
        "What this server may do now and why: tiers, read-only and dry-run settings, today in "
        "Berlin, tools per tier. Does not call sevDesk."
    ),
    toolset="meta",
    tier=Tier.READ,
    annotations=LOCAL_READ_ANNOTATIONS,
    input=StatusInput,
    output=ServerStatus,
    handler=_status,
    brief=brief_status,
)


class AccountInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """No arguments."""


async def _account(_: AccountInput, ctx: ToolContext) -> reference.AccountInfo:
    client = ctx.account.require_client()
    return await reference.account_info(client, demo=ctx.account.demo, today=ctx.account.today())


ACCOUNT_INFO = define_tool(
    name="sevdesk_account_info",
    title="Account and bookkeeping system",
    description=(
        "Which sevDesk account this is: company, users, bookkeeping version (2.0: tax rules, 1.0: "
        "tax types), today; reaching it proves the connection."
    ),
    toolset="meta",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=AccountInput,
    output=reference.AccountInfo,
    handler=_account,
)


class ReferenceInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_reference_data``."""

    kind: reference.Kind
    query: (
        Annotated[str, msgspec.Meta(max_length=100, description="Part of a name or code")] | None
    ) = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=500)] = 100


async def _reference(args: ReferenceInput, ctx: ToolContext) -> reference.ReferenceData:
    client = ctx.account.require_client()
    return await reference.reference_data(client, args.kind, query=args.query, limit=args.limit)


REFERENCE_DATA = define_tool(
    name="sevdesk_reference_data",
    title="Reference data",
    description=(
        "Reference data with ids: tax rules, booking accounts with their allowed rules, units, "
        "countries, payment methods. Use before drafting."
    ),
    toolset="meta",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=ReferenceInput,
    output=reference.ReferenceData,
    handler=_reference,
)

TOOLS = (SERVER_STATUS, ACCOUNT_INFO, REFERENCE_DATA)
