"""Request bodies and small steps shared by the document-lifecycle tests of the fake."""

from __future__ import annotations

from typing import Any

import httpx

from sevdesk_mcp.fake import DemoFacts


def position(
    name: str, quantity: object, price: object, rate: object = "19.00", **extra: Any
) -> dict[str, Any]:
    """:returns: one ``…PosSave`` item (InvoicePos unless ``objectName`` is given)."""
    return {
        "objectName": "InvoicePos",
        "mapAll": True,
        "quantity": quantity,
        "price": price,
        "name": name,
        "unity": {"id": 1, "objectName": "Unity"},
        "taxRate": rate,
        **extra,
    }


def invoice_body(facts: DemoFacts, **changes: Any) -> dict[str, Any]:
    """:returns: a saveInvoice body after ``docs/sevdesk-api.md`` §5.2 (55 net, 65.45 gross)."""
    invoice: dict[str, Any] = {
        "objectName": "Invoice",
        "mapAll": True,
        "contact": {"id": facts.customer_ids[0], "objectName": "Contact"},
        "contactPerson": {"id": 1, "objectName": "SevUser"},
        "invoiceDate": "01.10.2026",
        "deliveryDate": 1790805600,
        "header": "Probe",
        "status": 100,
        "taxRule": {"id": 1, "objectName": "TaxRule"},
        "taxText": "Umsatzsteuer 19%",
        "invoiceType": "RE",
        "currency": "EUR",
    }
    invoice.update(changes)
    return {
        "invoice": invoice,
        "invoicePosSave": [position("Beratung", 3, "10.00"), position("Paket", 1, "25.00")],
        "invoicePosDelete": None,
    }


def credit_note_body(facts: DemoFacts, invoice_id: int | None, **changes: Any) -> dict[str, Any]:
    """:returns: a saveCreditNote body with one 19 % position of 10 net."""
    note: dict[str, Any] = {
        "objectName": "CreditNote",
        "mapAll": True,
        "contact": {"id": facts.customer_ids[0], "objectName": "Contact"},
        "creditNoteDate": "20.11.2026",
        "status": 100,
        "taxRule": {"id": 1, "objectName": "TaxRule"},
        "currency": "EUR",
        "creditNoteType": "CN",
        "bookingCategory": "UNDERACHIEVEMENT",
    }
    if invoice_id is not None:
        note["refSrcInvoice"] = {"id": invoice_id, "objectName": "Invoice"}
    note.update(changes)
    pos = position("Nachlass", 1, "10", objectName="CreditNotePos")
    return {"creditNote": note, "creditNotePosSave": [pos], "creditNotePosDelete": None}


async def save_invoice(client: httpx.AsyncClient, facts: DemoFacts, **changes: Any) -> Any:
    """Save a new invoice draft and return ``objects``."""
    body = invoice_body(facts, **changes)
    response = await client.post("/Invoice/Factory/saveInvoice", json=body)
    assert response.status_code == 201, response.text
    return response.json()["objects"]


def ref(object_name: str, ident: int) -> dict[str, Any]:
    """:returns: a request reference."""
    return {"id": ident, "objectName": object_name}
