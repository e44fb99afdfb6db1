"""Money: exact decimals with their currency. Never float.

sevDesk sends sums as strings (``"65.45"``) or, in a few places, as JSON numbers (``paidAmount``);
both arrive here as :class:`~decimal.Decimal` through the lenient wire schemas. Sums are added
as decimals and quantized to cents only for display, with ``ROUND_HALF_UP`` as German
bookkeeping expects.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

import msgspec

CENT: Final = Decimal("0.01")
ZERO: Final = Decimal(0)
HUNDRED: Final = Decimal(100)  # percent
MAX_AMOUNT: Final = Decimal(10) ** 9  # no amount we send reaches a billion
PRICE_PLACES: Final = 2  # decimal places of a price


class Money(msgspec.Struct, frozen=True, kw_only=True):
    """An amount in a currency; the amount is a decimal string on the wire (``"1234.50"``)."""

    amount: Decimal
    currency: str


def money(amount: Decimal | None, currency: str | None) -> Money:
    """:returns: ``amount`` (``None`` counts as zero) rounded to cents, in ``currency`` (EUR)."""
    return Money(amount=cents(amount or ZERO), currency=(currency or "EUR").upper())


def cents(amount: Decimal) -> Decimal:
    """:returns: ``amount`` rounded half-up to two decimal places."""
    return amount.quantize(CENT, ROUND_HALF_UP)  # positional: half the time of a keyword


def total(amounts: Iterable[Decimal]) -> Decimal:
    """:returns: the exact sum (no rounding on the way)."""
    return sum(amounts, ZERO)


def totals_by_currency(items: Iterable[Money]) -> list[Money]:
    """:returns: one sum per currency, sorted by currency; never mixes currencies."""
    sums: dict[str, Decimal] = {}
    for item in items:
        sums[item.currency] = sums.get(item.currency, ZERO) + item.amount
    return [Money(amount=cents(v), currency=k) for k, v in sorted(sums.items())]


def rounded_totals(amounts: Iterable[tuple[Decimal, str]]) -> list[Money]:
    """:returns: per currency, the sum of ``amounts`` each rounded to cents first, sorted by
    currency: :func:`totals_by_currency` of their :func:`money`, without a ``Money`` each."""
    sums: dict[str, Decimal] = {}
    for amount, currency in amounts:
        sums[currency] = sums.get(currency, ZERO) + cents(amount)
    return [Money(amount=cents(v), currency=k) for k, v in sorted(sums.items())]


def shown(amount: Decimal | None, currency: str | None = None) -> str:
    """:returns: an amount for a human: always two decimal places and the currency, never an
    exponent (``119.00 EUR``, ``4399.43 EUR``); ``None`` counts as zero."""
    value = money(amount, currency)
    return f"{value.amount:f} {value.currency}"


def shown_price(amount: Decimal, currency: str | None = None) -> str:
    """:returns: a unit price for a human: at least two decimal places, more only where the
    price has them (``0.1234 EUR``), and the currency."""
    exponent = amount.as_tuple().exponent
    exact = amount if isinstance(exponent, int) and exponent < -2 else cents(amount)
    return f"{exact:f} {(currency or 'EUR').upper()}"
