"""Toolset ``banking``, tier ``read``: suggest which open documents the unbooked bank
transactions pay, each with its allocation plan (:mod:`sevdesk_mcp.domain.reconciliation`)."""

from __future__ import annotations

import datetime as dt

import msgspec

from sevdesk_mcp.domain.reconciliation.sources import Filter
from sevdesk_mcp.domain.reconciliation.suggest import Matches, suggest_matches
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, Limit, SevdeskId


class SuggestInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_suggest_matches``."""

    account_id: SevdeskId | None = None
    transaction_id: SevdeskId | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    limit: Limit = 25


async def _suggest(args: SuggestInput, ctx: ToolContext) -> Matches:
    client = ctx.account.require_client()
    where = Filter(args.account_id, args.date_from, args.date_to)
    return await suggest_matches(client, where, args.transaction_id, args.limit)


SUGGEST_MATCHES = define_tool(
    name="sevdesk_suggest_matches",
    title="Suggest matches for bank transactions",
    description=(
        "Suggests the open documents unbooked bank transactions pay (several, part payments, "
        "Skonto, fees), with confidence and the bookings to book. Only status "
        "confident may be booked without asking."
    ),
    toolset="banking",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=SuggestInput,
    output=Matches,
    handler=_suggest,
)

TOOLS = (SUGGEST_MATCHES,)
