"""The profit and loss of a period: the EÜR (§4(3) EStG, cash basis, gross) for those who may
use it, an income and expense overview for everyone else and for the accrual basis."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports.books import Books, read_books
from sevdesk_mcp.domain.reports.company import CompanyFacts, Fact, small_business_of
from sevdesk_mcp.domain.reports.euer import facts, legal_form, low_value
from sevdesk_mcp.domain.reports.euer.form_lines import source_of
from sevdesk_mcp.domain.reports.euer.ledger import Ledger
from sevdesk_mcp.domain.reports.euer.meals import GIFTS_RULE, MEALS_RULE
from sevdesk_mcp.domain.reports.euer.model import Basis, ProfitAndLoss
from sevdesk_mcp.domain.reports.euer.walk import Walk, walk
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.sevdesk.envelope import many

REVENUE: Final = frozenset({"taxable_income", "tax_free_income", "small_business_income"})
ACCRUAL: Final = (
    "Basis accrual counts by document date; an EÜR counts what was received and paid "
    "(§11 EStG). This is an overview, not an EÜR."
)
RULE: Final = (
    "EÜR by §4(3) EStG, gross: sales net on lines 'taxable' (with VAT) or 'tax-free' (without), "
    "VAT received and VAT refunded by the tax office as income; expenses net by the booking "
    "account of each receipt position, input tax paid and VAT paid to the tax office on their "
    "own lines (a small business: everything gross, no VAT lines). cash: what was received or "
    "paid in the period, each payment its share of the document (§11 EStG); the VAT advance "
    "payment paid 1-10 January counts in the old year unless a Dauerfristverlängerung is set "
    "(§11(2) S. 2 EStG). Assets and low-value assets count by acquisition, not payment."
)
ALWAYS: Final = (
    "Invoices and credit notes carry no booking account in sevDesk's API: a sale with VAT "
    "counts as taxable income, one without VAT as tax-free or not taxable.",
    "Payments to and refunds from the tax office are receipts booked on the VAT accounts "
    "(SKR03 1780-1781, 1789-1791; SKR04 3820-3830, 3840-3845); a bank transaction booked "
    "without a receipt is not seen. A payment on the advance-payment account (1780/3820) "
    "made 1-10 January is taken as the advance payment for December or the fourth quarter.",
    MEALS_RULE,
    GIFTS_RULE,
    "Not in sevDesk, left to the tax adviser: depreciation (AfA) of the assets listed, "
    "private use (car, goods, §6(1) Nr. 4 EStG, §3(1b), (9a) UStG), withdrawals and "
    "deposits, and other regularly recurring payments around the year end (§11 EStG).",
)


async def profit_and_loss(
    client: SevdeskPort, period: Period, basis: Basis, choices: CompanyFacts
) -> ProfitAndLoss:
    """:returns: the profit and loss of ``period`` on ``basis``, with the company's name read
    from ``GET /SevClient`` for its legal form.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    company = await company_name(client)
    return compute(await read_books(client), company, period, basis, choices)


async def company_name(client: SevdeskPort) -> str:
    """:returns: the account's company name (``GET /SevClient``), ``""`` if none is given.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    objects = many(await client.get("/SevClient"))
    name = objects[0].get("name") if objects else None
    return str(name) if name is not None else ""


def compute(
    books: Books, company: str, period: Period, basis: Basis, choices: CompanyFacts
) -> ProfitAndLoss:
    """:returns: the profit and loss of ``period`` from ``books`` for ``company``."""
    chart, chart_fact = facts.chart_of(choices, books)
    small, small_fact = small_business_of(choices.small_business, books)
    extension, extension_fact = facts.extension_of(choices)
    run = Walk(books, period, basis, chart, small, extension, choices)
    ledger = Ledger()
    walk(run, ledger)
    _pool(run, ledger)
    legal = legal_form.legal_form_of(choices.legal_form, company)
    facts_used = (legal, chart_fact, small_fact, extension_fact)
    return _answer(run, ledger, facts_used, low_value.choice_of(choices, period.start.year)[1])


def _pool(run: Walk, ledger: Ledger) -> None:
    year = run.period.end.year
    if not ledger.pools.get(year) and not any(ledger.pools.get(year - n) for n in range(1, 5)):
        return
    if run.period.end != dt.date(year, 12, 31):
        ledger.notes.append("The Sammelposten is written off once a year: ask for a period "
                            "that ends on 31 December to see the write-off.")  # fmt: skip
        return
    since = [f"Sammelposten {y}: {v:f}" for y, v in sorted(ledger.pools.items()) if y > year - 5]
    amount = low_value.pool_write_off(dict(ledger.pools), year)
    ledger.add("pool", amount, "; ".join(since))


def _answer(
    run: Walk, ledger: Ledger, used: tuple[Fact, Fact, Fact, Fact], low: Fact
) -> ProfitAndLoss:
    legal, chart, small, extension = used
    why = _why_not(legal.value, run.basis)
    income, expenses = ledger.side_total("income"), ledger.side_total("expense")
    year = run.period.start.year
    return ProfitAndLoss(
        period=run.period.name,
        basis=run.basis,
        kind="overview" if why else "euer",
        title=_title(run.period.name, bool(why)),
        why_not_euer=why,
        legal_form=legal,
        chart=chart,
        low_value_assets=low,
        small_business=small,
        vat_extension=extension,
        form="none: not an EÜR" if why else f"Anlage EÜR {year}: {source_of(year)}",
        lines=ledger.lines(year, on_form=not why),
        income=income,
        expenses=expenses,
        result=income - expenses,
        not_deductible=ledger.side_total("apart"),
        assets=ledger.assets,
        thresholds=[] if why else _thresholds(run, ledger, legal, income - expenses),
        assumptions=_assumptions(legal, ledger),
        without_account=ledger.lost[:20],
        rule=RULE,
    )


def _why_not(form: str, basis: Basis) -> str | None:
    reasons = [r for r in (legal_form.NOT_EUER.get(form), ACCRUAL if basis == "accrual" else None)
               if r]  # fmt: skip
    return " ".join(reasons) or None


def _title(period: str, overview: bool) -> str:
    if overview:
        return f"Income and expense overview {period} (not an EÜR)"
    return f"EÜR {period} (§4(3) EStG, cash basis)"


def _thresholds(run: Walk, ledger: Ledger, legal: Fact, profit: Decimal) -> list[str]:
    year = run.period.start.year
    whole = (run.period.start, run.period.end) == (dt.date(year, 1, 1), dt.date(year, 12, 31))
    revenue = ledger.total(REVENUE) if ledger.amounts else ZERO
    form = "sole_proprietor" if legal.value == legal_form.UNKNOWN else legal.value
    return legal_form.thresholds(form, revenue, profit, whole)


def _assumptions(legal: Fact, ledger: Ledger) -> list[str]:
    out = [legal_form.ASSUMED] if legal.value == legal_form.UNKNOWN else []
    return [*out, *ledger.notes, *ALWAYS]
