"""Toolset ``vouchers``: find receipts and read one with its positions and booking accounts."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.receipts import vouchers
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, Limit, SevdeskId

VoucherId = SevdeskId


class SearchInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_search_vouchers``."""

    status: Annotated[
        vouchers.StatusFilter,
        msgspec.Meta(description="transferred: paid out, not yet matched; default any"),
    ] = "any"
    statuses: (
        Annotated[
            list[vouchers.StatusFilter],
            msgspec.Meta(min_length=1, max_length=6, description="Any of these, instead of status"),
        ]
        | None
    ) = None
    kind: Annotated[
        vouchers.KindFilter, msgspec.Meta(description="expense (creditDebit C) or revenue (D)")
    ] = "any"
    supplier: (
        Annotated[str, msgspec.Meta(max_length=100, description="Part of the supplier's name")]
        | None
    ) = None
    receipt_number: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    limit: Limit = 25


class GetInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_get_voucher``."""

    voucher_id: VoucherId


async def _search(args: SearchInput, ctx: ToolContext) -> vouchers.VoucherList:
    if args.statuses is not None and args.status != "any":
        raise ToolInputError("Give status or statuses, not both; put every status into statuses.")
    client = ctx.account.require_client()
    search = vouchers.Search(
        status=tuple(args.statuses) if args.statuses else args.status,
        kind=args.kind,
        supplier=args.supplier,
        receipt_number=args.receipt_number,
        date_from=args.date_from,
        date_to=args.date_to,
        limit=args.limit,
    )
    return await vouchers.search_vouchers(client, ctx.account.api_url, search)


async def _get(args: GetInput, ctx: ToolContext) -> vouchers.VoucherDetail:
    client = ctx.account.require_client()
    return await vouchers.get_voucher(client, ctx.account.api_url, args.voucher_id)


SEARCH_VOUCHERS = define_tool(
    name="sevdesk_search_vouchers",
    title="Search receipts",
    description=(
        "Finds receipts (vouchers: supplier invoices, cash slips), newest first, with gross, net, "
        "tax, paid and open amounts; ids for sevdesk_get_voucher."
    ),
    toolset="vouchers",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=SearchInput,
    output=vouchers.VoucherList,
    handler=_search,
)

GET_VOUCHER = define_tool(
    name="sevdesk_get_voucher",
    title="Get a receipt with positions",
    description="Reads one receipt with its positions, rates, booking accounts and tax rule.",
    toolset="vouchers",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=GetInput,
    output=vouchers.VoucherDetail,
    handler=_get,
)

TOOLS = (SEARCH_VOUCHERS, GET_VOUCHER)
