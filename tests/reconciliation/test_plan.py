"""Allocation planning: payment types per booking, what stays open, and over-booking refused."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from sevdesk_mcp.domain.reconciliation.model import DocKind, OpenDoc, Terms, Tx
from sevdesk_mcp.domain.reconciliation.plan import Wanted, plan_allocations
from sevdesk_mcp.errors import ToolError, ToolInputError

DAY = dt.date(2026, 11, 10)


def _doc(
    ident: int,
    gross: str,
    *,
    kind: DocKind = "invoice",
    open_: str | None = None,
    terms: Terms | None = None,
) -> OpenDoc:
    sign = 1 if kind == "invoice" else -1
    terms = terms or Terms(14)
    return OpenDoc(
        kind,
        ident,
        f"RE-{ident}",
        1,
        None,
        sign,
        Decimal(gross),
        Decimal(open_ or gross),
        "EUR",
        DAY,
        terms,
    )


def _tx(amount: str) -> Tx:
    return Tx(1, 5001, Decimal(amount), abs(Decimal(amount)), DAY, None, None, None)


def test_one_booking_that_settles_with_all_of_the_transaction_is_a_full_payment() -> None:
    plan = plan_allocations(_tx("100.00"), [Wanted(_doc(1, "100.00"))])
    (one,) = plan.allocations
    assert (one.payment_type, one.booked, one.open_after, plan.rest_after) == (
        "FULL_PAYMENT",
        "full",
        Decimal(0),
        Decimal(0),
    )


def test_a_collective_payment_books_each_document_in_parts_and_keeps_the_rest() -> None:
    docs = [Wanted(_doc(1, "100.00")), Wanted(_doc(2, "50.00"))]
    plan = plan_allocations(_tx("160.00"), docs)
    assert [a.payment_type for a in plan.allocations] == ["N", "N"]  # Q28
    assert plan.rest_after == Decimal("10.00")


def test_cash_discount_and_fees_settle_and_write_off_the_rest() -> None:
    skonto = _doc(1, "1000.00", terms=Terms(30, Decimal(2), 10))
    plan = plan_allocations(_tx("980.00"), [Wanted(skonto, settle="cash_discount")])
    assert (plan.allocations[0].payment_type, plan.allocations[0].written_off) == (
        "CB",
        Decimal("20.00"),
    )
    plan = plan_allocations(_tx("990.00"), [Wanted(_doc(2, "1000.00"), settle="fees")])
    assert (plan.allocations[0].payment_type, plan.allocations[0].open_after) == ("MTC", Decimal(0))


def test_a_partial_payment_leaves_the_rest_open() -> None:
    plan = plan_allocations(_tx("400.00"), [Wanted(_doc(1, "1000.00"))])
    assert (plan.allocations[0].payment_type, plan.allocations[0].open_after) == (
        "N",
        Decimal("600.00"),
    )


@pytest.mark.parametrize(
    ("amount", "wanted", "expected"),
    [
        ("100.00", [Wanted(_doc(1, "100.00"), Decimal("120.00"))], "has only 100.00 EUR open"),
        (
            "100.00",
            [Wanted(_doc(1, "80.00")), Wanted(_doc(2, "80.00"), Decimal("30.00"))],
            "has only 20.00 EUR left",
        ),
        ("-100.00", [Wanted(_doc(1, "100.00"))], "is outgoing money"),
        ("980.00", [Wanted(_doc(1, "1000.00"), settle="cash_discount")], "grant no cash discount"),
        ("900.00", [Wanted(_doc(1, "1000.00"), settle="fees")], "more than the 25.00 EUR allowed"),
    ],
)
def test_plans_that_over_book_or_do_not_fit_are_refused(
    amount: str, wanted: list[Wanted], expected: str
) -> None:
    with pytest.raises(ToolError, match=expected):
        plan_allocations(_tx(amount), wanted)


def test_an_empty_or_repeated_plan_is_refused() -> None:
    with pytest.raises(ToolInputError):
        plan_allocations(_tx("1.00"), [])
    doc = _doc(1, "1.00")
    with pytest.raises(ToolInputError, match="appears twice"):
        plan_allocations(_tx("1.00"), [Wanted(doc), Wanted(doc)])
