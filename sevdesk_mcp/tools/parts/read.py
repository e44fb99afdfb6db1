"""Toolset ``parts``: find articles with prices and stock."""

from __future__ import annotations

from typing import Annotated

import msgspec

from sevdesk_mcp.domain.parts import read as parts
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, Limit


class SearchInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_search_parts``."""

    query: (
        Annotated[
            str,
            msgspec.Meta(max_length=100, description="Part of a name or number"),
        ]
        | None
    ) = None
    active_only: Annotated[bool, msgspec.Meta(description="Leave out inactive ones")] = True
    limit: Limit = 25


async def _search(args: SearchInput, ctx: ToolContext) -> parts.PartList:
    client = ctx.account.require_client()
    return await parts.search_parts(
        client, query=args.query, active_only=args.active_only, limit=args.limit
    )


SEARCH_PARTS = define_tool(
    name="sevdesk_search_parts",
    title="Search articles and stock",
    description="Finds articles (parts) with unit, VAT rate, net and gross price and stock.",
    toolset="parts",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=SearchInput,
    output=parts.PartList,
    handler=_search,
)

TOOLS = (SEARCH_PARTS,)
