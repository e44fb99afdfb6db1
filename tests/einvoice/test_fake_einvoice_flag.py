"""The fake keeps sevDesk's e-invoice flag as documented (``docs/sevdesk-api.md`` §2.4, §5.2,
Q35): ``propertyIsEInvoice`` set on saving a draft (new, or by id), read back as ``"1"``, and
refused with code 830 while the invoice has no payment method."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import build_demo_with_facts
from tests.fake.helpers import api, assert_error, objects
from tests.fake.lifecycle_helpers import invoice_body, ref

pytestmark = pytest.mark.anyio
SAVE = "/Invoice/Factory/saveInvoice"
TRANSFER = ref("PaymentMethod", 21919)


async def test_a_new_e_invoice_needs_a_payment_method() -> None:
    demo, facts = build_demo_with_facts()
    async with api(demo) as client:
        refused = await client.post(SAVE, json=invoice_body(facts, propertyIsEInvoice=True))
        error = assert_error(refused, 400, 830)
        saved = await client.post(
            SAVE, json=invoice_body(facts, propertyIsEInvoice=True, paymentMethod=TRANSFER)
        )
        assert saved.status_code == 201, saved.text
        (stored,) = await objects(client, f"/Invoice/{saved.json()['objects']['invoice']['id']}")
    assert error["data"] == {"missing information": ["document_paymentMethod"]}
    assert stored["propertyIsEInvoice"] == "1"
    assert stored["paymentMethod"]["id"] == "21919"


async def test_a_draft_is_marked_by_a_save_with_its_id_and_keeps_its_positions() -> None:
    demo, facts = build_demo_with_facts()
    async with api(demo) as client:
        saved = (await client.post(SAVE, json=invoice_body(facts))).json()["objects"]
        ident = int(saved["invoice"]["id"])
        assert saved["invoice"]["propertyIsEInvoice"] == "0"
        mark = {
            "invoice": {
                "id": ident,
                "objectName": "Invoice",
                "mapAll": True,
                "propertyIsEInvoice": True,
            }
        }
        assert_error(await client.post(SAVE, json=mark), 400, 830)
        mark["invoice"]["paymentMethod"] = TRANSFER
        marked = await client.post(SAVE, json=mark)
        assert marked.status_code == 201, marked.text
        (stored,) = await objects(client, f"/Invoice/{ident}")
        positions = await objects(client, f"/Invoice/{ident}/getPositions")
    assert stored["propertyIsEInvoice"] == "1" and stored["status"] == "100"
    assert len(positions) == len(saved["invoicePos"])
