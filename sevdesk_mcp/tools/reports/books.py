"""Toolset ``reports``: open items with aging, the cash position, and what changed lately."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final

import msgspec

from sevdesk_mcp.domain import calendar as dates
from sevdesk_mcp.domain import reports
from sevdesk_mcp.domain.reports.summaries import BUCKETS
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.mcp.types import JsonObject, JsonValue
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.outputs import drop_zeros, objects
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS

DEFAULT_LOOKBACK: Final = dt.timedelta(days=7)
Explain = Annotated[
    bool,
    msgspec.Meta(description="Add the rule used"),
]


class OpenItemsInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_open_items``."""

    as_of: Annotated[dt.date, msgspec.Meta(description="Default: today")] | None = None
    top: Annotated[
        int, msgspec.Meta(ge=1, le=200, description="Contacts shown, most open first")
    ] = 10
    explain: Explain = False


class CashInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_cash_position``."""

    on_date: Annotated[dt.date, msgspec.Meta(description="Default: today")] | None = None


class ChangesInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_changed_since``."""

    since: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=40,
                description="Berlin time unless offset given; default: 7 days ago",
            ),
        ]
        | None
    ) = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100, description="Items shown per kind")] = 20


def parse_moment(text: str) -> dt.datetime:
    """:returns: an ISO date or date-time as a moment; without an offset it is Berlin time.

    :raises ToolInputError: if ``text`` is neither.
    """
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ToolInputError(
            "since must be an ISO date (2026-11-01) or date-time (2026-11-01T08:00)."
        ) from None
    return moment.replace(tzinfo=dates.BERLIN) if moment.tzinfo is None else moment


async def _open_items(args: OpenItemsInput, ctx: ToolContext) -> reports.OpenItems:
    client = ctx.account.require_client()
    return await reports.open_items(client, args.as_of or ctx.account.today(), args.top)


async def _cash(args: CashInput, ctx: ToolContext) -> reports.CashPosition:
    client = ctx.account.require_client()
    return await reports.cash_position(client, args.on_date or ctx.account.today())


async def _changes(args: ChangesInput, ctx: ToolContext) -> reports.Changes:
    client = ctx.account.require_client()
    if args.since:
        since = parse_moment(args.since)
    else:
        since = dates.berlin_midnight(ctx.account.today() - DEFAULT_LOOKBACK)
    return await reports.changed_since(client, since, args.limit)


def brief_open_items(args: OpenItemsInput, text: JsonObject) -> None:
    """Shorten the text of open items: no zero aging bucket (the currency is in every amount),
    the rule only with ``explain``."""
    _without_rule(args.explain, text)
    for side in ("receivables", "payables"):
        part = text.get(side)
        if not isinstance(part, dict):
            continue
        for aging in objects(part.get("aging")):
            _brief_aging(aging)
        for contact in objects(part.get("top_contacts")):
            _brief_aging(contact.get("aging"))


def brief_cash(_: CashInput, text: JsonObject) -> None:
    """Shorten the text of the cash position: without the rule, which is the one of open items
    (``sevdesk_open_items`` with ``explain``)."""
    _without_rule(False, text)


def _without_rule(explain: bool, text: JsonObject) -> None:
    if not explain:
        text.pop("rule", None)


def _brief_aging(aging: JsonValue) -> None:
    drop_zeros(aging, BUCKETS)
    if isinstance(aging, dict):
        aging.pop("currency", None)


OPEN_ITEMS = define_tool(
    name="sevdesk_open_items",
    title="Open receivables and payables (aging)",
    description=(
        "Open receivables and payables at a day: totals per currency and aging buckets, overall "
        "and per contact."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=OpenItemsInput,
    output=reports.OpenItems,
    handler=_open_items,
    brief=brief_open_items,
)

CASH_POSITION = define_tool(
    name="sevdesk_cash_position",
    title="Cash position",
    description=(
        "Balances of all active accounts at a day, open receivables and payables, and the net "
        "position."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=CashInput,
    output=reports.CashPosition,
    handler=_cash,
    brief=brief_cash,
)

CHANGED_SINCE = define_tool(
    name="sevdesk_changed_since",
    title="What changed since",
    description=(
        "What changed since a moment: counts and the newest changed contacts, documents, receipts "
        "and transactions."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=ChangesInput,
    output=reports.Changes,
    handler=_changes,
)

TOOLS = (OPEN_ITEMS, CASH_POSITION, CHANGED_SINCE)
