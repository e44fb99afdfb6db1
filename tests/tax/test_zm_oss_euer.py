"""The EU sales list, the OSS figures and the profit and loss against the tax year."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.domain.reports import euer, oss, zm
from sevdesk_mcp.domain.reports.company import CompanyFacts
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.sevdesk.client import SevdeskClient

pytestmark = pytest.mark.anyio
D = Decimal
Q4 = parse_period("2026-Q4")


async def test_eu_sales_list_per_vat_id_and_kind(client: SevdeskClient) -> None:
    found = await zm.eu_sales_list(client, Q4)
    lines = {(line.vat_id, line.kind): line.amount for line in found.lines}
    # FR: 2000 (Oct) + 700 (Nov) - 100 (credit note); AT services: 800 + 300
    assert lines == {("FR12345678901", "L"): D("2600.00"), ("ATU12345678", "S"): D("1100.00")}
    assert found.total == D("3700.00")
    assert [s.number for s in found.missing_vat_id] == ["⟦RE-T-1102⟧"]


async def test_eu_sales_list_of_one_month(client: SevdeskClient) -> None:
    found = await zm.eu_sales_list(client, parse_period("2026-10"))
    assert {(x.vat_id, x.amount) for x in found.lines} == {
        ("FR12345678901", D("2000.00")),
        ("ATU12345678", D("800.00")),
    }


async def test_oss_per_member_state_and_rate(client: SevdeskClient) -> None:
    found = await oss.oss_figures(client, Q4)
    assert [(x.country, x.rate, x.net, x.tax) for x in found.lines] == [
        ("AT", D("20.00"), D("100.00"), D("20.00")),
        ("NL", D("21.00"), D("200.00"), D("42.00")),
    ]
    assert found.total_tax == D("62.00")


async def test_profit_and_loss_accrual_of_the_gmbh_is_an_overview(client: SevdeskClient) -> None:
    found = await euer.profit_and_loss(client, parse_period("2026-10"), "accrual", CompanyFacts())
    rows = {r.key: r.amount for r in found.lines}
    # with VAT: 1000 + 500 + 200 + 300 + 100 (16 %) + 100 (AT, OSS) - 100 (credit note)
    assert rows["taxable_income"] == D("2100.00")
    # without: 2000 (EU) + 1500 (export) + 400 + 800 + 600 + 1200 (§13b) + 250 (0 %)
    assert rows["tax_free_income"] == D("6750.00")
    assert rows["vat_received"] == D("337.00")  # 190 + 95 + 14 + 21 + 16 + 20 - 19
    assert rows["goods"] == D("2000.00")  # ER-T-1001 + ER-T-1003 (its acquisition tax owed)
    assert rows["input_tax"] == D("193.50")  # 190 + 3.50; none on the §13b/§1a receipts
    assert rows["insurance_fees"] == D("120.00")
    assert [a.receipt for a in found.assets] == ["⟦ER-T-1009⟧"]  # the machine: depreciated
    income = D(2100 + 6750 + 337)
    expenses = D(2000) + D("193.50") + D(50 + 200 + 100) + D(500) + D(300) + D(120)
    assert (found.income, found.expenses, found.result) == (income, expenses, income - expenses)
    assert found.kind == "overview" and "GmbH" in found.legal_form.source


async def test_profit_and_loss_cash_counts_payments(client: SevdeskClient) -> None:
    found = await euer.profit_and_loss(client, parse_period("2026-10"), "cash", CompanyFacts())
    rows = {r.key: r.amount for r in found.lines}
    # paid in October: RE-T-0902 800, RE-T-1002 500 + 200, refund GU-T-1001 -100; ER-T-1001
    assert rows == {
        "taxable_income": D("1400.00"),
        "vat_received": D("242.00"),  # 152 + 95 + 14 - 19
        "goods": D("1000.00"),
        "input_tax": D("190.00"),
    }


def test_a_wrong_period_is_refused() -> None:
    with pytest.raises(ToolInputError, match="2026-Q4"):
        parse_period("2026-13")
