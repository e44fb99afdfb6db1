"""When a figure counts: cash (§11 EStG) by payment, each payment with its share of the
document; accrual by document date; assets by the date of acquisition.

Regularly recurring payments within 10 days of the year end belong to the year they are for
when they also fall **due** in that window (§11(2) S. 2 EStG; H 11 EStH). The VAT advance
payment for December (or the fourth quarter) is due on 10 January: paid from 1 to 10 January
it belongs to the old year. The due date is not moved by a weekend here (BFH 27.6.2018,
X R 44/16). With a Dauerfristverlängerung it is due on 10 February and belongs to the year it
is paid in.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.reports.books import Record
from sevdesk_mcp.domain.reports.euer.model import Basis
from sevdesk_mcp.domain.reports.period import Period

WINDOW_DAYS: Final = 10


def shares(record: Record, period: Period, basis: Basis, *, recurring: bool) -> list[Decimal]:
    """:returns: the shares of ``record`` that count in ``period``: on ``cash``, one per
    payment (``recurring``: moved by the 10-day rule); on ``accrual``, 1 if it is dated in
    it."""
    if basis == "accrual" or record.gross == ZERO:
        return [Decimal(1)] if record.day in period else []
    return [
        amount / record.gross
        for day, amount in record.paid
        if counted_on(day, recurring=recurring) in period
    ]


def counted_on(day: dt.date, *, recurring: bool) -> dt.date:
    """:returns: the day a payment made on ``day`` counts on: 31 December of the year before
    for a recurring payment made 1-10 January."""
    if recurring and day.month == 1 and day.day <= WINDOW_DAYS:
        return dt.date(day.year - 1, 12, 31)
    return day


def moved(record: Record, period: Period, name: str) -> list[str]:
    """:returns: a note for each payment of ``record`` (called ``name``) the 10-day rule moves
    into or out of ``period``."""
    notes = []
    for day, _ in record.paid:
        counted = counted_on(day, recurring=True)
        if counted != day and (counted in period) != (day in period):
            notes.append(
                f"{name}: paid {day.isoformat()}, a VAT advance payment due on 10 "
                f"January, counts in {counted.year} (§11(2) S. 2 EStG)"
            )
    return notes
