"""The chart of accounts: SKR03 by default, SKR04 when the fake is made with it."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.accounts import SKR03, SKR04, account_by_number, chart_accounts
from tests.fake.helpers import TOKEN, api, assert_error, objects

pytestmark = pytest.mark.anyio

# german-tax-rules.md §3: the same cases under both charts' numbers
SKR03_CASES = ("4930", "4910", "4920", "4964", "4806", "4600", "4663", "4666", "4664", "4673",
               "4676", "4674", "4650", "4654", "4530", "4520", "4510", "4540", "4210", "4970",
               "4940", "0480", "4855", "0420", "0490", "0027")  # fmt: skip
SKR04_CASES = ("6815", "6800", "6805", "6837", "6495", "6600", "6663", "6660", "6664", "6673",
               "6680", "6674", "6640", "6644", "6530", "6520", "7685", "6540", "6310", "6855",
               "6820", "0670", "6260", "0650", "0690", "0135")  # fmt: skip


def test_both_charts_hold_the_cases_of_the_tax_rules_with_unique_ids_and_numbers() -> None:
    for chart, cases in ((SKR03, SKR03_CASES), (SKR04, SKR04_CASES)):
        rows = chart_accounts(chart)
        assert len({a.id for a in rows}) == len({a.number for a in rows}) == len(rows)
        assert all(account_by_number(n, chart) for n in cases), chart
    skr03_ids = {a.id for a in chart_accounts(SKR03)}
    assert skr03_ids.isdisjoint(a.id for a in chart_accounts(SKR04))


async def test_an_skr04_account_serves_skr04_numbers_and_guidance() -> None:
    fake = FakeSevdesk(TOKEN, chart="skr04")
    async with api(fake) as client:
        listed = await objects(client, "/AccountDatev", limit=1000)
        expense = await objects(client, "/ReceiptGuidance/forExpense", limit=1000)
        office = await client.get("/ReceiptGuidance/forAccountNumber", params={
            "accountNumber": "6815"})  # fmt: skip
        refused = await client.get("/ReceiptGuidance/forAccountNumber", params={
            "accountNumber": "4930"})  # fmt: skip
        revenue = await objects(client, "/ReceiptGuidance/forRevenue")
    numbers = {a["number"] for a in listed}
    assert set(SKR04_CASES) <= numbers and "4930" not in numbers and "1800" in numbers
    assert {g["accountNumber"] for g in expense} >= {"6815", "6837", "6600"}
    assert office.json()["objects"]["accountName"] == "Bürobedarf"
    assert_error(refused, 422)
    assert {g["accountNumber"] for g in revenue} >= {"4100", "4125", "4200", "4300", "4400"}


async def test_the_default_account_keeps_skr03() -> None:
    fake = FakeSevdesk(TOKEN)
    async with api(fake) as client:
        listed = await objects(client, "/AccountDatev", limit=1000)
        assert_error(await client.get("/AccountDatev/16815"), 404, code=151)
    numbers = {a["number"] for a in listed}
    assert set(SKR03_CASES) <= numbers and "6815" not in numbers
    assert fake.store.chart == SKR03
