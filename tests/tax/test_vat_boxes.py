"""The advance VAT return of October 2026 against the tax year, box family by box family.

The expected figures are worked out by hand from the tax year's construction
(``fake/tax_year.py``: SALES and PURCHASES), not by calling the code under test:

- 81 Soll: RE-T-1001 1000.00 (tax 190.00) + RE-T-1002 500.00 (95.00) + GU-T-1001 -100.00
  (-19.00, a credit note on a September invoice) = 1400.00 / 266.00. Ist: RE-T-0902 800.00
  (a September invoice paid on 3 October, 152.00) + RE-T-1002 500.00 (paid 25 October, 95.00)
  + GU-T-1001 -100.00 (refunded 19 October, -19.00) = 1200.00 / 228.00; RE-T-1001 is paid in
  November.
- 86 Soll: RE-T-1002 200.00 (14.00) + RE-T-1003 300.00 (21.00); Ist: only RE-T-1002 (paid).
- 35/36 Soll: RE-T-1004 100.00 at 16 % (16.00); Ist: nothing (unpaid).
- 41 2000.00, 43 1500.00, 48 400.00, 21 800.00, 45 600.00, 60 1200.00, one invoice each.
- 89 ER-T-1003 1000.00 x 19 % = 190.00; 93 ER-T-1004 200.00 x 7 % = 14.00; 61 = 204.00.
- 46/47 ER-T-1005 100.00 x 19 % = 19.00; 84/85 ER-T-1006 500.00 (95.00) + ER-T-1007 300.00
  (57.00, without input tax deduction).
- 73/74 ER-T-1009, a machine transferred as security (§13b(2) no. 2, rule 12, named in its
  position text): 2000.00 x 19 % = 380.00, deductible (rule 12).
- 67 = 19.00 + 95.00 + 380.00 = 494.00.
- 66 ER-T-1001 190.00 + ER-T-1002 3.50 = 193.50.
- Output tax Soll 266 + 35 + 16 + 190 + 14 + 19 + 380 + 152 = 1072.00, input 193.50 + 204.00
  + 494.00 = 891.50, box 83 180.50; Ist 228 + 14 + 0 + 190 + 14 + 19 + 380 + 152 = 997.00,
  box 83 105.50 (the reverse charge of 73/74 and 84/85 from rule 12 nets out against 67).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.domain.reports import vat
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.tax_year import TaxYearFacts
from sevdesk_mcp.sevdesk.client import SevdeskClient

pytestmark = pytest.mark.anyio
D = Decimal
OCTOBER = parse_period("2026-10")


async def _boxes(client: SevdeskClient, method: vat.Method) -> tuple[vat.VatReturn, dict[str, Any]]:
    found = await vat.vat_return(client, OCTOBER, vat.VatBasis(method=method), 50)
    return found, {b.box: b for b in found.boxes}


def _sources(box: vat.Box) -> dict[str, tuple[Decimal | None, Decimal]]:
    return {(s.number or "").strip("⟦⟧"): (s.base, s.tax) for s in box.sources}


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("soll", {"RE-T-1001": (D("1000.00"), D("190.00")),
                  "RE-T-1002": (D("500.00"), D("95.00")),
                  "GU-T-1001": (D("-100.00"), D("-19.00"))}),
        ("ist", {"RE-T-0902": (D("800.00"), D("152.00")),
                 "RE-T-1002": (D("500.00"), D("95.00")),
                 "GU-T-1001": (D("-100.00"), D("-19.00"))}),
    ],
)  # fmt: skip
async def test_box_81_soll_and_ist(
    client: SevdeskClient, method: vat.Method, expected: dict[str, Any]
) -> None:
    _, boxes = await _boxes(client, method)
    assert _sources(boxes["81"]) == expected
    assert boxes["81"].base == sum(b for b, _ in expected.values())
    assert boxes["81"].tax == sum(t for _, t in expected.values())


async def test_boxes_86_and_35_36_follow_payments_under_ist(client: SevdeskClient) -> None:
    _, soll = await _boxes(client, "soll")
    _, ist = await _boxes(client, "ist")
    assert _sources(soll["86"]) == {
        "RE-T-1002": (D("200.00"), D("14.00")),
        "RE-T-1003": (D("300.00"), D("21.00")),
    }
    assert _sources(ist["86"]) == {"RE-T-1002": (D("200.00"), D("14.00"))}
    assert _sources(soll["35/36"]) == {"RE-T-1004": (D("100.00"), D("16.00"))}
    assert ist["35/36"].sources == [] and ist["35/36"].base == D("0.00")


@pytest.mark.parametrize("method", ["soll", "ist"])
@pytest.mark.parametrize(
    ("box", "number", "base"),
    [
        ("41", "RE-T-1005", "2000.00"),
        ("43", "RE-T-1006", "1500.00"),
        ("48", "RE-T-1007", "400.00"),
        ("21", "RE-T-1008", "800.00"),
        ("45", "RE-T-1009", "600.00"),
        ("60", "RE-T-1010", "1200.00"),
    ],
)
async def test_tax_free_and_not_taxable_sales(
    client: SevdeskClient, method: vat.Method, box: str, number: str, base: str
) -> None:
    _, boxes = await _boxes(client, method)
    assert _sources(boxes[box]) == {number: (D(base), D("0.00"))}
    assert boxes[box].base == D(base)


@pytest.mark.parametrize("method", ["soll", "ist"])
async def test_intra_eu_acquisitions(client: SevdeskClient, method: vat.Method) -> None:
    _, boxes = await _boxes(client, method)
    assert _sources(boxes["89"]) == {"ER-T-1003": (D("1000.00"), D("190.00"))}
    assert _sources(boxes["93"]) == {"ER-T-1004": (D("200.00"), D("14.00"))}
    assert _sources(boxes["61"]) == {
        "ER-T-1003": (None, D("190.00")),
        "ER-T-1004": (None, D("14.00")),
    }
    assert boxes["61"].tax == D("204.00")


@pytest.mark.parametrize("method", ["soll", "ist"])
async def test_reverse_charge_received(client: SevdeskClient, method: vat.Method) -> None:
    _, boxes = await _boxes(client, method)
    assert _sources(boxes["46/47"]) == {"ER-T-1005": (D("100.00"), D("19.00"))}
    assert _sources(boxes["84/85"]) == {
        "ER-T-1006": (D("500.00"), D("95.00")),
        "ER-T-1007": (D("300.00"), D("57.00")),
    }
    # ER-T-1007 is reverse charge without input tax deduction: not in 67
    assert _sources(boxes["67"]) == {
        "ER-T-1005": (None, D("19.00")),
        "ER-T-1006": (None, D("95.00")),
        "ER-T-1009": (None, D("380.00")),
    }
    assert boxes["67"].tax == D("494.00")


@pytest.mark.parametrize("method", ["soll", "ist"])
async def test_boxes_73_74_security_transfer(client: SevdeskClient, method: vat.Method) -> None:
    # ER-T-1009: 2000.00 at "0 % (19 %)", its text names §13b(2) no. 2 -> 73 2000.00, 74 380.00
    _, boxes = await _boxes(client, method)
    assert _sources(boxes["73/74"]) == {"ER-T-1009": (D("2000.00"), D("380.00"))}
    assert (boxes["73/74"].base, boxes["73/74"].tax) == (D("2000.00"), D("380.00"))
    assert "ER-T-1009" not in _sources(boxes["84/85"])


@pytest.mark.parametrize("method", ["soll", "ist"])
async def test_input_tax_from_invoices(client: SevdeskClient, method: vat.Method) -> None:
    _, boxes = await _boxes(client, method)
    assert _sources(boxes["66"]) == {
        "ER-T-1001": (None, D("190.00")),
        "ER-T-1002": (None, D("3.50")),
    }


@pytest.mark.parametrize(
    ("method", "output", "balance"),
    [("soll", "1072.00", "180.50"), ("ist", "997.00", "105.50")],
)
async def test_box_83_balance(
    client: SevdeskClient, method: vat.Method, output: str, balance: str
) -> None:
    found, _ = await _boxes(client, method)
    assert found.output_tax == D(output)
    assert found.input_tax == D("891.50")
    assert found.box_83 == D(balance)


async def test_nothing_is_dropped(client: SevdeskClient) -> None:
    found, _ = await _boxes(client, "soll")
    assert [(u.number, u.net) for u in found.unclassified] == [("⟦RE-T-1011⟧", D("250.00"))]
    assert "0 %" in found.unclassified[0].reason
    outside = {o.reason: o.items for o in found.outside}
    assert ["⟦RE-T-1012⟧"] in outside.values()  # the OSS sale
    assert ["⟦ER-T-1008⟧"] in outside.values()  # insurance, no input tax
    assert any("drafts" in q and "not counted" in q for q in found.open_questions)
    assert any("73/74" in q for q in found.open_questions)
    assert found.differences == []


async def test_a_difference_to_sevdesks_own_totals_is_reported(
    year: tuple[FakeSevdesk, TaxYearFacts], client: SevdeskClient
) -> None:
    fake, facts = year
    invoice = fake.store.invoices.get(facts.documents["RE-T-1003"])
    invoice.sumTax += D("0.01")  # sevDesk's total no longer equals its positions
    found, _ = await _boxes(client, "soll")
    assert [(d.number, d.sevdesk_tax, d.positions_tax) for d in found.differences] == [
        ("⟦RE-T-1003⟧", D("21.01"), D("21.00"))
    ]


async def test_a_quarter_holds_its_months(client: SevdeskClient) -> None:
    quarter = await vat.vat_return(client, parse_period("2026-Q4"), vat.VatBasis(), 50)
    boxes = {b.box: b for b in quarter.boxes}
    # RE-T-1102 (250.00, rule 3) has no VAT id: taxable at home, not in box 41
    assert boxes["41"].base == D("2000.00") + D("700.00") - D("100.00")
    # 250.00 / 1.19 = 210.084 -> base 210.08, tax 250.00 - 210.08 = 39.92 (§10(1) S. 2 UStG)
    assert _sources(boxes["81"])["RE-T-1102"] == (D("210.08"), D("39.92"))
    assert any("RE-T-1102" in q and "VAT id" in q for q in quarter.open_questions)
