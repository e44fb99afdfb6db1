"""The fake's createInvoiceReminder, createInvoiceFromOrder and recurring-invoice list
(spec/DEVIATIONS.md F-001 to F-003), asked directly: the refusals the server never provokes."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import FakeSevdesk
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio
REMINDER = "/Invoice/Factory/createInvoiceReminder"
FROM_ORDER = "/Invoice/Factory/createInvoiceFromOrder"


def _invoice(ident: int) -> dict[str, str]:
    return {"invoice[id]": str(ident), "invoice[objectName]": "Invoice"}


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({}, 400, "invoice expected array with 'id' and 'objectName'"),
        ({"invoice[id]": "700028"}, 400, "invoice expected array"),
        (_invoice(700007), 400, "An invoice of type SR cannot be dunned"),
        (_invoice(700032), 400, "Only open invoices can be dunned"),
        (_invoice(999_999), 404, "No Model_Invoice with the id 999999"),
    ],
)
async def test_a_reminder_is_refused_for_what_cannot_be_dunned(
    demo: FakeSevdesk, params: dict[str, str], status: int, message: str
) -> None:
    async with api(demo) as client:
        response = await client.post(REMINDER, params=params)
    error = assert_error(response, status, 151 if status == 404 else None)
    assert message in error["message"]


async def test_a_reminder_answers_the_ma_draft_and_raises_the_level(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        response = await client.post(REMINDER, params=_invoice(700030))
    assert response.status_code == 200
    made = response.json()["objects"]
    assert (made["invoiceType"], made["status"], made["invoiceNumber"]) == ("MA", "100", None)
    assert (made["dunningLevel"], made["reminderDebit"], made["reminderCharge"]) == (
        "1",
        "1270.84",
        "0",
    )
    assert made["reminderDeadline"] == "2026-12-04T00:00:00+01:00"
    assert made["origin"] == {"id": "700030", "objectName": "Invoice"}
    assert demo.store.invoices.get(700030).dunningLevel == 1


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 400, "order expected array with 'id' and 'objectName'"),
        ({"order": {"id": 740002, "objectName": "Order"}}, 400, "A rejected order cannot be"),
        ({"order": {"id": 740001, "objectName": "Order"}}, 400, "already been invoiced"),
        (
            {"order": {"id": 740003, "objectName": "Order"}, "partialType": "TR"},
            400,
            "partialType TR is not modelled",
        ),
        ({"order": {"id": 999_999, "objectName": "Order"}}, 404, "No Model_Order"),
    ],
)
async def test_an_invoice_from_an_order_is_refused_for_what_cannot_be_invoiced(
    demo: FakeSevdesk, body: dict[str, object], status: int, message: str
) -> None:
    async with api(demo) as client:
        response = await client.post(FROM_ORDER, json=body)
    error = assert_error(response, status, 151 if status == 404 else None)
    assert message in error["message"]
    assert demo.store.orders.get(740003).status == 500


async def test_a_delivery_note_is_not_invoiced(demo: FakeSevdesk) -> None:
    demo.store.orders.get(740005).orderType = "LI"
    async with api(demo) as client:
        response = await client.post(
            FROM_ORDER, json={"order": {"id": 740005, "objectName": "Order"}}
        )
    assert "A delivery note cannot be invoiced" in assert_error(response, 400)["message"]


async def test_recurring_invoices_are_listed_only_with_show_wkr(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        plain = await objects(client, "/Invoice", invoiceType="WKR")
        shown = await objects(client, "/Invoice", invoiceType="WKR", showWkr="all")
    assert plain == []
    assert [(i["id"], i["status"], i["accountIntervall"]) for i in shown] == [
        ("700044", "100", "P0Y3M"),
        ("700045", "50", "P0Y1M"),
    ]
    assert shown[0]["accountNextInvoice"] == "1798758000"  # 01.01.2027 00:00 Berlin
