"""An EÜR-style profit and loss by booking account (§4(3) EStG) for a period.

Receipts carry their booking account per position (``accountDatev``); invoices and credit
notes carry none in the API, so their sales go to the SKR03 revenue account of their tax rule
and rate (:data:`REVENUE_ACCOUNTS`, stated as an assumption). Amounts are net: the VAT itself
is the VAT return's business. ``cash`` (the EÜR's rule, §11 EStG) counts what was paid in the
period, each payment with its share of the document; ``accrual`` counts by document date.
Positions without an account are named, never dropped.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.money import ZERO, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports.books import Books, Line, Record, read_books
from sevdesk_mcp.domain.reports.period import Period

Basis = Literal["cash", "accrual"]
MAX_NAMED: Final = 20
SKR03_CLASSES: Final = {
    "0": "Anlage- und Kapitalkonten (assets: depreciation applies, not the purchase)",
    "1": "Finanz- und Privatkonten",
    "2": "Abgrenzungskonten",
    "3": "Wareneingangs- und Bestandskonten",
    "4": "Betriebliche Aufwendungen",
    "7": "Bestände an Erzeugnissen",
    "8": "Erlöskonten",
    "9": "Vortrags- und statistische Konten",
}
REVENUE_ACCOUNTS: Final = {
    (1, "19"): ("8400", "Erlöse 19 % USt"),
    (1, "7"): ("8300", "Erlöse 7 % USt"),
    (1, ""): ("8200", "Erlöse"),
    (2, ""): ("8120", "Steuerfreie Umsätze §4 Nr. 1a UStG"),
    (3, ""): ("8125", "Steuerfreie innergemeinschaftliche Lieferungen §4 Nr. 1b UStG"),
    (4, ""): ("8100", "Steuerfreie Umsätze §4 Nr. 8 ff. UStG"),
    (5, ""): ("8337", "Erlöse aus Leistungen nach §13b UStG"),
    (17, ""): ("8338", "Erlöse aus im Drittland steuerbaren Leistungen"),
    (18, ""): ("8320", "Erlöse aus im anderen EU-Land steuerpflichtigen Lieferungen"),
    (19, ""): ("8320", "Erlöse aus im anderen EU-Land steuerpflichtigen Lieferungen"),
    (20, ""): ("8320", "Erlöse aus im anderen EU-Land steuerpflichtigen Lieferungen"),
    (21, ""): ("8336", "Erlöse aus im anderen EU-Land steuerpflichtigen sonstigen Leistungen"),
}
RULE: Final = (
    "Net amounts by booking account (SKR03 classes). Receipts: the account of each position. "
    "Invoices and credit notes: the SKR03 revenue account of their tax rule and rate (8400 "
    "19 %, 8300 7 %, 8125 intra-EU, 8120 exports, 8100 tax-free, 8336/8337/8338 not taxable "
    "in Germany, 8320 OSS). cash: payments in the period (§11 EStG), each its share; accrual: "
    "document date. VAT itself is left out (see the VAT return)."
)


class AccountLine(msgspec.Struct, frozen=True, kw_only=True):
    """One booking account's total in the period."""

    account: str
    name: str | None
    group: str
    side: str  # income or expense
    amount: Decimal
    items: int


class ProfitAndLoss(msgspec.Struct, frozen=True, kw_only=True):
    """Income and expenses by booking account, and the result."""

    period: str
    basis: str
    accounts: list[AccountLine]
    income: Decimal
    expenses: Decimal
    result: Decimal
    without_account: list[str]
    rule: str


async def profit_and_loss(client: SevdeskPort, period: Period, basis: Basis) -> ProfitAndLoss:
    """:returns: the profit and loss of ``period`` on ``basis``.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    return compute(await read_books(client), period, basis)


def compute(books: Books, period: Period, basis: Basis) -> ProfitAndLoss:
    """:returns: the profit and loss of ``period`` from ``books``."""
    sums: defaultdict[tuple[str, str | None, str], list[Decimal]] = defaultdict(list)
    lost: list[str] = []
    for record in books.records:
        if record.draft or record.currency != "EUR":
            continue
        for share in _shares(record, period, basis):
            for line in record.lines:
                account = _account(books, record, line)
                if account is None:
                    lost.append(f"{record.label} ({line.net} net)")
                    continue
                side = "income" if record.revenue else "expense"
                sums[account[0], account[1], side].append(cents(line.net * share))
    rows = [_row(number, name, side, amounts) for (number, name, side), amounts in sums.items()]
    rows.sort(key=lambda r: (r.side != "income", r.account))
    income = sum((r.amount for r in rows if r.side == "income"), ZERO)
    expenses = sum((r.amount for r in rows if r.side == "expense"), ZERO)
    return ProfitAndLoss(
        period=period.name,
        basis=basis,
        accounts=rows,
        income=income,
        expenses=expenses,
        result=income - expenses,
        without_account=lost[:MAX_NAMED],
        rule=RULE,
    )


def _shares(record: Record, period: Period, basis: Basis) -> list[Decimal]:
    if basis == "accrual":
        return [Decimal(1)] if record.day in period else []
    if record.gross == ZERO:
        return [Decimal(1)] if record.day in period else []
    return [amount / record.gross for day, amount in record.paid if day in period]


def _account(books: Books, record: Record, line: Line) -> tuple[str, str | None] | None:
    if record.kind == "receipt":
        if line.account is None:
            return None
        found = books.accounts.get(line.account)  # /AccountDatev lists visible ones (Q42)
        if found and found.number:
            return found.number, found.name
        return f"AccountDatev {line.account}", None
    rate = str(line.rate.normalize()) if record.rule == 1 else ""
    if record.rule == 1 and rate not in ("19", "7"):
        rate = ""
    named = REVENUE_ACCOUNTS.get((record.rule or 0, rate))
    return (named[0], named[1]) if named else None


def _row(number: str, name: str | None, side: str, amounts: list[Decimal]) -> AccountLine:
    group = SKR03_CLASSES.get(number[:1], "other")
    return AccountLine(
        account=number,
        name=name,
        group=f"{number[:1]} {group}",
        side=side,
        amount=sum(amounts, ZERO),
        items=len(amounts),
    )
