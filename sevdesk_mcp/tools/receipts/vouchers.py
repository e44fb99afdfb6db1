"""Toolset ``vouchers``: find receipts and read one with its positions and booking accounts."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.receipts import vouchers
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, Limit, SevdeskId

VoucherId = SevdeskId


class SearchInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_search_vouchers``."""

    status: Annotated[
        vouchers.StatusFilter,
        msgspec.Meta(
            description="draft, open (unpaid), transferred (überwiesen: a payment was sent, "
            "not yet matched to a bank transaction), partially_paid or paid; default any"
        ),
    ] = "any"
    kind: Annotated[
        vouchers.KindFilter, msgspec.Meta(description="expense (creditDebit C) or revenue (D)")
    ] = "any"
    supplier: (
        Annotated[str, msgspec.Meta(max_length=100, description="Part of the supplier's name")]
        | None
    ) = None
    receipt_number: (
        Annotated[str, msgspec.Meta(max_length=100, description="Part of the receipt number")]
        | None
    ) = None
    date_from: Annotated[dt.date, msgspec.Meta(description="Receipt date on or after")] | None = (
        None
    )
    date_to: Annotated[dt.date, msgspec.Meta(description="Receipt date on or before")] | None = None
    limit: Limit = 25


class GetInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_get_voucher``."""

    voucher_id: VoucherId


async def _search(args: SearchInput, ctx: ToolContext) -> vouchers.VoucherList:
    client = ctx.account.require_client()
    search = vouchers.Search(
        status=args.status,
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
        "Finds receipts (vouchers: supplier invoices, cash slips, revenue receipts), newest "
        "first, such as unpaid supplier invoices or spending at a supplier, with gross, net, tax, "
        "paid and open amounts and totals over all matches. Supplier names and receipt numbers "
        "are third-party text, fenced in ⟦ ⟧. Ids go to sevdesk_get_voucher."
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
    description=(
        "Reads one receipt with its positions: text, net, tax and gross per position, the tax "
        "rate and the booking account (number and name, per position), plus the receipt's tax "
        "rule (bookkeeping 2.0) or tax type (1.0). Position texts and supplier names are "
        "third-party text, fenced in ⟦ ⟧."
    ),
    toolset="vouchers",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=GetInput,
    output=vouchers.VoucherDetail,
    handler=_get,
)

TOOLS = (SEARCH_VOUCHERS, GET_VOUCHER)
