"""Toolset ``vouchers``, read: suggestions of booking accounts for a receipt position, from the
company's history for the supplier, the receipt guidance and the words table (2.0), or the
accounting types (1.0). The company's settings (chart, low-value asset option, legal form,
small-business status) are handed down here; the domain never reads the configuration."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

import msgspec

from sevdesk_mcp.config.tax import LowValueChoice, TaxSettings
from sevdesk_mcp.domain.receipts import suggest
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, SevdeskId, stripped

SOLE_FORMS = frozenset({"sole_proprietor", "freelancer"})


class SuggestInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_suggest_booking_account``."""

    description: Annotated[
        str, msgspec.Meta(min_length=2, max_length=300, description="What was bought or sold")
    ]
    kind: Literal["expense", "revenue"] = "expense"
    tax_rate: Literal[0, 7, 19] | None = None
    net: (
        Annotated[Decimal, msgspec.Meta(description="Net EUR: decides expense, GWG or asset")]
        | None
    ) = None
    date: Annotated[dt.date, msgspec.Meta(description="Date of supply")] | None = None
    supplier_id: SevdeskId | None = None
    supplier_name: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    supplier_vat_id: Annotated[str, msgspec.Meta(max_length=20)] | None = None
    supplier_iban: Annotated[str, msgspec.Meta(max_length=42)] | None = None
    supplier_country: Annotated[str, msgspec.Meta(max_length=2, pattern="^[A-Z]{2}$")] | None = None
    low_value: (
        Annotated[LowValueChoice, msgspec.Meta(description="Overrides SEVDESK_LOW_VALUE_ASSETS")]
        | None
    ) = None


async def _suggest(args: SuggestInput, ctx: ToolContext) -> suggest.Suggestions:
    client = ctx.account.require_client()
    query = suggest.ReceiptQuery(
        description=stripped(args.description, "description") or "",
        kind=args.kind,
        rate=None if args.tax_rate is None else Decimal(args.tax_rate),
        net=args.net,
        day=args.date,
        supplier=suggest.SupplierFacts(
            contact_id=args.supplier_id,
            name=stripped(args.supplier_name, "supplier_name"),
            vat_id=args.supplier_vat_id,
            iban=args.supplier_iban,
            country=args.supplier_country,
        ),
    )
    company = company_of(ctx.account.config.tax, args.low_value, args.date or ctx.account.today())
    return await suggest.suggest_receipt(client, query, company)


def company_of(tax: TaxSettings, low_value: LowValueChoice | None, day: dt.date) -> suggest.Company:
    """:returns: what the settings say for suggestions: the chart, the low-value option of the
    receipt's year (the call's ``low_value`` wins), whether travel is the owner's own, and
    whether input tax is deductible (not a small business)."""
    choice = low_value or tax.low_value_by_year.get(day.year) or tax.low_value_assets
    sole = None if tax.legal_form is None else tax.legal_form in SOLE_FORMS
    return suggest.Company(
        chart=tax.chart,
        low_value=choice,
        sole_proprietor=sole,
        deductible=not tax.small_business,
    )


SUGGEST_BOOKING_ACCOUNT = define_tool(
    name="sevdesk_suggest_booking_account",
    title="Suggest booking accounts for a receipt",
    description=(
        "Proposes booking accounts with tax rule and rate for a receipt position, from the "
        "company's history and sevDesk's guidance, each with how sure and why."
    ),
    toolset="vouchers",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=SuggestInput,
    output=suggest.Suggestions,
    handler=_suggest,
)

TOOLS = (SUGGEST_BOOKING_ACCOUNT,)
