"""Boxes 73/74: a reverse-charge receipt goes there only when its position text names §13b(2)
no. 2 or 3; the same receipt without such a text stays in 84/85. A foreign receipt entered at 0 %
without reverse charge is placed by origin and kind (german-tax-rules §1)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.domain.reports.books import Books, Line, Record
from sevdesk_mcp.domain.reports.vat.foreign import misplaced
from sevdesk_mcp.domain.reports.vat.rules import Placement, classify, is_13b_2_3
from sevdesk_mcp.sevdesk.wire import AccountDatev, Contact

D = Decimal


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Formatkreissäge, sicherungsübereignet; §13b Abs. 2 Nr. 2 UStG", True),
        ("§ 13b Abs. 2 Nr. 3 UStG (Grundstück, Option nach § 9)", True),
        ("reverse charge, §13b(2) no. 3", True),
        ("Kaufvertrag Gewerbegrundstück, GrEStG", True),
        ("Sicherungsübereignung Lkw", True),
        ("Bauleistung §13b Abs. 2 Nr. 4 UStG", False),
        ("§13b Abs. 2 Nr. 10 (Mobilfunkgeräte)", False),
        ("Beratung aus dem Drittland", False),
        (None, False),
    ],
)
def test_which_texts_name_13b_2_no_2_or_3(text: str | None, named: bool) -> None:
    assert is_13b_2_3(text) is named


@pytest.mark.parametrize(
    ("rule", "text", "expected"),
    [
        (12, "sicherungsübereignet", (Placement("73/74", D(1000), D("190.00")),
                                      Placement("67", None, D("190.00")))),
        (13, "GrEStG", (Placement("73/74", D(1000), D("190.00")),)),
        (12, "Bauleistung", (Placement("84/85", D(1000), D("190.00")),
                             Placement("67", None, D("190.00")))),
        (14, "sicherungsübereignet", (Placement("46/47", D(1000), D("190.00")),
                                      Placement("67", None, D("190.00")))),
    ],
)  # fmt: skip
def test_the_text_moves_rules_12_and_13_only(
    rule: int, text: str, expected: tuple[Placement, ...]
) -> None:
    verdict = classify(rule, D(0), D(1000), D(0), revenue=False, text=text)
    assert verdict.placements == expected


def test_a_sale_is_never_moved_by_its_text() -> None:
    verdict = classify(5, D(0), D(1000), D(0), revenue=True, text="GrEStG")
    assert verdict.placements == (Placement("60", D(1000), D(0)),)


def _receipt(account: int, vat_id: str | None, text: str, ibans: tuple[str, ...] = ()) -> Any:
    books = Books(
        records=[],
        contacts={7: Contact(id=7, name="Supplier", vatNumber=vat_id)},
        countries={},
        accounts={1: AccountDatev(id=1, number="3400"), 2: AccountDatev(id=2, number="4806")},
        truncated=False,
    )
    record = Record(
        kind="receipt", id=1, number="R-1", day=dt.date(2026, 3, 1), delivered=None,
        draft=False, revenue=False, rule=9, contact_id=7, country_id=None, currency="EUR",
        gross=Decimal("100.00"), own_net=Decimal("100.00"), own_tax=Decimal(0),
        lines=(Line(Decimal("100.00"), Decimal(0), Decimal(0), account, text),), ibans=ibans,
    )  # fmt: skip
    return misplaced(books, record, deductible=True)


def test_foreign_goods_from_the_eu_belong_in_89_and_61() -> None:
    found = _receipt(1, "FR40303265045", "Eichenbohlen")
    assert (found.boxes, found.base, found.tax) == (
        "89 and 61",
        Decimal("100.00"),
        Decimal("19.00"),
    )


def test_goods_from_outside_the_eu_are_an_import_without_a_hint() -> None:
    assert _receipt(1, "CHE123456789", "Beschläge") is None


def test_a_foreign_iban_alone_is_evidence() -> None:
    found = _receipt(2, None, "Lizenz", ibans=("IE29AIBK93115212345678",))
    assert found.boxes == "46/47 and 67" and "IBAN IE" in found.evidence[0]


def test_a_domestic_receipt_at_zero_percent_gets_no_hint() -> None:
    assert _receipt(2, "DE123456789", "Lizenz") is None
