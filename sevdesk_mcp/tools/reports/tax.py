"""Tools of the ``reports`` toolset: the advance VAT return with its sources, the EU sales list, the
One-Stop-Shop figures and the profit and loss by booking account."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.domain.reports import euer, oss, vat, zm
from sevdesk_mcp.domain.reports import period as reports_period
from sevdesk_mcp.domain.reports.company import CompanyFacts
from sevdesk_mcp.domain.reports.period import PATTERN, parse_period
from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.outputs import is_zero, objects
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS

BOX_FIGURES: Final = ("base", "tax", "form_base", "form_tax")
LISTS_LEFT_OUT_EMPTY: Final = ("unclassified", "outside", "differences", "open_questions")
PNL_LISTS_LEFT_OUT_EMPTY: Final = ("assets", "thresholds", "without_account")

Period = Annotated[
    str,
    msgspec.Meta(
        pattern=PATTERN,
        max_length=7,
        description="Month 2026-10, quarter 2026-Q4 or year 2026 (default: the last month)",
    ),
]


def period_of(
    text: str | None, ctx: ToolContext, *, quarter: bool = False
) -> reports_period.Period:
    """:returns: the period named by ``text``; by default the last complete month (or quarter)
        before the books' today.

    :raises ToolInputError: if ``text`` names no period.
    """
    if text:
        return parse_period(text)
    today = ctx.account.today()
    last = today.replace(day=1) - dt.timedelta(days=1)
    if quarter:
        done = (today.month - 1) // 3 * 3  # months of the year in finished quarters
        year, done = (today.year, done) if done else (today.year - 1, 12)
        return parse_period(f"{year}-Q{done // 3}")
    return parse_period(f"{last.year}-{last.month:02d}")


class VatInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_vat_return``."""

    period: Period | None = None
    method: (
        Annotated[
            Literal["soll", "ist"],
            msgspec.Meta(
                description="soll: accrual (by date of supply); ist: cash (by payment). "
                "Default: the setting SEVDESK_VAT_METHOD, else soll (the statutory default)"
            ),
        ]
        | None
    ) = None
    shortfalls: Annotated[
        Literal["ask", "reduce"],
        msgspec.Meta(
            description="Sales closed with less paid than invoiced, outside a cash discount "
            "the invoice grants: ask (an open question) or reduce (a write-off or price "
            "reduction, §17 UStG)"
        ),
    ] = "ask"
    max_sources: Annotated[
        int, msgspec.Meta(ge=1, le=200, description="Sources listed per box")
    ] = 25


class PeriodInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_eu_sales_list`` and ``sevdesk_oss_figures``."""

    period: Period | None = None


class PnlInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_profit_and_loss``."""

    period: Period | None = None
    basis: Annotated[
        Literal["cash", "accrual"],
        msgspec.Meta(
            description="cash: received and paid in the period (the EÜR, §11 EStG); accrual: "
            "by document date (an overview only)"
        ),
    ] = "cash"


def company_facts(ctx: ToolContext) -> CompanyFacts:
    """:returns: the company's tax facts as the settings give them (``SEVDESK_VAT_METHOD``,
    ``SEVDESK_LEGAL_FORM``, …)."""
    return msgspec.convert(ctx.account.config.tax, CompanyFacts, from_attributes=True)


def vat_basis(method: vat.Method | None, ctx: ToolContext) -> vat.VatBasis:
    """:returns: the VAT method and small-business status the caller and the settings give."""
    settings = company_facts(ctx)
    if method:
        chosen, source = method, "the call's method argument"
    elif settings.vat_method:
        chosen, source = settings.vat_method, "setting SEVDESK_VAT_METHOD"
    else:
        chosen, source = None, ""
    return vat.VatBasis(method=chosen, method_source=source, small_business=settings.small_business)


async def _vat(args: VatInput, ctx: ToolContext) -> vat.VatReturn:
    client = ctx.account.require_client()
    return await vat.vat_return(
        client,
        period_of(args.period, ctx),
        vat_basis(args.method, ctx),
        args.max_sources,
        args.shortfalls,
    )


async def _zm(args: PeriodInput, ctx: ToolContext) -> zm.ZmReport:
    return await zm.eu_sales_list(ctx.account.require_client(), period_of(args.period, ctx))


async def _oss(args: PeriodInput, ctx: ToolContext) -> oss.OssReport:
    return await oss.oss_figures(
        ctx.account.require_client(), period_of(args.period, ctx, quarter=True)
    )


async def _pnl(args: PnlInput, ctx: ToolContext) -> euer.ProfitAndLoss:
    client = ctx.account.require_client()
    facts = company_facts(ctx)
    return await euer.profit_and_loss(client, period_of(args.period, ctx), args.basis, facts)


def brief_vat(args: VatInput, text: JsonObject) -> None:
    """Shorten the text of a VAT return: boxes without a source and an amount are named in
    ``empty_boxes`` instead of listed, and empty lists are left out."""
    del args  # every call is shortened alike
    boxes = objects(text.get("boxes"))
    kept = [box for box in boxes if not _empty(box)]
    text["boxes"] = list(kept)
    text["empty_boxes"] = [box.get("box") for box in boxes if _empty(box)]
    _without_empty(text, LISTS_LEFT_OUT_EMPTY)


def brief_pnl(args: PnlInput, text: JsonObject) -> None:
    """Shorten the text of a profit and loss: empty lists are left out."""
    del args  # every call is shortened alike
    _without_empty(text, PNL_LISTS_LEFT_OUT_EMPTY)


def _without_empty(text: JsonObject, names: tuple[str, ...]) -> None:
    for name in names:
        if text.get(name) == []:
            del text[name]


def _empty(box: JsonObject) -> bool:
    """:returns: whether a box of the text has no source and no amount other than zero."""
    figures = [box[name] for name in BOX_FIGURES if name in box]
    return not box.get("sources") and all(is_zero(figure) for figure in figures)


VAT_RETURN = define_tool(
    name="sevdesk_vat_return",
    title="Advance VAT return (UStVA boxes)",
    description=(
        "Prepare the advance VAT return (Umsatzsteuer-Voranmeldung) of a month or quarter: each "
        "box of the 2026 form (81, 86, 35/36, 41, 43, 48, 21, 45, 60, 89, 93, 46/47, 73/74, "
        "84/85, 66, 61, 67) with the invoices, credit notes and receipts behind it, and box 83 "
        "(the balance). Sales count by their date of supply, cash discounts correct them (§17). "
        "method soll (accrual) or ist (cash); the answer states the method, the small-business "
        "status and where each came from. Lists what fits no box, items outside the return "
        "(OSS), documents whose totals differ from their positions, and open questions (e.g. "
        "foreign receipts entered without reverse charge). Files nothing. Numbers are fenced in "
        "⟦ ⟧."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=VatInput,
    output=vat.VatReturn,
    handler=_vat,
    brief=brief_vat,
)

EU_SALES_LIST = define_tool(
    name="sevdesk_eu_sales_list",
    title="EU sales list (ZM)",
    description=(
        "The EU sales list (Zusammenfassende Meldung) of a quarter or month: per customer VAT "
        "id the intra-EU supplies (L) and services (S), net, with their documents; sales "
        "without the customer's VAT id are listed apart."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=PeriodInput,
    output=zm.ZmReport,
    handler=_zm,
)

OSS_FIGURES = define_tool(
    name="sevdesk_oss_figures",
    title="One-Stop-Shop figures (OSS)",
    description=(
        "The One-Stop-Shop figures of a quarter: sales to consumers in other EU states per "
        "member state and rate, net and tax, with their documents; sales without a country "
        "are listed apart."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=PeriodInput,
    output=oss.OssReport,
    handler=_oss,
)

PROFIT_AND_LOSS = define_tool(
    name="sevdesk_profit_and_loss",
    title="Profit and loss (EÜR, Anlage EÜR lines)",
    description=(
        "The profit and loss of a period: for a sole proprietor, freelancer or GbR the EÜR "
        "(§4(3) EStG, cash basis, gross: VAT received, input tax and VAT paid to the tax office "
        "on their own lines), each figure on its Anlage EÜR line of the year; low-value assets "
        "by the company's option, 70/30 business meals, gifts over 50 EUR apart, assets listed "
        "with the depreciation to enter. For a GmbH, UG, AG, OHG or KG and on basis accrual an "
        "income and expense overview that says why it is not an EÜR. States the legal form, the "
        "options and every assumption. Files nothing."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=PnlInput,
    output=euer.ProfitAndLoss,
    handler=_pnl,
    brief=brief_pnl,
)

TOOLS = (VAT_RETURN, EU_SALES_LIST, OSS_FIGURES, PROFIT_AND_LOSS)
