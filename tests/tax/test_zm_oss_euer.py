"""The EU sales list, the OSS figures and the profit and loss against the tax year."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.domain.reports import euer, oss, zm
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


async def test_profit_and_loss_accrual(client: SevdeskClient) -> None:
    found = await euer.profit_and_loss(client, parse_period("2026-10"), "accrual")
    rows = {r.account: (r.side, r.amount) for r in found.accounts}
    assert rows["8400"] == ("income", D("1400.00"))  # 1000 + 500 - 100 (credit note)
    assert rows["8300"] == ("income", D("500.00"))
    assert rows["8200"] == ("income", D("350.00"))  # 16 % and the 0 % sale
    assert rows["3400"] == ("expense", D("2000.00"))  # ER-T-1001 + ER-T-1003
    assert rows["4360"] == ("expense", D("120.00"))
    assert rows["0210"] == ("expense", D("2000.00"))  # ER-T-1009, the machine (§13b(2) no. 2)
    income = D(1400 + 500 + 350 + 2000 + 1500 + 400 + 800 + 600 + 1200 + 100)
    expenses = D(2000 + 250 + 100 + 500 + 300 + 120 + 2000)
    assert (found.income, found.expenses, found.result) == (income, expenses, income - expenses)
    assert {r.group for r in found.accounts} >= {"8 Erlöskonten", "4 Betriebliche Aufwendungen"}


async def test_profit_and_loss_cash_counts_payments(client: SevdeskClient) -> None:
    found = await euer.profit_and_loss(client, parse_period("2026-10"), "cash")
    rows = {r.account: r.amount for r in found.accounts}
    # paid in October: RE-T-0902 800, RE-T-1002 500 + 200, refund GU-T-1001 -100; ER-T-1001
    assert rows == {"8400": D("1200.00"), "8300": D("200.00"), "3400": D("1000.00")}


def test_a_wrong_period_is_refused() -> None:
    with pytest.raises(ToolInputError, match="2026-Q4"):
        parse_period("2026-13")
