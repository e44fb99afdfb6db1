"""Price changes after the sale (§17 UStG): a document sevDesk closed (status paid) although
less than its total was paid.

sevDesk's API does not keep the booking type (cash discount, fee, other) once a payment is
booked; what it keeps is the document's status and the payments. So:

- a sale closed short within the cash discount (Skonto) its invoice grants (``discount`` percent
  within ``discountTime`` days) is a cash discount: under Soll, base and tax are reduced in the
  period of the closing payment, by the invoice's rates (§17(1) S. 1, S. 7); under Ist nothing
  changes, only what was received was ever taxed (§13(1) no. 1b);
- any other sale closed short may be a write-off, a bad debt or a bank charge the customer
  passed on: the difference is only reduced when the caller says it is a reduction
  (``shortfalls="reduce"``), else it is an open question that names both outcomes;
- a receipt closed short is a reduction of the price paid (a purchase Skonto): it reduces the
  input tax under both methods (§17(1) S. 2).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.money import CENT, HUNDRED, ZERO, cents
from sevdesk_mcp.domain.reports.books import Record
from sevdesk_mcp.domain.reports.vat.timing import is_correction

Shortfalls = Literal["ask", "reduce"]
Kind = Literal["skonto", "reduction", "purchase_discount"]
NOTES: Final[dict[str, str]] = {
    "skonto": "§17 cash discount (Skonto) within the invoice's terms",
    "reduction": "§17 reduction: closed with less paid (written off as you said)",
    "purchase_discount": "§17(1) S. 2 purchase discount: closed with less paid",
}


class Shortfall(msgspec.Struct, frozen=True, kw_only=True):
    """A closed document's unpaid rest and how it counts."""

    record: Record
    day: dt.date  # the closing payment
    amount: Decimal  # gross, positive
    kind: Kind | None  # None: not known, asked

    @property
    def share(self) -> Decimal:
        """:returns: the share of the document it takes back (negative)."""
        return -self.amount / self.record.gross


def shortfall(record: Record, shortfalls: Shortfalls) -> Shortfall | None:
    """:returns: ``record``'s shortfall if it was closed with less paid than its total."""
    if not record.closed or is_correction(record) or record.gross <= ZERO or not record.paid:
        return None
    unpaid = record.gross - sum((amount for _, amount in record.paid), ZERO)
    if unpaid < CENT:
        return None
    day = max(day for day, _ in record.paid)
    kind: Kind | None = "purchase_discount"
    if record.revenue:
        kind = "skonto" if _within_terms(record, unpaid, day) else None
        if kind is None and shortfalls == "reduce":
            kind = "reduction"
    return Shortfall(record=record, day=day, amount=unpaid, kind=kind)


def _within_terms(record: Record, unpaid: Decimal, day: dt.date) -> bool:
    if record.skonto is None:
        return False
    percent, days = record.skonto
    allowed = cents(record.gross * percent / HUNDRED) + CENT
    return unpaid <= allowed and day <= record.day + dt.timedelta(days=days)


def question(found: Shortfall, base: Decimal, tax: Decimal, period_name: str) -> str:
    """:returns: the open question for a sale closed short whose reason is unknown."""
    terms = "grants no cash discount" if found.record.skonto is None else "grants a cash "
    if found.record.skonto is not None:
        percent, days = found.record.skonto
        terms += f"discount of {percent.normalize()} % within {days} days, not this one"
    return (
        f"{found.record.label} was closed on {found.day} with {cents(found.amount)} EUR of "
        f"{cents(found.record.gross)} unpaid, and the invoice {terms}. If it is a write-off, "
        f"a bad debt or another price reduction, §17 UStG reduces base {base} and tax {tax} "
        f"in {period_name} (ask again with shortfalls='reduce'); if it is a bank charge, "
        "nothing changes. A discount the invoice does not grant is usually left open and the "
        "customer asked."
    )
