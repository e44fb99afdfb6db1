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
        description="Default: the last month",
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
                description="soll: by date of supply, ist: by payment; default SEVDESK_VAT_METHOD"
            ),
        ]
        | None
    ) = None
    shortfalls: Annotated[
        Literal["ask", "reduce"],
        msgspec.Meta(description="Paid short outside a cash discount: ask, or reduce (§17 UStG)"),
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
        msgspec.Meta(description="cash: the EÜR (§11 EStG); accrual: an overview only"),
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
        "The advance VAT return (UStVA) of a month or quarter: each box with its documents, box "
        "83, and open questions. Files nothing."
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
        "The EU sales list (ZM) of a quarter or month: intra-EU supplies and services per "
        "customer VAT id."
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
        "The One-Stop-Shop figures of a quarter: sales to EU consumers per member state and rate."
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
        "The profit and loss of a period: the EÜR by Anlage EÜR line for sole proprietors, "
        "freelancers and partnerships, else an income and expense overview; states every "
        "assumption. Files nothing."
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
