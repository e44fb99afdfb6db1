"""The walk through the books: each document and receipt onto its EÜR lines.

Sales carry no booking account in sevDesk's API: a position with VAT is taxable income (net)
plus VAT received, one without VAT is tax-free or not taxable. Receipts are placed by the
account of each position (:mod:`.accounts`): payments to and refunds from the tax office,
assets and low-value assets (by acquisition, not payment), meals, gifts, and the expense line
of the account; input tax paid on its own line. A small business counts everything gross and
has no VAT lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import ZERO, cents
from sevdesk_mcp.domain.reports.books import Books, Line, Record
from sevdesk_mcp.domain.reports.company import Chart, CompanyFacts, LowValueChoice
from sevdesk_mcp.domain.reports.euer import accounts as acc
from sevdesk_mcp.domain.reports.euer import low_value
from sevdesk_mcp.domain.reports.euer.ledger import Ledger
from sevdesk_mcp.domain.reports.euer.meals import gift_over_limit, meal_split
from sevdesk_mcp.domain.reports.euer.model import AssetItem, Basis
from sevdesk_mcp.domain.reports.euer.timing import moved, shares
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.safety.fence import fence

REVERSE_CHARGE_SALE: Final = 5  # §13b(5): the customer owes the tax
NOT_DEDUCTIBLE: Final = 10  # tax rule "nicht vorsteuerabziehbar"
# Intra-EU acquisition and reverse charge: the buyer owes the tax and deducts it in the VAT
# return; it is never paid to the supplier, so the position's tax is no cash of its own.
BUYER_OWES: Final = frozenset({8, 12, 13, 14})


@dataclass(frozen=True, slots=True)
class Walk:
    """One computation: the books, the period, the basis and the company's facts."""

    books: Books
    period: Period
    basis: Basis
    chart: Chart
    small: bool
    extension: bool
    choices: CompanyFacts

    def number(self, line: Line) -> str | None:
        """:returns: the account number of a receipt position, ``None`` if it has none."""
        found = self.books.accounts.get(line.account) if line.account is not None else None
        return found.number if found and found.number else None

    def on(self, line: Line, ranges: dict[Chart, acc.Ranges]) -> bool:
        """:returns: whether ``line`` is booked on an account of ``ranges`` (this chart)."""
        return acc.within(self.number(line), ranges[self.chart])


def named(record: Record) -> str:
    """:returns: how ``record`` is named in an answer: its number (third-party text) fenced."""
    return fence(record.label) or f"{record.kind} {record.id}"


def walk(run: Walk, ledger: Ledger) -> None:
    """Put every document and receipt of the books onto ``ledger``."""
    for record in run.books.records:
        if record.draft:
            continue
        if record.currency != "EUR":
            ledger.notes.append(f"{named(record)}: in {record.currency}, left out")
        elif record.kind == "receipt" and not record.revenue:
            _expense(run, ledger, record)
        else:
            _income(run, ledger, record)


def _income(run: Walk, ledger: Ledger, record: Record) -> None:
    for share in shares(record, run.period, run.basis, recurring=False):
        for line in record.lines:
            _income_line(run, ledger, record, line, share)


def _income_line(run: Walk, ledger: Ledger, record: Record, line: Line, share: Decimal) -> None:
    net, tax, label = cents(line.net * share), cents(line.tax * share), named(record)
    if record.kind == "receipt" and run.on(line, acc.TAX_OFFICE_VAT):
        ledger.add("vat_refunded", net + tax, label)
    elif run.small:
        ledger.add("small_business_income", net + tax, label)
    elif line.tax == ZERO or record.rule == REVERSE_CHARGE_SALE:
        ledger.add("tax_free_income", net, label)
    else:
        ledger.add("taxable_income", net, label)
        ledger.add("vat_received", tax, label)


def _expense(run: Walk, ledger: Ledger, record: Record) -> None:
    recurring = not run.extension and any(run.on(x, acc.PREPAYMENT) for x in record.lines)
    counted = shares(record, run.period, run.basis, recurring=recurring)
    if recurring and run.basis == "cash":
        ledger.notes.extend(moved(record, run.period, named(record)))
    for line in record.lines:
        if line.account is None:
            ledger.lost.append(f"{named(record)} ({cents(line.net):f} net)")
        elif _is_asset(run, line):
            _asset(run, ledger, record, line, counted)
        else:
            for share in counted:
                _expense_line(run, ledger, record, line, share)


def _expense_line(run: Walk, ledger: Ledger, record: Record, line: Line, share: Decimal) -> None:
    net, tax = cents(line.net * share), cents(_paid_tax(record, line) * share)
    deductible = not run.small and record.rule != NOT_DEDUCTIBLE
    cost, label = (net if deductible else net + tax), named(record)
    if run.on(line, acc.TAX_OFFICE_VAT):
        ledger.add("vat_paid", net + tax, label)
        return
    gift = run.on(line, acc.GIFTS)
    if (gift and _gift_over(run, record)) or run.on(line, acc.GIFTS_APART):
        ledger.add("gifts_apart", net + tax, label)  # neither the gift nor its input tax
        return
    if run.on(line, acc.MEALS):
        kept, apart = meal_split(cost)
        ledger.add("meals", kept, label)
        ledger.add("meals_apart", apart, label)
    elif run.on(line, acc.MEALS_APART):
        ledger.add("meals_apart", cost, label)
    elif gift:
        ledger.add("gifts", cost, label)
    else:
        ledger.add(acc.expense_line(run.chart, run.number(line)), cost, label)
    if deductible:
        ledger.add("input_tax", tax, label)


def _paid_tax(record: Record, line: Line) -> Decimal:
    return ZERO if record.rule in BUYER_OWES else line.tax


def _gift_over(run: Walk, record: Record) -> bool:
    gifts = [line for line in record.lines if run.on(line, acc.GIFTS)]
    net = sum((line.net for line in gifts), ZERO)
    return gift_over_limit(net, net + sum((line.tax for line in gifts), ZERO), run.small)


def _is_asset(run: Walk, line: Line) -> bool:
    if line.asset or run.on(line, acc.ASSET) or run.on(line, acc.LOW_VALUE):
        return True
    return run.on(line, acc.EQUIPMENT) and line.net > low_value.GWG_LIMIT


def _asset(run: Walk, ledger: Ledger, record: Record, line: Line, counted: list[Decimal]) -> None:
    acquired = record.delivered or record.day
    choice, _ = low_value.choice_of(run.choices, acquired.year)
    kind = low_value.treatment(line.net, choice)
    cost = cents(line.net if not run.small else line.net + _paid_tax(record, line))
    if kind == "pool":
        ledger.pools[acquired.year] += cost
    if acquired in run.period:
        if kind in ("expensed", "gwg"):
            ledger.add("gwg", cost, named(record))
        ledger.assets.append(_item(run, record, line, (kind, choice)))
    if not run.small and record.rule != NOT_DEDUCTIBLE:
        for share in counted:  # input tax counts when paid, the asset by acquisition
            ledger.add("input_tax", cents(_paid_tax(record, line) * share), named(record))


def _item(run: Walk, record: Record, line: Line, decided: tuple[str, LowValueChoice]) -> AssetItem:
    kind, choice = decided
    acquired = record.delivered or record.day
    number = run.number(line)
    why = low_value.why(kind, cents(line.net), choice, acquired.year)
    if not (line.asset or run.on(line, acc.ASSET) or run.on(line, acc.LOW_VALUE)):
        why += (
            f"; booked as an expense on {number}, taken as an asset because of its net amount "
            "(if it is consumables, it is an expense)"
        )
    return AssetItem(
        receipt=named(record),
        acquired=acquired,
        account=number,
        net=cents(line.net),
        treatment=kind,
        why=why,
        paid=bool(record.paid),
        to_do=low_value.DEPRECIATION if kind == "asset" else None,
    )
