"""When a position of a sale or a purchase counts in the advance VAT return: on which day,
by which rule (german-tax-rules §1, docs/tax.md "When a sale counts").

- The day of supply (§13(1) no. 1a S. 1 UStG): the delivery date, or the last day of a service
  period (``deliveryDate`` .. ``deliveryDateUntil``); the document date only where sevDesk has no
  delivery date, and then :attr:`Moment.fallback` says so.
- Partial services (S. 2-3): a service period over several months whose positions are priced
  per month (:func:`monthly`) counts each month's part in its month.
- Advance payments received before the supply (S. 4): in the period of receipt.
- Box 41 (§18b S. 2): the period of the invoice, at the latest the month after the supply's month.
- Intra-EU acquisitions and §13b(2) reverse charge (§13(1) no. 6, §13b(2)): with the invoice, at
  the latest the month after the supply; §13b(1) services (46/47): the supply (§13b(1)).
- Input tax (§15(1) S. 1 no. 1): the later of supply and invoice; advance payments when paid and
  invoiced. The input tax of reverse charge and acquisitions (61, 67) counts when its tax arises.
- Credit notes and cancellations (§17): their own date.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.reports.books import Record
from sevdesk_mcp.domain.reports.period import Period

ONE: Final = Decimal(1)
_MONTHLY: Final = re.compile(
    r"monatlich|pro\s+monat|je\s+monat|/\s*monat\b|monatsmiete|monatspauschale|monatsgeb(ü|ue)hr"
    r"|per\s+month|monthly|/\s*month\b",
    re.IGNORECASE,
)
# boxes whose tax arises with the invoice, at the latest the month after the supply
BY_INVOICE_AT_THE_LATEST: Final = frozenset({"41", "89", "93", "61", "84/85", "73/74"})
INPUT_TAX: Final = "66"


class Moment(msgspec.Struct, frozen=True):
    """A share of a record that counts on ``day``."""

    day: dt.date
    share: Decimal
    advance: bool = False  # an advance payment before the supply (§13(1) no. 1a S. 4)


class Supply(msgspec.Struct, frozen=True):
    """The supply of a record: its last day, the first day, and whether the document date
    stood in for a delivery date sevDesk does not have."""

    end: dt.date
    start: dt.date
    fallback: bool


def supply(record: Record) -> Supply:
    """:returns: when ``record``'s supply was performed."""
    if record.delivered_until and record.delivered and record.delivered_until >= record.delivered:
        return Supply(record.delivered_until, record.delivered, fallback=False)
    if record.delivered:
        return Supply(record.delivered, record.delivered, fallback=False)
    if record.delivered_until:
        return Supply(record.delivered_until, record.delivered_until, fallback=False)
    return Supply(record.day, record.day, fallback=True)


def is_correction(record: Record) -> bool:
    """:returns: whether ``record`` corrects an earlier sale (credit note, cancellation): it
    counts on its own date (§17(1) S. 7 UStG)."""
    return record.kind == "credit_note" or record.invoice_type == "SR"


def sale_moments(record: Record, box: str, *, monthly_priced: bool) -> list[Moment]:
    """:returns: the days a sale's position of ``box`` counts on, with their shares (Soll)."""
    if is_correction(record):
        return [Moment(record.day, ONE)]
    done = supply(record)
    if box == "41":
        return [Moment(_invoice_at_the_latest(record.day, done.end), ONE)]
    if box in ("43", "48", "45", "60", "21"):
        return [Moment(done.end, ONE)]
    if monthly_priced:  # a payment during the months pays for parts already performed
        return _with_advances(record, done.start, _monthly_parts(done))
    return _with_advances(record, done.end, [Moment(done.end, ONE)])


def purchase_moments(record: Record, box: str) -> list[Moment]:
    """:returns: the days a receipt's position of ``box`` counts on, with their shares."""
    done = supply(record)
    if box in BY_INVOICE_AT_THE_LATEST:
        return [Moment(_invoice_at_the_latest(record.day, done.end), ONE)]
    if box in ("46/47", "67"):
        return [Moment(done.end, ONE)]
    later = max(done.end, record.day)
    advances = [
        Moment(max(day, record.day), amount / record.gross, advance=True)
        for day, amount in record.paid
        if record.gross and day < done.end
    ]
    rest = ONE - sum((m.share for m in advances), ZERO)
    return [*advances, *([Moment(later, rest)] if rest > ZERO else [])]


def monthly(record: Record) -> bool:
    """:returns: whether ``record`` is a service period over more than one month priced per
    month (position text such as "monatlich", "pro Monat", "per month")."""
    done = supply(record)
    if done.fallback or (done.start.year, done.start.month) == (done.end.year, done.end.month):
        return False
    return any(line.text and _MONTHLY.search(line.text) for line in record.lines)


def spans_periods(record: Record, period: Period) -> bool:
    """:returns: whether ``record``'s service period reaches beyond ``period``."""
    done = supply(record)
    return not done.fallback and done.start < period.start <= done.end


def _invoice_at_the_latest(invoice_day: dt.date, supplied: dt.date) -> dt.date:
    following = _next_month(supplied.year, supplied.month)
    return min(invoice_day, _month_end(*following))


def _next_month(year: int, month: int) -> tuple[int, int]:
    return year + month // 12, month % 12 + 1


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(*_next_month(year, month), 1) - dt.timedelta(days=1)


def _monthly_parts(done: Supply) -> list[Moment]:
    """Each month of the service period its equal part, on the month's last day (the
    period's end in its last month)."""
    months: list[dt.date] = []
    year, month = done.start.year, done.start.month
    while (year, month) <= (done.end.year, done.end.month):
        months.append(min(_month_end(year, month), done.end))
        year, month = _next_month(year, month)
    return [Moment(day, ONE / len(months)) for day in months]


def _with_advances(record: Record, cutoff: dt.date, parts: list[Moment]) -> list[Moment]:
    """Payments received before ``cutoff`` (the supply) count on their own day; the rest on
    the parts."""
    if not record.gross or record.gross < ZERO:
        return parts
    advances = [
        Moment(day, amount / record.gross, advance=True)
        for day, amount in record.paid
        if day < cutoff and amount > ZERO
    ]
    if not advances:
        return parts
    paid = min(sum((m.share for m in advances), ZERO), ONE)
    return [*advances, *(Moment(m.day, m.share * (ONE - paid)) for m in parts)]
