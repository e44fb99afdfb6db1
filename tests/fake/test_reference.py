"""Reference data, booking accounts and receipt guidance."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.accounts import ACCOUNTS
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio

LISTED_TAX_RULES = {1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}


async def test_tax_rules_have_the_recorded_shape(fake: FakeSevdesk) -> None:
    """§3.4 ids, §5.5 shape, string ids (Q8)."""
    async with api(fake) as client:
        rules = await objects(client, "/TaxRule")
    assert {int(r["id"]) for r in rules} == LISTED_TAX_RULES
    first = rules[0]
    assert first == {
        "id": "1",
        "objectName": "TaxRule",
        "additionalInformation": None,
        "name": "Umsatzsteuerpflichtige Umsätze",
        "description": "Umsatzsteuerpflichtige Umsätze",
        "code": "USTPFL_UMS_EINN",
        "countryClient": {"id": "1", "objectName": "StaticCountry"},
        "countryContactType": "DE",
    }
    codes = {r["id"]: r["code"] for r in rules}
    assert codes["9"] == "VORST_ABZUGSF_AUFW" and codes["14"] == "REV_CHARGE_13B_EU_0"


async def test_lookups(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        countries = await objects(client, "/StaticCountry")
        unities = await objects(client, "/Unity")
        keys = await objects(client, "/CommunicationWayKey")
        methods = await objects(client, "/PaymentMethod")
        users = await objects(client, "/SevUser")
        clients = await objects(client, "/SevClient")
    assert countries[0]["id"] == "1" and countries[0]["name"] == "Deutschland"
    assert unities[0] == {
        "id": "1",
        "objectName": "Unity",
        "additionalInformation": None,
        "name": "Stk",
        "translationCode": "UNITY_PIECE",
        "unitySystem": "general",
        "uneceTradeUnitCode": "C62",
    }
    assert {u["name"] for u in unities} >= {"Std", "km", "pauschal"}
    assert [k["id"] for k in keys] == [str(i) for i in range(1, 9)]
    assert all(m["objectName"] == "PaymentMethod" for m in methods)
    assert users[0]["objectName"] == "SevUser" and users[0]["id"] == "1"
    assert clients == [
        {
            "id": "1",
            "objectName": "SevClient",
            "additionalInformation": None,
            "name": "sevDesk Fake",
        }
    ]


@pytest.mark.parametrize(
    ("object_type", "ids"),
    [("Contact", {"2", "3", "4", "28"}), ("ContactAddress", {"43", "44", "45", "47", "48", "49"})],
)
async def test_categories_filter_by_object_type(
    fake: FakeSevdesk, object_type: str, ids: set[str]
) -> None:
    async with api(fake) as client:
        categories = await objects(client, "/Category", objectType=object_type)
    assert {c["id"] for c in categories} == ids


async def test_account_list_hides_hidden_and_ignores_filters(fake: FakeSevdesk) -> None:
    """Q42: only visible accounts, every filter but limit/offset ignored."""
    visible = [a for a in ACCOUNTS if not a.hidden]
    async with api(fake) as client:
        listed = await objects(client, "/AccountDatev")
        filtered = await objects(client, "/AccountDatev", number="4970", hidden="1")
        page = await objects(client, "/AccountDatev", limit=3, offset=1)
    assert len(listed) == len(filtered) == len(visible) < len(ACCOUNTS)
    assert [a["id"] for a in page] == [str(a.id) for a in visible[1:4]]
    assert all(a["hidden"] == "0" for a in listed)


async def test_account_by_id_reaches_hidden_ones(fake: FakeSevdesk) -> None:
    hidden = next(a for a in ACCOUNTS if a.hidden)
    async with api(fake) as client:
        (account,) = await objects(client, f"/AccountDatev/{hidden.id}")
        (fees,) = await objects(client, "/AccountDatev/4285")
        assert_error(await client.get("/AccountDatev/1"), 404, code=151)
    assert account["hidden"] == "1" and account["number"] == hidden.number
    assert (fees["number"], fees["name"]) == ("4970", "Nebenkosten des Geldverkehrs")


async def test_guidance_lists_have_int_ids(fake: FakeSevdesk) -> None:
    """§3.6: ints here, unlike everywhere else (Q8)."""
    async with api(fake) as client:
        everything = await objects(client, "/ReceiptGuidance/forAllAccounts")
        expense = await objects(client, "/ReceiptGuidance/forExpense")
        revenue = await objects(client, "/ReceiptGuidance/forRevenue")
    assert len(everything) >= len(expense) + len(revenue) - 2
    assert all("EXPENSE" in g["allowedReceiptTypes"] for g in expense)
    assert all("REVENUE" in g["allowedReceiptTypes"] for g in revenue)
    item = everything[0]
    assert isinstance(item["accountDatevId"], int)
    assert isinstance(item["allowedTaxRules"][0]["id"], int)


async def test_guidance_for_account_number_is_a_bare_object(fake: FakeSevdesk) -> None:
    """Q6: forAccountNumber answers an object, not an array."""
    async with api(fake) as client:
        guidance = await objects(client, "/ReceiptGuidance/forAccountNumber", accountNumber="4970")
    assert isinstance(guidance, dict)
    assert guidance["accountDatevId"] == 4285
    assert guidance["allowedTaxRules"][0] == {
        "name": "VORST_ABZUGSF_AUFW",
        "id": 9,
        "description": "Vorsteuerabziehbare Aufwendungen",
        "taxRates": ["ZERO", "SEVEN", "NINETEEN"],
    }
    rule_12 = guidance["allowedTaxRules"][1]
    assert rule_12["description"].endswith("z.B. Dienstleistungen aus dem Drittland, Bauleistungen")


async def test_guidance_for_account_number_errors(fake: FakeSevdesk) -> None:
    hidden = next(a for a in ACCOUNTS if a.hidden)
    async with api(fake) as client:
        assert_error(await client.get("/ReceiptGuidance/forAccountNumber"), 400)
        missing = await client.get(
            "/ReceiptGuidance/forAccountNumber", params={"accountNumber": "9"}
        )
        assert_error(missing, 422)
        params = {"accountNumber": hidden.number}
        assert_error(await client.get("/ReceiptGuidance/forAccountNumber", params=params), 422)


async def test_guidance_for_tax_rule_takes_the_code(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        reverse = await objects(
            client, "/ReceiptGuidance/forTaxRule", taxRule="REV_CHARGE_13B_EU_0"
        )
        eu = await objects(client, "/ReceiptGuidance/forTaxRule", taxRule="INNERGEM_LIEF")
        unknown = await objects(client, "/ReceiptGuidance/forTaxRule", taxRule="14")
        assert_error(await client.get("/ReceiptGuidance/forTaxRule"), 400)
    assert reverse and all(
        any(r["name"] == "REV_CHARGE_13B_EU_0" for r in g["allowedTaxRules"]) for g in reverse
    )
    assert [g["accountNumber"] for g in eu] == ["8125"]
    assert unknown == []
