"""The profit and loss by the law (issue 36, item 6) against the EÜR case books
(``sevdesk_mcp/fake/cases_euer.py``): every expected figure is worked out here by hand from
the records listed there, never by the code under test."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain.reports import euer
from sevdesk_mcp.domain.reports.company import CompanyFacts
from sevdesk_mcp.domain.reports.euer.model import EuerLine, ProfitAndLoss
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.cases_euer import EUER_TOKEN, GMBH, SOLE, build_euer_case
from sevdesk_mcp.server import ServerFactory
from tests.demo_account import DEMO_URL, fake_client
from tests.finance.helpers import call

pytestmark = pytest.mark.anyio
D = Decimal
F = "⟦{}⟧".format  # third-party text (receipt numbers) is fenced
YEAR = parse_period("2026")


async def _pnl(name: str = SOLE, period: str = "2026", **choices: Any) -> ProfitAndLoss:
    fake, _ = build_euer_case(name)
    client = fake_client(fake, token=EUER_TOKEN)
    return await euer.profit_and_loss(
        client, parse_period(period), choices.pop("basis", "cash"), CompanyFacts(**choices)
    )


def _lines(found: ProfitAndLoss) -> dict[str, EuerLine]:
    return {line.key: line for line in found.lines}


def _amounts(found: ProfitAndLoss) -> dict[str, Decimal]:
    return {line.key: line.amount for line in found.lines}


async def test_the_sole_proprietor_gets_the_euer_gross_on_its_lines() -> None:
    found = await _pnl()
    # income, paid in 2026: RE-E-01 10,000 + 1,900 VAT (20.3.); RE-E-02 2,000 + 140 VAT (5.12.);
    # RE-E-04 export 3,000 without VAT (30.6.); RE-E-03 is unpaid; VAT refund FA-2025-J 300
    # expenses: rent 1,000; GWG 649 (acquired 12.11., unpaid); meal 160 -> 70 % = 112; small
    # gift 30; input tax paid: rent 190 + laptop 266 + meal 8.40 + 7.60 + small gift 5.70
    # = 477.70; VAT paid to the tax office: 1,200 (10.7.) + 850 (8.1.2027, for December)
    assert _amounts(found) == {
        "taxable_income": D("12000.00"),  # 10,000 + 2,000
        "tax_free_income": D("3000.00"),
        "vat_received": D("2040.00"),  # 1,900 + 140
        "vat_refunded": D("300.00"),
        "gwg": D("649.00"),
        "rent": D("1000.00"),
        "input_tax": D("477.70"),  # 190 + 266 + 8.40 + 7.60 + 5.70
        "vat_paid": D("2050.00"),  # 1,200 + 850
        "gifts": D("30.00"),
        "gifts_apart": D("95.20"),  # 80 + 15.20 VAT
        "meals": D("112.00"),  # 120 - 36 + 40 - 12
        "meals_apart": D("48.00"),  # 30 % of 120 and of 40
    }
    income = D("12000.00") + D("3000.00") + D("2040.00") + D("300.00")  # 17,340.00
    expenses = D("1000.00") + D("649.00") + D("112.00") + D("30.00") + D("477.70") + D("2050.00")
    assert (found.income, found.expenses) == (income, expenses)  # 17,340.00 / 4,318.70
    assert found.result == D("13021.30") == income - expenses
    assert found.not_deductible == D("143.20")  # 95.20 + 48.00, shown apart, not deducted
    assert (found.kind, found.basis) == ("euer", "cash")
    assert found.legal_form.value == "sole_proprietor" and "e.K." in found.legal_form.source


async def test_every_figure_names_its_line_of_the_year() -> None:
    found = _lines(await _pnl())
    assert (found["vat_received"].kz, found["input_tax"].kz, found["vat_paid"].kz) == (
        "140",
        "185",
        "186",
    )
    assert (found["meals"].kz, found["meals_apart"].kz, found["gwg"].kz) == ("175", "165", "132")
    assert found["vat_received"].line == 17 and found["vat_paid"].line == 59  # form 2026
    assert {line.line_status for line in found.values()} == {"unconfirmed"}  # 2026 unchecked


async def test_the_gwg_bought_in_november_and_unpaid_is_expensed_in_its_year() -> None:
    found = await _pnl()
    (gwg,) = [a for a in found.assets if a.receipt == F("ER-E-02")]
    assert (gwg.treatment, gwg.net, gwg.paid, gwg.account) == ("gwg", D("649.00"), False, "0480")
    assert _lines(found)["gwg"].sources == [F("ER-E-02")]
    assert F("ER-E-02") not in _lines(found)["input_tax"].sources  # its 123.31 VAT is unpaid
    assert found.low_value_assets.value == "gwg"
    assert found.low_value_assets.source.startswith("assumed")


async def test_the_laptop_is_an_asset_with_the_depreciation_to_enter() -> None:
    found = await _pnl()
    (laptop,) = [a for a in found.assets if a.receipt == F("ER-E-03")]
    assert (laptop.treatment, laptop.net, laptop.account) == ("asset", D("1400.00"), "4980")
    assert laptop.to_do is not None and "1-year" in laptop.to_do and "BMF 22.2.2022" in laptop.to_do
    assert "taken as an asset because of its net amount" in laptop.why
    assert all(F("ER-E-03") not in line.sources for line in found.lines if line.key != "input_tax")


async def test_gifts_above_50_eur_are_apart_with_their_input_tax() -> None:
    found = _lines(await _pnl())
    assert found["gifts_apart"].sources == [F("ER-E-05")]  # 80 net > 50: 80 + 15.20 apart
    assert found["gifts"].sources == [F("ER-E-06")]  # 30 net <= 50: deductible
    assert (
        F("ER-E-05") not in found["input_tax"].sources
        and F("ER-E-06") in found["input_tax"].sources
    )


async def test_the_december_vat_paid_in_january_belongs_to_the_old_year() -> None:
    this_year = _lines(await _pnl())["vat_paid"]
    assert this_year.sources == [F("FA-2026-06"), F("FA-2026-12")]  # FA-2025-12 counts in 2025
    assert (await _pnl(period="2025")).lines[-1].sources == [F("FA-2025-12")]
    assert not [x for x in (await _pnl(period="2027")).lines if x.key == "vat_paid"]


async def test_with_dauerfristverlaengerung_the_january_payment_stays_in_its_year() -> None:
    found = await _pnl(vat_extension=True)
    # 1,200 (July) + 700 (9.1.2026: due 10 February with the extension); 850 moves to 2027
    assert _amounts(found)["vat_paid"] == D("1900.00")
    assert found.result == D("13021.30") + D("850.00") - D("700.00")
    assert _amounts(await _pnl(period="2027", vat_extension=True))["vat_paid"] == D("850.00")


async def test_the_pool_writes_off_a_fifth_of_the_year() -> None:
    found = await _pnl(low_value_by_year={2026: "pool"})
    amounts = _amounts(found)
    assert "gwg" not in amounts
    assert amounts["pool"] == D("129.80")  # 649.00 / 5
    assert found.result == D("13021.30") + D("649.00") - D("129.80")  # 13,540.50
    assert found.low_value_assets.source == "setting SEVDESK_LOW_VALUE_ASSETS (2026:pool)"
    (laptop,) = [a for a in found.assets if a.receipt == F("ER-E-03")]
    assert laptop.treatment == "asset"  # 1,400 > 1,000: above the pool too


async def test_a_small_business_counts_gross_without_vat_lines() -> None:
    found = await _pnl(small_business=True)
    assert _amounts(found) == {
        "small_business_income": D("17040.00"),  # 11,900 + 2,140 + 3,000
        "vat_refunded": D("300.00"),
        "gwg": D("772.31"),  # 649 + 123.31: no deduction, so gross
        "rent": D("1190.00"),
        "vat_paid": D("2050.00"),
        "gifts": D("35.70"),  # 30 + 5.70 gross, at most 50
        "gifts_apart": D("95.20"),
        "meals": D("123.20"),  # 128.40 - 38.52 + 47.60 - 14.28
        "meals_apart": D("52.80"),  # 38.52 + 14.28
    }
    assert found.result == D("17340.00") - (
        D("772.31") + D("1190.00") + D("2050.00") + D("35.70") + D("123.20")
    )


async def test_the_gmbh_gets_an_overview_that_says_why_it_is_no_euer() -> None:
    found = await _pnl(GMBH)
    assert found.kind == "overview" and "not an EÜR" in found.title
    assert found.why_not_euer is not None
    assert "§13(3) GmbHG" in found.why_not_euer and "§238 HGB" in found.why_not_euer
    assert found.legal_form.value == "corporation" and GMBH in found.legal_form.source
    assert {(x.line, x.kz) for x in found.lines} == {(None, None)}
    assert found.result == D("13021.30") and not found.thresholds


async def test_the_setting_wins_over_the_company_name() -> None:
    found = await _pnl(GMBH, legal_form="sole_proprietor")
    assert found.kind == "euer"
    assert found.legal_form.source == "setting SEVDESK_LEGAL_FORM"


async def test_an_unknown_legal_form_is_said_and_assumed() -> None:
    found = await _pnl("Jana Adler Design")
    assert (found.kind, found.legal_form.value) == ("euer", "unknown")
    expected = "sole proprietor or freelancer assumed; set SEVDESK_LEGAL_FORM"
    assert expected in found.assumptions and expected in found.legal_form.source


async def test_accrual_is_an_overview_by_document_date() -> None:
    found = await _pnl(basis="accrual")
    assert found.kind == "overview" and "§11 EStG" in (found.why_not_euer or "")
    # all four invoices by date: 10,000 + 2,000 + 1,000 + 3,000 net
    assert _amounts(found)["taxable_income"] == D("13000.00")


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("Werkstatt Adler GmbH", "corporation"),
        ("Adler UG (haftungsbeschränkt)", "corporation"),
        ("Adler Holding AG", "corporation"),
        ("Adler GmbH & Co. KG", "ohg_kg"),
        ("Adler OHG", "ohg_kg"),
        ("Adler KG", "ohg_kg"),
        ("Jana Adler e.K.", "sole_proprietor"),
        ("Adler & Berg GbR", "gbr"),
        ("Adler Berg PartG mbB", "freelancer"),
        ("Jana Adler Design", None),
        ("Haus am See", None),
    ],
)
def test_the_legal_form_is_read_from_the_end_of_the_name(name: str, form: str | None) -> None:
    assert euer.legal_form.form_of_name(name) == form


def test_the_thresholds_are_flagged_when_exceeded() -> None:
    below = euer.legal_form.thresholds("sole_proprietor", D("800000"), D("80000"), True)
    above = euer.legal_form.thresholds("sole_proprietor", D("800000.01"), D("1"), True)
    assert len(below) == 1 and "800,000" in below[0]
    assert len(above) == 2 and "exceed" in above[1]
    assert (
        "no duty to keep books"
        in euer.legal_form.thresholds("freelancer", D(10**7), D(10**6), True)[0]
    )


def test_the_form_lines_are_data_per_year_with_their_source() -> None:
    lines = euer.form_lines.form_lines(2025)
    assert (lines["vat_received"].line, lines["vat_received"].kz) == (17, "140")
    assert (lines["vat_paid"].line, lines["input_tax"].line, lines["gwg"].line) == (58, 57, 36)
    assert lines["meals_apart"].status == "secondary"
    assert {x.line for x in euer.form_lines.form_lines(2024).values()} == {None}
    assert euer.form_lines.source_of(2024).startswith("unconfirmed")
    assert euer.form_lines.source_of(2026).startswith("unconfirmed")


async def test_the_tool_takes_the_settings_and_says_where_each_fact_came_from() -> None:
    fake, _ = build_euer_case(GMBH)
    env = {
        "SEVDESK_API_URL": DEMO_URL,
        "SEVDESK_LEGAL_FORM": "freelancer",
        "SEVDESK_LOW_VALUE_ASSETS": "2026:pool",
        "SEVDESK_VAT_EXTENSION": "1",
    }
    config = load_config(env)
    client = fake_client(fake, config, token=EUER_TOKEN)
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    found = await call(
        ServerFactory(config).build(account), "sevdesk_profit_and_loss", period="2026"
    )
    assert (found["kind"], found["legal_form"]["source"]) == ("euer", "setting SEVDESK_LEGAL_FORM")
    assert found["vat_extension"] == {"value": "yes", "source": "setting SEVDESK_VAT_EXTENSION"}
    # 13,021.30 + 649 (no GWG) - 129.80 (a fifth of the pool) + 850 (to 2027) - 700 (from 2025)
    assert found["result"] == "13690.50"
    assert "no duty to keep books" in found["thresholds"][0]


async def test_the_demo_year_gives_the_reviewing_accountants_profit() -> None:
    # The accountant's 54,317.69 for 2026, cash: the former net figure 47,346.20 plus VAT
    # received 12,858.71, less input tax paid 5,267.14, less the GWG WR-105533 (649.00,
    # November, unpaid), plus 30 % of the meal A-5521 (96.40 x 0.3 = 28.92) shown apart.
    client = fake_client(build_demo())
    found = await euer.profit_and_loss(client, YEAR, "cash", CompanyFacts())
    amounts = _amounts(found)
    assert (amounts["vat_received"], amounts["input_tax"]) == (D("12858.71"), D("5267.14"))
    assert (amounts["gwg"], amounts["meals_apart"]) == (D("649.00"), D("28.92"))
    assert found.result == D("54317.69")
    assert found.kind == "overview"  # Holzwerk Sonnenberg GmbH: a balance sheet, not an EÜR
