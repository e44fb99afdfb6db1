"""Shared pieces of the demo company builders: time helpers, payments, fixed references."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.wire import BERLIN, Ref

DEMO_TODAY: Final = date(2026, 11, 27)
OWNER: Final = Ref("SevUser", 1)
GERMANY: Final = Ref("StaticCountry", 1)
AUSTRIA: Final = Ref("StaticCountry", 2)
IRELAND: Final = Ref("StaticCountry", 9)
TRANSFER: Final = Ref("PaymentMethod", 21919)
PIECE: Final = Ref("Unity", 1)
BANK_ACCOUNT_ID: Final = 5001
REGISTER_ID: Final = 5002
TAX_RULE_DOMESTIC: Final = Ref("TaxRule", 1)
TAX_RULE_EU_DELIVERY: Final = Ref("TaxRule", 3)
TAX_RULE_INPUT_TAX: Final = Ref("TaxRule", 9)
TAX_RULE_REVERSE_CHARGE_EU: Final = Ref("TaxRule", 14)


def at(day: date, hour: int = 0) -> datetime:
    """:returns: ``day`` at ``hour`` o'clock in Berlin."""
    return datetime.combine(day, time(hour), tzinfo=BERLIN)


def workday(day: date) -> date:
    """:returns: ``day``, or the Monday after it when it falls on a weekend."""
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


@dataclass(frozen=True, slots=True)
class Payment:
    """A booked payment the bank builder turns into a transaction and a log entry.

    ``amount`` carries the sign of the transaction: incoming positive, outgoing negative (Q26).
    """

    day: date
    amount: Decimal
    target: Ref
    counterpart: str
    purpose: str
    counterpart_iban: str | None = None
    register: bool = False
