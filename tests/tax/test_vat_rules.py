"""Boxes 73/74: a reverse-charge receipt goes there only when its position text names §13b(2)
no. 2 or 3; the same receipt without such a text stays in 84/85."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.domain.reports.vat_rules import Placement, classify, is_13b_2_3

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
