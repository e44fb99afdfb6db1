"""Lifecycle actions: enshrine, cancelInvoice, createFromInvoice, sendViaEmail, resetToDraft
(§2.4, §2.5, Q22, Q25, Q35; TECH 2024_05_24)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from tests.fake.helpers import api, assert_error, objects
from tests.fake.lifecycle_helpers import invoice_body, position, ref, save_invoice

pytestmark = pytest.mark.anyio

MAIL = {"toEmail": "kunde@example.com", "subject": "Ihre Rechnung", "text": "Guten Tag"}


async def test_enshrine_refuses_drafts_and_is_final(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """A draft can not be enshrined (spec: status 200 or higher); afterwards saves, DELETE and
    resetToDraft are refused; enshrining again changes nothing."""
    draft = facts.invoice_ids_by_status[100][0]
    open_invoice = demo.store.invoices.get(facts.invoice_ids_by_status[200][0])
    open_invoice.enshrined = None  # an open invoice that was never enshrined
    async with api(demo) as client:
        assert_error(await client.put(f"/Invoice/{draft}/enshrine"), 422)
        done = await client.put(f"/Invoice/{open_invoice.id}/enshrine")
        again = await client.put(f"/Invoice/{open_invoice.id}/enshrine")
        body = invoice_body(facts, id=open_invoice.id)
        assert_error(await client.post("/Invoice/Factory/saveInvoice", json=body), 422)
        assert_error(await client.put(f"/Invoice/{open_invoice.id}/resetToDraft"), 422)
        assert_error(await client.delete(f"/Invoice/{open_invoice.id}"), 409, 159)
        assert (
            await client.put(f"/Order/{next(iter(demo.store.orders)).id}/enshrine")
        ).status_code == 404
    assert done.status_code == 200 and done.json() == {"objects": None}
    assert demo.store.invoices.get(open_invoice.id).enshrined is not None
    assert again.status_code == 200
    assert [r.applied for r in demo.requests[1:3]] == [True, False]


async def test_negative_sums_can_not_be_enshrined(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Code 7100, on enshrine and on sending a draft (which enshrines)."""
    body = invoice_body(facts)
    body["invoicePosSave"] = [position("Gutschrift", 1, "-50")]
    async with api(demo) as client:
        response = await client.post("/Invoice/Factory/saveInvoice", json=body)
        ident = response.json()["objects"]["invoice"]["id"]
        send = {"sendType": "VPDF", "sendDraft": False}
        assert_error(await client.put(f"/Invoice/{ident}/sendBy", json=send), 422, 7100)
        demo.store.invoices.get(int(ident)).status = 200
        assert_error(await client.put(f"/Invoice/{ident}/enshrine"), 422, 7100)


async def test_cancel_invoice(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """201 with an SR invoice; the original goes to 1000; a second cancel is 422 code 421."""
    ident = facts.invoice_ids_by_status[200][1]
    async with api(demo) as client:
        response = await client.post(f"/Invoice/{ident}/cancelInvoice")
        (original,) = await objects(client, f"/Invoice/{ident}")
        assert_error(await client.post(f"/Invoice/{ident}/cancelInvoice"), 422, 421)
        cancellation = response.json()["objects"]
        positions = await objects(client, "/InvoicePos", **{"invoice[id]": cancellation["id"]})
        assert_error(await client.post(f"/Invoice/{cancellation['id']}/cancelInvoice"), 422)
        assert_error(await client.put(f"/Invoice/{ident}/resetToOpen"), 422, 421)
    assert response.status_code == 201
    assert (cancellation["invoiceType"], cancellation["status"]) == ("SR", "1000")
    assert cancellation["origin"] == {"id": str(ident), "objectName": "Invoice"}
    assert cancellation["enshrined"] and cancellation["invoiceNumber"].startswith("RE-")
    assert cancellation["header"] == (
        f"Stornorechnung Nr. {cancellation['invoiceNumber']} "
        f"zur Rechnung Nr. {original['invoiceNumber']}"
    )
    assert Decimal(cancellation["sumGross"]) == -Decimal(original["sumGross"])
    assert all(Decimal(p["quantity"]) < 0 for p in positions)
    assert original["status"] == "1000"


async def test_cancel_refusals(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Draft 422; credit note 422 code 170; partly paid: **HTTP 200** with code 390."""
    with_note = next(n.refSrcInvoice for n in demo.store.credit_notes if n.refSrcInvoice)
    assert with_note is not None
    partly = facts.invoice_ids_by_status[750][0]
    async with api(demo) as client:
        assert_error(
            await client.post(f"/Invoice/{facts.invoice_ids_by_status[100][0]}/cancelInvoice"), 422
        )
        assert_error(await client.post(f"/Invoice/{with_note.id}/cancelInvoice"), 422, 170)
        trap = await client.post(f"/Invoice/{partly}/cancelInvoice")
        paid = await client.post(f"/Invoice/{facts.invoice_ids_by_status[1000][3]}/cancelInvoice")
    error = assert_error(trap, 200, 390)
    assert error["responseCode"] == 200 and not demo.requests[-2].applied
    assert_error(paid, 200, 390)


async def test_create_credit_note_from_invoice(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """201 draft with the invoice's contact, tax and positions; a second one is code 455."""
    invoice = demo.store.invoices.get(facts.invoice_ids_by_status[200][1])
    path = "/CreditNote/Factory/createFromInvoice"
    async with api(demo) as client:
        response = await client.post(path, json={"invoice": ref("Invoice", invoice.id)})
        assert_error(
            await client.post(path, json={"invoice": ref("Invoice", invoice.id)}), 422, 455
        )
        draft = facts.invoice_ids_by_status[100][0]
        assert_error(await client.post(path, json={"invoice": ref("Invoice", draft)}), 422)
        assert_error(await client.post(path, json={"invoice": 5}), 400)
    assert response.status_code == 201
    made = response.json()["objects"]
    assert set(made) == {"creditNote", "creditNotePos", "discount"} and made["discount"] == []
    note = made["creditNote"]
    assert note["status"] == "100" and note["refSrcInvoice"]["id"] == str(invoice.id)
    assert invoice.contact is not None and note["contact"]["id"] == str(invoice.contact.id)
    assert note["taxRule"] == {"id": "1", "objectName": "TaxRule"}
    assert note["sumGross"] == str(invoice.sumGross) and note["creditNoteNumber"].startswith("GU-")
    assert len(made["creditNotePos"]) == len(demo.store.positions_of(invoice))


async def test_send_via_email_sends_and_records(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """201 Email; the draft becomes 200 with number and ``enshrined``; ``store.emails`` keeps it."""
    draft = facts.invoice_ids_by_status[100][0]
    body = {**MAIL, "ccEmail": "a@example.com,b@example.com", "copy": True}
    async with api(demo) as client:
        response = await client.post(f"/Invoice/{draft}/sendViaEmail", json=body)
        (invoice,) = await objects(client, f"/Invoice/{draft}")
    assert response.status_code == 201
    email = response.json()["objects"]
    assert (email["objectName"], email["to"], email["subject"]) == (
        "Email",
        "kunde@example.com",
        "Ihre Rechnung",
    )
    assert email["object"] == {"id": str(draft), "objectName": "Invoice"}
    assert email["from"] and email["cc"] == "a@example.com,b@example.com"
    assert invoice["status"] == "200" and invoice["invoiceNumber"] and invoice["enshrined"]
    assert invoice["sendType"] == "VM"
    (stored,) = list(demo.store.emails)
    assert stored.copy and stored.object.id == draft


@pytest.mark.parametrize(
    "body",
    [
        {"subject": "s", "text": "t"},
        {"toEmail": "kunde@example.com", "text": "t"},
        {"toEmail": "kunde@example.com", "subject": "s"},
        {**MAIL, "toEmail": "kunde.example.com"},
        {**MAIL, "bccEmail": "ok@example.com,kaputt"},
    ],
)
async def test_send_via_email_validates(
    demo: FakeSevdesk, facts: DemoFacts, body: dict[str, object]
) -> None:
    draft = facts.invoice_ids_by_status[100][0]
    async with api(demo) as client:
        assert_error(await client.post(f"/Invoice/{draft}/sendViaEmail", json=body), 400)
    assert not list(demo.store.emails) and demo.store.invoices.get(draft).status == 100


async def test_send_via_email_for_orders_and_numberless_credit_notes(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    order = next(o for o in demo.store.orders if o.status == 100)
    note = next(n for n in demo.store.credit_notes if n.status == 100)
    note.creditNoteNumber = None
    async with api(demo) as client:
        sent = await client.post(f"/Order/{order.id}/sendViaEmail", json=MAIL)
        refused = await client.post(f"/CreditNote/{note.id}/sendViaEmail", json=MAIL)
    assert sent.status_code == 201 and order.status == 200
    assert_error(refused, 400)
    assert [e.object.objectName for e in demo.store.emails] == ["Order"]


async def test_reset_to_draft(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Only from open (200; voucher 100) and never enshrined; a voucher goes to 50."""
    voucher = facts.voucher_ids_by_status[100][0]
    async with api(demo) as client:
        response = await client.put(f"/Voucher/{voucher}/resetToDraft")
        assert_error(
            await client.put(f"/Voucher/{facts.voucher_ids_by_status[1000][0]}/resetToDraft"), 422
        )
        assert_error(
            await client.put(f"/Invoice/{facts.invoice_ids_by_status[200][0]}/resetToDraft"), 422
        )
        saved = await save_invoice(client, facts)
        assert_error(await client.put(f"/Invoice/{saved['invoice']['id']}/resetToDraft"), 422)
    assert response.json()["objects"]["status"] == "50"
