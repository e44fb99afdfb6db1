"""The VAT return by German law against the cases of ``fake/cases_vat.py``.

Every expected figure is worked out here by hand from the records (german-tax-rules §1):

- RE-L-01 1000.00 at 19 %, invoiced 2 April, delivered 30 March: March (§13(1) no. 1a).
- RE-L-02 2000.00, a service 15 March to 14 April, invoiced 15 April: April, at its end.
- RE-L-03 300.00, a service 1 March to 31 May priced "monatlich": 100.00 / 19.00 per month.
- RE-L-04 5000.00 (gross 5950.00) delivered 20 April; 1190.00 received on 20 March is an
  advance payment: 1190 / 5950 = 0.2 of it, 1000.00 / 190.00, in March; 4000.00 / 760.00 in
  April.
- RE-L-05 1000.00 (gross 1190.00), 3 % Skonto within 10 days, paid 1154.30 on 2 April (CB):
  March 1000.00 / 190.00; April the §17 correction 35.70 / 1190 = 0.03 of it: -30.00 / -5.70.
- RE-L-06 500.00 (gross 595.00), no Skonto terms, closed with 580.00 on 10 April: asked;
  reduced only on request: 15 / 595 of 500.00 = 12.605 -> -12.61, of 95.00 = 2.3949 -> -2.39.
- RE-L-07 1500.00 intra-EU with a VAT id, delivered 31 March, invoiced 5 May: box 41 of April
  (the invoice month, at the latest the month after the supply, §18b S. 2).
- RE-L-08 1190.00 intra-EU without a VAT id, 12 March: taxable, VAT taken out of the amount:
  1190 / 1.19 = 1000.00 base, 190.00 tax in box 81 of March.
- ER-L-01 250.00 from Ireland (VAT id IE…, "Reverse charge" in its text) entered under rule 9 at
  0 %: no box, an open question naming 46/47 and 67 with 250.00 x 19 % = 47.50.
- ER-L-02 400.00 from Ireland under rule 14: 46/47 400.00 / 76.00 and 67 76.00 in March.
- ER-L-03 2000.00 + 380.00 input tax, paid 2332.40 on 10 March (CB): the purchase discount
  47.60 / 2380 = 0.02 reduces the input tax by 7.60: box 66 of March 372.40.
- ER-L-04 100.00 + 19.00, invoiced 28 March, delivered 3 April: box 66 of April (the later).
- ER-L-05 a hotel in Vienna at 0 %: no box and no question (place of supply abroad).
- ER-L-06 600.00, US consulting with "reverse charge" in its text, rule 9 at 0 %, 8 April: a
  question naming 84/85 and 67, 114.00.

March, Soll: 81 = 1000 + 100 + 1000 + 1000 + 500 + 1000 = 4600.00 / 874.00; output 874.00 +
76.00 = 950.00; input 372.40 + 76.00 = 448.40; box 83 501.60.
April, Soll: 81 = 2000 + 100 + 4000 - 30 = 6070.00 / 380 + 19 + 760 - 5.70 = 1153.30; 66
19.00; box 83 1134.30. With shortfalls=reduce: 6057.39 / 1150.91, box 83 1131.91.
March, Ist: only RE-L-04's 1190.00 was received: 1000.00 / 190.00; box 83 266.00 - 448.40 =
-182.40. April, Ist: RE-L-04 4760 / 5950 = 0.8: 4000.00 / 760.00; RE-L-05 1154.30 / 1190 =
0.97: 970.00 / 184.30; RE-L-06 580 / 595 of 500 = 487.39, of 95 = 92.605 -> 92.61; no §17
correction (Ist taxes what was received): 5457.39 / 1036.91.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain.reports import vat, zm
from sevdesk_mcp.domain.reports.books import Books, Line, Record
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.domain.reports.vat.compute import NO_DELIVERY_DATE
from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.cases_vat import (
    SMALL_TOKEN,
    VAT_CASES_TOKEN,
    build_small_business,
    build_vat_cases,
)
from sevdesk_mcp.fake.tax_year import TaxYearFacts
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.wire import AccountDatev
from tests.demo_account import DEMO_URL, fake_client
from tests.finance.helpers import call

pytestmark = pytest.mark.anyio
D = Decimal
MARCH, APRIL = parse_period("2026-03"), parse_period("2026-04")


async def _return(
    period: str,
    method: vat.Method | None = "soll",
    shortfalls: vat.Shortfalls = "ask",
    small: bool | None = None,
) -> tuple[vat.VatReturn, dict[str, Any]]:
    fake, _ = build_vat_cases()
    client = fake_client(fake, token=VAT_CASES_TOKEN)
    basis = vat.VatBasis(method=method, method_source="test", small_business=small)
    found = await vat.vat_return(client, parse_period(period), basis, 50, shortfalls)
    return found, {b.box: b for b in found.boxes}


def _sources(box: vat.Box) -> list[tuple[str, Decimal | None, Decimal]]:
    return sorted(((s.number or "").strip("⟦⟧"), s.base, s.tax) for s in box.sources)


async def test_march_soll_counts_each_sale_in_the_month_of_its_supply() -> None:
    found, boxes = await _return("2026-03")
    assert _sources(boxes["81"]) == [
        ("RE-L-01", D("1000.00"), D("190.00")),
        ("RE-L-03", D("100.00"), D("19.00")),
        ("RE-L-04", D("1000.00"), D("190.00")),
        ("RE-L-05", D("1000.00"), D("190.00")),
        ("RE-L-06", D("500.00"), D("95.00")),
        ("RE-L-08", D("1000.00"), D("190.00")),
    ]
    assert (boxes["81"].base, boxes["81"].tax) == (D("4600.00"), D("874.00"))
    assert (boxes["81"].form_base, boxes["81"].form_tax) == (D("4600"), D("874.00"))
    assert boxes["41"].sources == []
    assert (found.output_tax, found.input_tax, found.box_83) == (
        D("950.00"),
        D("448.40"),
        D("501.60"),
    )


async def test_april_soll_service_period_advance_rest_and_skonto() -> None:
    found, boxes = await _return("2026-04")
    assert _sources(boxes["81"]) == [
        ("RE-L-02", D("2000.00"), D("380.00")),
        ("RE-L-03", D("100.00"), D("19.00")),
        ("RE-L-04", D("4000.00"), D("760.00")),
        ("RE-L-05", D("-30.00"), D("-5.70")),
    ]
    assert (boxes["81"].base, boxes["81"].tax) == (D("6070.00"), D("1153.30"))
    notes = {(s.number or "").strip("⟦⟧"): s.note for s in boxes["81"].sources}
    assert notes["RE-L-05"] and "Skonto" in notes["RE-L-05"]
    assert notes["RE-L-03"] and "2026-04" in notes["RE-L-03"]
    assert _sources(boxes["41"]) == [("RE-L-07", D("1500.00"), D("0.00"))]
    assert _sources(boxes["66"]) == [("ER-L-04", None, D("19.00"))]
    assert found.box_83 == D("1134.30")


async def test_the_advance_payment_is_named_in_march() -> None:
    _, boxes = await _return("2026-03")
    advance = [s for s in boxes["81"].sources if s.number == "⟦RE-L-04⟧"]
    assert advance[0].note and "advance payment received 2026-03-20" in advance[0].note


async def test_a_shortfall_without_terms_is_asked_then_reduced_on_request() -> None:
    asked, _ = await _return("2026-04")
    question = [q for q in asked.open_questions if q.startswith("RE-L-06")]
    assert question and "15.00 EUR of 595.00" in question[0]
    assert "base -12.61 and tax -2.39" in question[0]
    reduced, boxes = await _return("2026-04", shortfalls="reduce")
    assert ("RE-L-06", D("-12.61"), D("-2.39")) in _sources(boxes["81"])
    assert (boxes["81"].base, boxes["81"].tax) == (D("6057.39"), D("1150.91"))
    assert reduced.box_83 == D("1131.91")
    assert not [q for q in reduced.open_questions if q.startswith("RE-L-06")]


async def test_ist_counts_what_was_received_without_corrections() -> None:
    march, boxes = await _return("2026-03", method="ist")
    assert _sources(boxes["81"]) == [("RE-L-04", D("1000.00"), D("190.00"))]
    assert march.box_83 == D("-182.40")
    _, april = await _return("2026-04", method="ist")
    assert _sources(april["81"]) == [
        ("RE-L-04", D("4000.00"), D("760.00")),
        ("RE-L-05", D("970.00"), D("184.30")),
        ("RE-L-06", D("487.39"), D("92.61")),
    ]
    assert (april["81"].base, april["81"].tax) == (D("5457.39"), D("1036.91"))


async def test_a_delivery_before_the_invoice_month_is_named_in_the_invoice_month() -> None:
    found, boxes = await _return("2026-04")
    assert "RE-L-01" not in [n for n, _, _ in _sources(boxes["81"])]
    assert any(q.startswith("RE-L-01") and "2026-03" in q for q in found.open_questions)
    assert any(q.startswith("RE-L-02") and "service period" in q for q in found.open_questions)


async def test_an_eu_supply_without_vat_id_is_taxable_at_home() -> None:
    found, boxes = await _return("2026-03")
    assert ("RE-L-08", D("1000.00"), D("190.00")) in _sources(boxes["81"])
    question = [q for q in found.open_questions if q.startswith("RE-L-08")]
    assert question and "§6a(1)" in question[0] and "box 81" in question[0]


async def test_receipts_from_abroad_entered_without_reverse_charge_are_named() -> None:
    march, boxes = await _return("2026-03")
    assert _sources(boxes["46/47"]) == [("ER-L-02", D("400.00"), D("76.00"))]
    assert _sources(boxes["67"]) == [("ER-L-02", None, D("76.00"))]
    wrong = [q for q in march.open_questions if q.startswith("ER-L-01")]
    assert wrong and "46/47 and 67" in wrong[0] and "tax 47.50" in wrong[0]
    assert "rule 14" in wrong[0]
    assert not [q for q in march.open_questions if q.startswith("ER-L-05")]  # hotel abroad
    april, _ = await _return("2026-04")
    us = [q for q in april.open_questions if q.startswith("ER-L-06")]
    assert us and "84/85 and 67" in us[0] and "tax 114.00" in us[0]


async def test_a_purchase_discount_reduces_the_input_tax() -> None:
    _, boxes = await _return("2026-03")
    assert _sources(boxes["66"]) == [("ER-L-03", None, D("-7.60")), ("ER-L-03", None, D("380.00"))]
    assert boxes["66"].tax == D("372.40")


async def test_the_method_and_its_source_are_stated() -> None:
    found, _ = await _return("2026-03", method=None)
    method = next(a for a in found.assumptions if a.subject == "VAT method")
    assert method.value == "soll" and "statutory default" in method.source
    assert "SEVDESK_VAT_METHOD=ist" in method.source
    small = next(a for a in found.assumptions if a.subject.startswith("small business"))
    assert small.value == "no" and "assumed" in small.source


async def test_the_eu_sales_list_uses_the_reporting_dates_of_box_41() -> None:
    fake, _ = build_vat_cases()
    client = fake_client(fake, token=VAT_CASES_TOKEN)
    march = await zm.eu_sales_list(client, MARCH)
    april = await zm.eu_sales_list(client, APRIL)
    assert march.lines == []
    assert [(line.vat_id, line.kind, line.amount) for line in april.lines] == [
        ("FR12345678901", "L", D("1500.00"))
    ]
    assert [s.number for s in march.missing_vat_id] == ["⟦RE-L-08⟧"]


async def test_a_small_business_declares_only_reverse_charge_without_deduction() -> None:
    # ER-K-01: 100.00 from Ireland under rule 14 -> 46/47 100.00 / 19.00, no 67 (§19(1) S. 4);
    # RE-K-01 (rule 11) is exempt and not declared; ER-K-02 in April: no deduction, no return
    client = fake_client(build_small_business(), token=SMALL_TOKEN)
    march = await vat.vat_return(client, MARCH, vat.VatBasis(), 50)
    boxes = {b.box: b for b in march.boxes}
    assert march.small_business is True
    assert _sources(boxes["46/47"]) == [("ER-K-01", D("100.00"), D("19.00"))]
    assert boxes["67"].sources == [] and boxes["81"].sources == []
    assert march.box_83 == D("19.00") and march.return_due is True
    small = next(a for a in march.assumptions if a.subject.startswith("small business"))
    assert "smallSettlement" in small.source
    april = await vat.vat_return(client, APRIL, vat.VatBasis(), 50)
    assert april.return_due is False and april.box_83 == D("0.00")
    assert any("no input tax deduction" in o.reason for o in april.outside)


def _app(env: dict[str, str]) -> McpApp:
    fake, _ = build_vat_cases()
    config = load_config({**env, "SEVDESK_API_URL": DEMO_URL})
    client = fake_client(fake, config, token=VAT_CASES_TOKEN)
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(config).build(account)


@pytest.mark.parametrize(
    ("env", "arguments", "method", "source"),
    [
        ({}, {}, "soll", "assumed: Soll"),
        ({"SEVDESK_VAT_METHOD": "ist"}, {}, "ist", "setting SEVDESK_VAT_METHOD"),
        ({"SEVDESK_VAT_METHOD": "ist"}, {"method": "soll"}, "soll", "the call's method argument"),
    ],
)
async def test_the_tool_takes_the_method_from_the_call_then_the_setting(
    env: dict[str, str], arguments: dict[str, str], method: str, source: str
) -> None:
    answer = await call(_app(env), "sevdesk_vat_return", period="2026-03", **arguments)
    assert answer["method"] == method
    stated = next(a for a in answer["assumptions"] if a["subject"] == "VAT method")
    assert stated["source"].startswith(source)


async def test_the_small_business_setting_wins_over_sevdesk() -> None:
    answer = await call(_app({"SEVDESK_SMALL_BUSINESS": "yes"}), "sevdesk_vat_return",
                        period="2026-03")  # fmt: skip
    assert answer["small_business"] is True
    boxes = {b["box"]: b for b in answer["boxes"]}
    assert boxes["66"]["sources"] == [] and boxes["81"]["sources"] == []
    # a small business that shows VAT on its invoices owes it (§14c(2) UStG): named, not placed
    shown = [u for u in answer["unclassified"] if "§14c(2)" in u["reason"]]
    assert {u["number"] for u in shown} >= {"⟦RE-L-01⟧", "⟦RE-L-05⟧"}


async def test_the_demo_books_count_deliveries_in_their_month() -> None:
    # The reviewing accountant's figures (issue 36): RE-1024 (invoiced 2 July, delivered
    # 30 June) puts 1029.00 / 72.03 at 7 % into June; Q3 at 7 % is RE-1025 714.00 + RE-1026
    # 595.00 + RE-1027 833.00 + RE-1028 620.20 + RE-1032 (invoiced 1 October, delivered
    # 29 September) 606.90 = 3369.10, tax 49.98 + 41.65 + 58.31 + 43.41 + 42.48 = 235.83.
    client = fake_client(build_demo())
    june = await vat.vat_return(client, parse_period("2026-06"), vat.VatBasis(), 50)
    q3 = await vat.vat_return(client, parse_period("2026-Q3"), vat.VatBasis(), 50)
    box = {b.box: b for b in june.boxes}["86"]
    assert (box.base, box.tax) == (D("1029.00"), D("72.03"))
    box = {b.box: b for b in q3.boxes}["86"]
    assert (box.base, box.tax) == (D("3369.10"), D("235.83"))


async def test_a_sale_without_delivery_date_says_so_next_to_its_figure(
    year: tuple[FakeSevdesk, TaxYearFacts], client: SevdeskClient
) -> None:
    # RE-T-1003 (300.00 at 7 %, 8 October) loses its delivery date: it is counted by its
    # invoice date, and both its source and an open question say so
    fake, facts = year
    fake.store.invoices.get(facts.documents["RE-T-1003"]).deliveryDate = None
    found = await vat.vat_return(client, parse_period("2026-10"), vat.VatBasis(), 50)
    box = {b.box: b for b in found.boxes}["86"]
    source = next(s for s in box.sources if s.number == "⟦RE-T-1003⟧")
    assert (source.base, source.note) == (D("300.00"), NO_DELIVERY_DATE)
    assert any("no delivery date" in q and "RE-T-1003" in q for q in found.open_questions)
    assert all(o.net.as_tuple().exponent == -2 for o in found.outside)  # "1284.00", not "1284"


def _gift(ident: int, net: str) -> Record:
    amount = D(net)
    return Record(
        kind="receipt", id=ident, number=f"G-{ident}", day=dt.date(2026, 3, 5), delivered=None,
        draft=False, revenue=False, rule=9, contact_id=None, country_id=None, currency="EUR",
        gross=amount * D("1.19"), own_net=amount, own_tax=amount * D("0.19"),
        lines=(Line(amount, amount * D("0.19"), D(19), 1, "Präsentkorb"),),
    )  # fmt: skip


def test_the_input_tax_of_a_gift_over_50_euros_is_not_deducted() -> None:
    # G-1 80.00 net on 4630 (over the 50 EUR limit): its 15.20 input tax is not deductible;
    # G-2 40.00 net: 7.60 in box 66 (§15(1a) UStG)
    books = Books(
        records=[_gift(1, "80.00"), _gift(2, "40.00")],
        contacts={},
        countries={},
        accounts={1: AccountDatev(id=1, number="4630")},
        truncated=False,
    )
    found = vat.compute(books, MARCH, vat.VatBasis(), 50)
    box = {b.box: b for b in found.boxes}["66"]
    assert [(s.number, s.tax) for s in box.sources] == [("⟦G-2⟧", D("7.60"))]
    gifts = [o for o in found.outside if o.reason.startswith("gift over 50 EUR")]
    assert [(o.net, o.items) for o in gifts] == [(D("80.00"), ["⟦G-1⟧"])]
