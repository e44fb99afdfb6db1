"""The Factory saves of invoices, credit notes and orders, DELETE and SevSequence (Q4, Q22,
Q24, Q25, Q34, Q35, Q38)."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from tests.fake.helpers import api, assert_error, objects
from tests.fake.lifecycle_helpers import (
    credit_note_body,
    invoice_body,
    position,
    ref,
    save_invoice,
)

pytestmark = pytest.mark.anyio


async def test_save_invoice_creates_a_draft_without_number(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q22 draft without number, Q4 numbers and ``quantity: true``, Q24 no address copy."""
    async with api(demo) as client:
        saved = await save_invoice(client, facts)
        (stored,) = await objects(client, f"/Invoice/{saved['invoice']['id']}")
    assert set(saved) == {"invoice", "invoicePos", "vatdrop"}
    assert saved["vatdrop"] == "not relevant"
    invoice = saved["invoice"]
    assert (invoice["status"], invoice["invoiceNumber"], invoice["enshrined"]) == (
        "100",
        None,
        None,
    )
    assert (invoice["sumNet"], invoice["sumTax"], invoice["sumGross"]) == ("55", "10.45", "65.45")
    assert invoice["invoiceDate"] == "2026-10-01T00:00:00+02:00"
    assert invoice["addressStreet"] is None and invoice["address"] is None  # Q24
    assert invoice["sendType"] == "0" and invoice["paidAmount"] == 0
    first, second = saved["invoicePos"]
    assert (first["quantity"], first["price"], first["sumGross"]) == (3, 10, 35.7)
    assert (second["quantity"], second["sumNet"], second["taxRate"]) == (True, 25, "19.00")
    assert first["invoice"]["id"] == invoice["id"] and first["invoice"]["sumGross"] == "65.45"
    assert stored == invoice


async def test_save_with_id_updates_creates_and_deletes_positions(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    async with api(demo) as client:
        saved = await save_invoice(client, facts)
        ident = int(saved["invoice"]["id"])
        keep, drop = (int(p["id"]) for p in saved["invoicePos"])
        body = invoice_body(facts, id=ident, header="Geändert")
        body["invoicePosSave"] = [
            position("Beratung", 2, "10.00", id=keep),
            position("Neu", 1, "7.50", "7"),
        ]
        body["invoicePosDelete"] = [ref("InvoicePos", drop)]
        response = await client.post("/Invoice/Factory/saveInvoice", json=body)
        listed = await objects(client, "/InvoicePos", **{"invoice[id]": ident})
    assert response.status_code == 201, response.text
    updated = response.json()["objects"]["invoice"]
    assert (updated["id"], updated["header"], updated["sumNet"]) == (str(ident), "Geändert", "27.5")
    assert updated["sumGross"] == "31.83"  # 23.80 + 8.03
    assert [p["name"] for p in listed] == ["Beratung", "Neu"]
    assert len(demo.store.invoices) == len({i.id for i in demo.store.invoices})


def _without(body: dict[str, Any], key: str) -> dict[str, Any]:
    body["invoice"].pop(key)
    return body


@pytest.mark.parametrize(
    ("change", "status", "message"),
    [
        (lambda b: b["invoice"].update(status=200), 400, "DRAFT (100)"),
        (lambda b: _without(b, "currency"), 400, "Currency is required."),
        (lambda b: b.update(invoicePosSave=[]), 400, "must have at least one position"),
        (
            lambda b: b.update(invoicePosDelete=5),
            400,
            "invoicePosDelete expected array with 'id' and 'objectName'. integer given",
        ),
        (
            lambda b: b.update(invoicePosDelete=[5]),
            400,
            "invoicePosDelete expected array with 'id' and 'objectName'. integer given",
        ),
        (lambda b: _without(b, "objectName"), 400, "logic error"),
        (lambda b: _without(b, "mapAll"), 400, "logic error"),
        (lambda b: _without(b, "contact"), 400, "'contact' is required"),
        (lambda b: _without(b, "invoiceDate"), 400, "'invoiceDate' is required"),
        (lambda b: _without(b, "taxRule"), 400, "'taxRule' is required"),
        (lambda b: b["invoice"].update(taxRule=ref("TaxRule", 99)), 422, "Invalid tax rule 99"),
        (lambda b: b["invoice"].update(taxRule=ref("TaxRule", 11)), 422, "not allowed"),
        (lambda b: b["invoicePosSave"][0].update(taxRate=16), 422, "not allowed"),
        (lambda b: b["invoicePosSave"][0].pop("objectName"), 400, "logic error"),
        (lambda b: b["invoicePosSave"][0].pop("price"), 400, "'price' is required"),
        (
            lambda b: b["invoice"].update(invoiceType="TR", taxRule=ref("TaxRule", 3)),
            422,
            "1 or 11",
        ),
    ],
)
async def test_save_invoice_validates_and_changes_nothing(
    demo: FakeSevdesk, facts: DemoFacts, change: Any, status: int, message: str
) -> None:
    """Q22, Q34, Q38, §3.4; a refused save is not applied."""
    body = invoice_body(facts)
    change(body)
    count = len(demo.store.invoices)
    async with api(demo) as client:
        response = await client.post("/Invoice/Factory/saveInvoice", json=body)
    assert message in assert_error(response, status)["message"]
    assert len(demo.store.invoices) == count and not demo.requests[-1].applied


async def test_save_needs_an_existing_contact(demo: FakeSevdesk, facts: DemoFacts) -> None:
    async with api(demo) as client:
        body = invoice_body(facts, contact=ref("Contact", 1))
        assert_error(await client.post("/Invoice/Factory/saveInvoice", json=body), 404, 151)


async def test_only_drafts_are_updated(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q25: an enshrined invoice → 422; a sent order (no ``enshrined``) → 409 code 159."""
    sent = facts.invoice_ids_by_status[200][0]
    order = next(o for o in demo.store.orders if o.status == 200)
    async with api(demo) as client:
        response = await client.post(
            "/Invoice/Factory/saveInvoice", json=invoice_body(facts, id=sent)
        )
        assert "enshrined" in assert_error(response, 422)["message"]
        body = {
            "order": {"objectName": "Order", "mapAll": True, "id": order.id},
            "orderPosSave": None,
        }
        assert_error(await client.post("/Order/Factory/saveOrder", json=body), 409, 159)


async def test_save_order_and_send_it(demo: FakeSevdesk, facts: DemoFacts) -> None:
    body = invoice_body(facts)["invoice"]
    for key in ("invoiceDate", "invoiceType", "contactPerson"):
        body.pop(key)
    body.update(objectName="Order", orderDate="20.11.2026", orderType="AN")
    pos = position("Tisch", 1, "500", objectName="OrderPos", optional=False)
    async with api(demo) as client:
        response = await client.post(
            "/Order/Factory/saveOrder", json={"order": body, "orderPosSave": [pos]}
        )
        assert response.status_code == 201, response.text
        saved = response.json()["objects"]
        ident = saved["order"]["id"]
        sent = await client.put(
            f"/Order/{ident}/sendBy", json={"sendType": "VPDF", "sendDraft": False}
        )
        bad = dict(body, orderType="XX")
        refused = await client.post(
            "/Order/Factory/saveOrder", json={"order": bad, "orderPosSave": [pos]}
        )
    assert set(saved) == {"order", "orderPos"} and saved["order"]["orderNumber"] is None
    assert saved["orderPos"][0]["order"]["id"] == ident
    assert sent.json()["objects"]["orderNumber"].startswith("AN-")
    assert_error(refused, 422)


async def test_delete_a_draft_and_refuse_the_rest(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q7 answer for a draft; Q25 409 code 159 otherwise."""
    draft = facts.invoice_ids_by_status[100][0]
    positions = [p.id for p in demo.store.invoice_positions if p.invoice.id == draft]
    order = next(o for o in demo.store.orders if o.status == 100)
    note = next(n for n in demo.store.credit_notes if n.status == 100)
    async with api(demo) as client:
        deleted = await client.delete(f"/Invoice/{draft}")
        assert_error(await client.get(f"/Invoice/{draft}"), 404, 151)
        for path in (
            f"/Invoice/{facts.invoice_ids_by_status[200][0]}",
            f"/Invoice/{facts.invoice_ids_by_status[1000][0]}",
            f"/CreditNote/{next(n.id for n in demo.store.credit_notes if n.status == 200)}",
            f"/Order/{next(o.id for o in demo.store.orders if o.status == 200)}",
        ):
            assert_error(await client.delete(path), 409, 159)
        assert (await client.delete(f"/Order/{order.id}")).json() == {"objects": [None]}
        assert (await client.delete(f"/CreditNote/{note.id}")).status_code == 200
        assert_error(await client.delete("/Invoice/1"), 404, 151)
    assert deleted.status_code == 200 and deleted.json() == {"objects": [None]}
    assert all(demo.store.invoice_positions.find(p) is None for p in positions)


async def test_credit_note_rules(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q35: 456 for a foreign tax rate, 455 beyond the invoice, PROVISION needs rule 9,
    UNDERACHIEVEMENT needs refSrcInvoice, e-invoice needs paymentMethod (830)."""
    invoice = demo.store.invoices.get(facts.invoice_ids_by_status[200][1])  # 19 % only
    path = "/CreditNote/Factory/saveCreditNote"
    async with api(demo) as client:
        ok = await client.post(path, json=credit_note_body(facts, invoice.id))
        assert ok.status_code == 201, ok.text
        other_rate = credit_note_body(facts, invoice.id)
        other_rate["creditNotePosSave"][0]["taxRate"] = "7"
        assert_error(await client.post(path, json=other_rate), 422, 456)
        too_much = credit_note_body(facts, invoice.id)
        too_much["creditNotePosSave"][0]["price"] = str(invoice.sumNet)
        assert_error(await client.post(path, json=too_much), 422, 455)
        assert_error(await client.post(path, json=credit_note_body(facts, None)), 400)
        provision = credit_note_body(facts, None, bookingCategory="PROVISION")
        assert (
            "Invalid tax rule"
            in assert_error(await client.post(path, json=provision), 422)["message"]
        )
        provision["creditNote"]["taxRule"] = ref("TaxRule", 9)
        assert (await client.post(path, json=provision)).status_code == 201
        e_invoice = credit_note_body(facts, invoice.id, propertyIsEInvoice=True)
        error = assert_error(await client.post(path, json=e_invoice), 400, 830)
    assert ok.json()["objects"].keys() == {"creditNote", "creditNotePos"}
    assert error["data"] == {"missing information": ["document_paymentMethod"]}


async def test_credit_note_send_by_needs_a_number_from_sev_sequence(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q35: without ``creditNoteNumber`` sendBy fails; the number comes from SevSequence."""
    invoice = facts.invoice_ids_by_status[200][1]  # 19 % only
    send = {"sendType": "VPDF", "sendDraft": False}
    async with api(demo) as client:
        saved = await client.post(
            "/CreditNote/Factory/saveCreditNote", json=credit_note_body(facts, invoice)
        )
        note = saved.json()["objects"]["creditNote"]
        assert note["creditNoteNumber"] is None
        refused = await client.put(f"/CreditNote/{note['id']}/sendBy", json=send)
        assert "SevSequence" in assert_error(refused, 400)["message"]
        sequence = await objects(
            client, "/SevSequence/Factory/getByType", objectType="CreditNote", type="CN"
        )
        number = sequence["format"].replace("%NUMBER", sequence["nextSequence"])
        body = credit_note_body(facts, invoice, id=int(note["id"]), creditNoteNumber=number)
        body["creditNotePosSave"] = None
        updated = await client.post("/CreditNote/Factory/saveCreditNote", json=body)
        assert updated.status_code == 201, updated.text
        sent = await client.put(f"/CreditNote/{note['id']}/sendBy", json=send)
    assert sent.json()["objects"]["creditNoteNumber"] == number
    assert sent.json()["objects"]["status"] == "200" and sent.json()["objects"]["enshrined"]


async def test_sev_sequence_reserves_unless_use_next_number_false(demo: FakeSevdesk) -> None:
    """§2.1 shape; reading reserves the number unless ``useNextNumber=false``."""
    query = {"objectType": "Invoice", "type": "RE"}
    async with api(demo) as client:
        peek = await objects(
            client, "/SevSequence/Factory/getByType", useNextNumber="false", **query
        )
        again = await objects(
            client, "/SevSequence/Factory/getByType", useNextNumber="false", **query
        )
        taken = await objects(client, "/SevSequence/Factory/getByType", **query)
        after = await objects(client, "/SevSequence/Factory/getByType", **query)
        order = await objects(
            client, "/SevSequence/Factory/getByType", objectType="Order", type="AN"
        )
        assert_error(await client.get("/SevSequence/Factory/getByType", params={"type": "X"}), 400)
    assert peek == again == taken and peek["format"] == "RE-%NUMBER"
    assert peek["objectName"] == "SevSequence" and isinstance(peek["nextSequence"], str)
    assert int(after["nextSequence"]) == int(taken["nextSequence"]) + 1
    assert order["format"] == "AN-%NUMBER"
    assert [r.applied for r in demo.requests[:4]] == [False, False, True, True]
