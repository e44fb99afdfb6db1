"""The fields of sevdesk_create/update_document_draft beyond contact, tax rule and positions:
One-Stop-Shop rates by the buyer's country, payment method, currency, discounts, the buyer
reference, the 1.0 tax type, and decimals as strings or numbers; on the demo books."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo, build_demo_with_facts
from sevdesk_mcp.fake.wire import Ref
from tests.documents.draft_helpers import CUSTOMER, DRAFT_INVOICE, LINE, app
from tests.fake.helpers import api, assert_error
from tests.fake.lifecycle_helpers import invoice_body
from tests.writes.tool_helpers import body, call, error_text, facts, writes

pytestmark = pytest.mark.anyio
CREATE = "sevdesk_create_document_draft"
UPDATE = "sevdesk_update_document_draft"
SAVE = "POST /Invoice/Factory/saveInvoice"
SAVE_PATH = "/Invoice/Factory/saveInvoice"
DRAFT = {"kind": "invoice", "contact_id": CUSTOMER, "positions": [LINE], "date": "2026-11-27"}
SHOP = {"name": "Hocker Eiche", "quantity": "2", "unit_price": "150.00", "tax_rate": 20}


def _moosbrugger(fake: FakeSevdesk, *, consumer: bool) -> int:
    """:returns: the id of the Austrian customer (Dornbirn), made a consumer (no VAT id)."""
    contact = next(c for c in fake.store.contacts if c.name == "Tischlerei Moosbrugger GmbH")
    if consumer:
        contact.vatNumber = None
    return contact.id


def _oss(contact: int, *positions: dict[str, Any], rule: int = 18) -> dict[str, Any]:
    return {**DRAFT, "contact_id": contact, "positions": list(positions), "tax_rule_id": rule}


async def test_an_oss_sale_to_an_austrian_consumer_at_20_percent() -> None:
    fake = build_demo()
    consumer = _moosbrugger(fake, consumer=True)
    data = (await call(app(fake), CREATE, **_oss(consumer, SHOP), header="Hocker"))[
        "structuredContent"
    ]
    assert data["status"] == "done", data
    sent = body(fake, "POST", SAVE_PATH)
    assert sent["invoice"]["taxRule"] == {"id": 18, "objectName": "TaxRule"}
    assert sent["invoice"]["addressCountry"] == {"id": 2, "objectName": "StaticCountry"}
    assert sent["invoicePosSave"][0]["taxRate"] == "20"
    # 2 x 150.00 = 300.00 net, 20 % = 60.00, 360.00 gross
    assert Decimal(data["result"]["gross"]["amount"]) == Decimal("360.00")
    stored = fake.store.invoices.get(data["result"]["id"])
    assert (stored.sumNet, stored.sumTax) == (Decimal("300.00"), Decimal("60.00"))


async def test_the_oss_preview_names_the_country_and_its_rate() -> None:
    fake = build_demo()
    consumer = _moosbrugger(fake, consumer=True)
    data = (await call(app(fake), CREATE, **_oss(consumer, SHOP), dryRun=True))["structuredContent"]
    shown = facts(data["preview"])
    assert shown["Tax rule"].startswith("18 ")
    assert shown["Tax rule"].endswith("(AT: 20 %)")
    assert shown["VAT 20 %"] == "60.00 EUR"
    assert writes(fake) == []


@pytest.mark.parametrize(
    ("rate", "said"),
    [
        (19, "AT has no VAT rate of 19 %; its rates are 20 %, 13 %, 10 %"),
        ("5.5", "AT has no VAT rate of 5.5 %"),
    ],
)
async def test_a_rate_not_of_the_buyers_country_is_refused(rate: object, said: str) -> None:
    fake = build_demo()
    consumer = _moosbrugger(fake, consumer=True)
    result = await call(app(fake), CREATE, **_oss(consumer, {**SHOP, "tax_rate": rate}))
    assert said in error_text(result)
    assert writes(fake) == []


async def test_an_oss_rule_for_a_german_buyer_is_refused_with_the_reason() -> None:
    fake = build_demo()
    result = await call(app(fake), CREATE, **_oss(CUSTOMER, {**SHOP, "tax_rate": 19}, rule=19))
    text = error_text(result)
    assert "consumers in another EU member state" in text
    assert "the contact's address is in Germany" in text
    assert "tax_rule_id 1" in text
    assert writes(fake) == []


async def test_an_oss_rule_for_a_business_with_a_vat_id_is_refused() -> None:
    fake = build_demo()
    business = _moosbrugger(fake, consumer=False)
    result = await call(app(fake), CREATE, **_oss(business, SHOP, rule=20))
    text = error_text(result)
    assert "VAT id ⟦ATU00000012⟧" in text and "tax_rule_id 3" in text  # fenced: from sevDesk
    assert writes(fake) == []


async def test_a_foreign_rate_under_rule_1_points_to_the_oss_rules() -> None:
    fake = build_demo()
    result = await call(app(fake), CREATE, **{**DRAFT, "positions": [SHOP]})
    text = error_text(result)
    assert "Tax rule 1 does not allow the rate(s) 20 %" in text
    assert "tax_rule_id 18 (goods)" in text
    assert fake.requests == []


async def test_the_fake_refuses_an_oss_rate_of_another_country() -> None:
    fake = build_demo()
    consumer = _moosbrugger(fake, consumer=True)
    address = next(a for a in fake.store.addresses if a.contact.id == consumer)
    address.country = Ref("StaticCountry", 4)  # France: 20 % fits, 13 not
    ok = await call(app(fake), CREATE, **_oss(consumer, SHOP))
    assert ok["structuredContent"]["status"] == "done"
    refused = await call(app(fake), CREATE, **_oss(consumer, {**SHOP, "tax_rate": 13}))
    assert "FR has no VAT rate of 13 %" in error_text(refused)


@pytest.mark.parametrize(
    ("quantity", "price", "rate", "gross"),
    [
        (3, 120, 19, "428.40"),
        ("3", "120.00", 19.0, "428.40"),
        (1, 1190.5, "7", "1273.84"),  # 1190.50 + 7 % (83.335 -> 83.34)
        ("1", "1190.50", 7, "1273.84"),
    ],
)
async def test_amounts_and_rates_come_as_strings_or_numbers(
    quantity: object, price: object, rate: object, gross: str
) -> None:
    fake = build_demo()
    line = {"name": "Theke", "quantity": quantity, "unit_price": price, "tax_rate": rate}
    data = (await call(app(fake), CREATE, **{**DRAFT, "positions": [line]}))["structuredContent"]
    assert Decimal(data["result"]["gross"]["amount"]) == Decimal(gross)
    sent = body(fake, "POST", SAVE_PATH)["invoicePosSave"][0]
    assert sent["taxRate"] == str(rate).removesuffix(".0")  # 19.0 is sent as "19"


async def test_a_binary_sum_as_a_json_number_is_refused_with_the_reason() -> None:
    fake = build_demo()
    line = {**LINE, "unit_price": 0.1 + 0.2}
    result = await call(app(fake), CREATE, **{**DRAFT, "positions": [line]})
    text = error_text(result)
    assert "positions[0].unit_price is the JSON number 0.30000000000000004" in text
    assert 'as a string, such as "1234.50"' in text
    assert fake.requests == []


async def test_payment_method_currency_and_rate_are_sent_and_shown() -> None:
    fake = build_demo()
    args = {**DRAFT, "payment_method_id": 21919, "currency": "chf", "exchange_rate": "1.0712"}
    shown = facts(
        (await call(app(fake), CREATE, **args, dryRun=True))["structuredContent"]["preview"]
    )
    assert shown["Payment method"] == "⟦Überweisung⟧ (id 21919)"
    assert shown["Currency"] == "CHF (1 CHF = 1.0712 EUR; prices are in CHF)"
    assert shown["Gross"] == "428.40 CHF"
    await call(app(fake), CREATE, **args)
    sent = body(fake, "POST", SAVE_PATH)["invoice"]
    assert sent["paymentMethod"] == {"id": 21919, "objectName": "PaymentMethod"}
    assert (sent["currency"], sent["propertyExchangeRate"]) == ("CHF", "1.0712")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"currency": "USD"}, "A draft in USD needs exchange_rate"),
        ({"exchange_rate": "1.1"}, "exchange_rate applies to a currency other than EUR"),
        ({"payment_method_id": 99}, "has no payment method 99"),
        ({"buyer_reference": " - "}, "buyer_reference is empty or sevDesk's placeholder"),
        ({"tax_type": "eu"}, "tax_type is for bookkeeping 1.0; this account is on 2.0"),
        ({"kind": "order", "payment_method_id": 21919}, "payment_method_id applies to invoices"),
        ({"currency": "EURO"}, "currency"),
    ],
)
async def test_extra_fields_that_do_not_fit_are_refused(args: dict[str, Any], said: str) -> None:
    fake = build_demo()
    result = await call(app(fake), CREATE, **{**DRAFT, **args})
    assert said in error_text(result)
    assert writes(fake) == []


async def test_the_fake_refuses_a_foreign_currency_without_a_rate() -> None:
    fake, known = build_demo_with_facts()
    async with api(fake) as client:
        bare = invoice_body(known, currency="USD")
        refused = await client.post(SAVE_PATH, json=bare)
        rated = invoice_body(known, currency="USD", propertyExchangeRate="0.9")
        saved = await client.post(SAVE_PATH, json=rated)
    assert "propertyExchangeRate" in assert_error(refused, 400)["message"]
    assert saved.status_code in (200, 201), saved.text


async def test_position_discounts_in_percent_and_as_an_amount() -> None:
    fake = build_demo()
    lines = [
        {**LINE, "discount_percent": 10},  # 360.00 - 36.00 = 324.00 net, 61.56 VAT
        {**LINE, "name": "Montage", "quantity": 1, "discount_amount": "20.00"},  # 100.00 net
    ]
    data = (await call(app(fake), CREATE, **{**DRAFT, "positions": lines}))["structuredContent"]
    # net 424.00; VAT 61.56 + 19.00 = 80.56; gross 504.56
    assert Decimal(data["result"]["gross"]["amount"]) == Decimal("504.56")
    sent = body(fake, "POST", SAVE_PATH)["invoicePosSave"]
    assert (sent[0]["discount"], sent[0]["isPercentage"]) == ("10", True)
    assert (sent[1]["discount"], sent[1]["isPercentage"]) == ("20.00", False)
    stored = fake.store.invoices.get(data["result"]["id"])
    assert (stored.sumNet, stored.sumTax) == (Decimal("424.00"), Decimal("80.56"))


async def test_both_discounts_on_one_position_are_refused() -> None:
    fake = build_demo()
    line = {**LINE, "discount_percent": 5, "discount_amount": 5}
    result = await call(app(fake), CREATE, **{**DRAFT, "positions": [line]})
    assert "has discount_percent and discount_amount; give one" in error_text(result)
    too_much = {**LINE, "quantity": 1, "discount_amount": "120.01"}
    result = await call(app(fake), CREATE, **{**DRAFT, "positions": [too_much]})
    assert "positions[0].discount_amount must be above 0 and at most 120.00" in error_text(result)


async def test_a_buyer_reference_is_set_on_the_contact_before_the_save() -> None:
    fake = build_demo()
    reference = "04011000-1234512345-06"
    data = await call(app(fake), CREATE, **DRAFT, buyer_reference=reference, dryRun=True)
    shown = facts(data["structuredContent"]["preview"])
    assert shown["Buyer reference"] == (
        f"⟦{reference}⟧, set on contact {CUSTOMER} first (was none): sevDesk takes it from the "
        "contact"
    )
    await call(app(fake), CREATE, **DRAFT, buyer_reference=reference)
    assert writes(fake) == [f"PUT /Contact/{CUSTOMER}", SAVE]
    assert fake.store.contacts.get(CUSTOMER).buyerReference == reference
    again = await call(app(fake), UPDATE, **DRAFT, document_id=DRAFT_INVOICE,
                       buyer_reference=reference, dryRun=True)  # fmt: skip
    assert facts(again["structuredContent"]["preview"])["Buyer reference"] == f"⟦{reference}⟧"


async def test_a_1_0_account_takes_a_tax_type_instead_of_a_tax_rule() -> None:
    fake = build_demo()
    fake.store.version = "1.0"
    data = await call(app(fake), CREATE, **{**DRAFT, "positions": [{**LINE, "tax_rate": 0}]},
                      tax_type="noteu")  # fmt: skip
    assert data["structuredContent"]["status"] == "done", data
    sent = body(fake, "POST", SAVE_PATH)["invoice"]
    assert sent["taxType"] == "noteu" and "taxRule" not in sent
    wrong = await call(app(fake), CREATE, **DRAFT, tax_type="ss")
    assert "Tax type ss does not allow the rate(s) 19 %" in error_text(wrong)
    rule = await call(app(fake), CREATE, **DRAFT, tax_rule_id=3)
    assert "bookkeeping 1.0, which has no tax rules" in error_text(rule)
