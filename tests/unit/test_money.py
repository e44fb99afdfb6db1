"""Money is exact and never mixes currencies."""

from __future__ import annotations

from decimal import Decimal

import msgspec
import pytest

from sevdesk_mcp.domain.money import (
    Money,
    cents,
    money,
    rounded_totals,
    shown,
    shown_price,
    total,
    totals_by_currency,
)


def test_money_rounds_half_up_to_cents_and_encodes_as_a_string() -> None:
    assert money(Decimal("10.005"), "eur") == Money(amount=Decimal("10.01"), currency="EUR")
    assert money(None, None) == Money(amount=Decimal("0.00"), currency="EUR")
    assert (
        msgspec.json.encode(money(Decimal("0.1") + Decimal("0.2"), "EUR"))
        == b'{"amount":"0.30","currency":"EUR"}'
    )
    assert cents(Decimal("-2.345")) == Decimal("-2.35")


def test_sums_are_exact_and_per_currency() -> None:
    assert total([Decimal("0.1")] * 10) == Decimal("1.0")
    items = [
        money(Decimal("1.10"), "EUR"),
        money(Decimal("2"), "CHF"),
        money(Decimal("3.3"), "EUR"),
    ]
    assert totals_by_currency(items) == [
        Money(amount=Decimal("2.00"), currency="CHF"),
        Money(amount=Decimal("4.40"), currency="EUR"),
    ]


@pytest.mark.threat("issue-12-money")
@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        (Decimal("119"), None, "119.00 EUR"),
        (Decimal("4399.43"), "eur", "4399.43 EUR"),
        (Decimal("1E+2"), "CHF", "100.00 CHF"),
        (None, None, "0.00 EUR"),
        (Decimal("0.005"), None, "0.01 EUR"),
    ],
)
def test_money_is_always_shown_with_two_places_and_its_currency(
    amount: Decimal | None, currency: str | None, expected: str
) -> None:
    assert shown(amount, currency) == expected


def test_a_unit_price_keeps_its_extra_places_but_never_fewer_than_two() -> None:
    assert shown_price(Decimal("0.1234")) == "0.1234 EUR"
    assert shown_price(Decimal("68")) == "68.00 EUR"


def test_rounded_totals_round_each_amount_first_as_money_then_totals_do() -> None:
    amounts = [
        (Decimal("0.005"), "EUR"),
        (Decimal("0.005"), "EUR"),  # 0.01 + 0.01, where the exact sum would round to 0.01
        (Decimal("-1.115"), "CHF"),
        (Decimal("10"), "EUR"),
    ]
    expected = totals_by_currency(money(a, c) for a, c in amounts)
    assert rounded_totals(amounts) == expected
    assert rounded_totals(amounts) == [
        Money(amount=Decimal("-1.12"), currency="CHF"),
        Money(amount=Decimal("10.02"), currency="EUR"),
    ]
