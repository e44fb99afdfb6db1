"""Toolset ``vouchers``, read: suggestions of booking accounts from the receipt guidance (2.0)
or the accounting types (1.0)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

import msgspec

from sevdesk_mcp.domain.receipts import suggest
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, stripped


class SuggestInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_suggest_booking_account``."""

    description: Annotated[
        str, msgspec.Meta(min_length=2, max_length=300, description="What was bought or sold")
    ]
    kind: Literal["expense", "revenue"] = "expense"
    tax_rate: Literal[0, 7, 19] | None = None


async def _suggest(args: SuggestInput, ctx: ToolContext) -> suggest.Suggestions:
    client = ctx.account.require_client()
    text = stripped(args.description, "description") or ""
    rate = None if args.tax_rate is None else Decimal(args.tax_rate)
    return await suggest.suggest(client, text, args.kind, rate)


SUGGEST_BOOKING_ACCOUNT = define_tool(
    name="sevdesk_suggest_booking_account",
    title="Suggest booking accounts for a receipt",
    description=(
        "Proposes booking accounts for a receipt position from sevDesk's receipt guidance "
        "(on bookkeeping 1.0: its accounting types), with the reason and the tax rules or tax "
        "types and rates each allows. Suggestions only: nothing is guessed when none matches."
    ),
    toolset="vouchers",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=SuggestInput,
    output=suggest.Suggestions,
    handler=_suggest,
)

TOOLS = (SUGGEST_BOOKING_ACCOUNT,)
