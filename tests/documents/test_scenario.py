"""Scenarios in demo mode: one invoice from draft to paid to cancelled (and why it then gets no
credit note), and one from draft to paid to a credit note with its refund. The books are read
after each step through the read tools, as a user would, and checked in the fake."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.mcp.app import McpApp
from tests.demo_account import demo_app
from tests.documents.draft_helpers import CUSTOMER, approved
from tests.writes.tool_helpers import call, error_text, writes

pytestmark = pytest.mark.anyio
REGISTER = 5002  # Kasse Werkstattladen: an offline account, sevDesk books the cash itself
ALL = {"SEVDESK_ALLOW": "write,commit,external"}
LINES = [
    {"name": "Eichenregal nach Maß", "quantity": "1", "unit_price": "850.00", "tax_rate": 19},
    {"name": "Montage", "quantity": "2.5", "unit_price": "48.00", "tax_rate": 19},
]
GROSS = Decimal("1154.30")  # (850.00 + 120.00) net, 184.30 VAT


async def document(app: McpApp, kind: str, ident: int) -> dict[str, Any]:
    """:returns: the document as ``sevdesk_get_document`` shows it."""
    result = await call(app, "sevdesk_get_document", kind=kind, document_id=ident)
    summary: dict[str, Any] = result["structuredContent"]["document"]
    return summary


async def open_total(app: McpApp) -> Decimal:
    """:returns: the receivables still open in the books."""
    data = (await call(app, "sevdesk_open_items"))["structuredContent"]
    return sum((Decimal(m["amount"]) for m in data["receivables"]["totals"]), Decimal(0))


async def finalized_paid_invoice(fake: FakeSevdesk, app: McpApp) -> int:
    """Draft, finalize and pay an invoice; check the books after each step.

    :returns: the invoice's id.
    """
    before = await open_total(app)
    draft = await call(
        app,
        "sevdesk_create_document_draft",
        kind="invoice",
        contact_id=CUSTOMER,
        positions=LINES,
        header="Regal Gastraum",
        date="2026-11-27",
    )
    ident = draft["structuredContent"]["result"]["id"]
    shown = await document(app, "invoice", ident)
    assert (shown["status"], shown.get("number"), Decimal(shown["gross"]["amount"])) == (
        "draft",
        None,
        GROSS,
    )
    assert await open_total(app) == before  # a draft is not a receivable

    _, done = await approved(app, "sevdesk_finalize_document", kind="invoice", document_id=ident)
    number = done["structuredContent"]["result"]["number"]
    shown = await document(app, "invoice", ident)
    assert (shown["status"], shown["number"]) == ("open", number)
    assert fake.store.invoices.get(ident).enshrined is not None
    assert await open_total(app) == before + GROSS

    pay = {"kind": "invoice", "document_id": ident, "date": "2026-11-27"}
    _, paid = await approved(
        app, "sevdesk_book_payment", **pay, amount=str(GROSS), check_account_id=REGISTER
    )
    assert paid["structuredContent"]["status"] == "done", paid
    shown = await document(app, "invoice", ident)
    assert (shown["status"], Decimal(shown["paid"]["amount"])) == ("paid", GROSS)
    assert await open_total(app) == before
    booked = [
        e for e in fake.store.transaction_logs if e.object == fake.store.invoices.get(ident).ref()
    ]
    assert [e.amountPaid for e in booked] == [GROSS]
    return ident


async def test_one_invoice_from_draft_to_paid_to_cancelled() -> None:
    fake = build_demo()
    app = demo_app(ALL, fake)
    ident = await finalized_paid_invoice(fake, app)

    _, refused = await approved(app, "sevdesk_cancel_invoice", invoice_id=ident)
    assert "reset" in error_text(refused)  # a paid invoice is not cancelled behind the payments

    reset = {"kind": "invoice", "document_id": ident, "to": "open"}
    message, _ = await approved(app, "sevdesk_reset_document", **reset)
    assert "Resetting to open removes ALL payment bookings" in message
    shown = await document(app, "invoice", ident)
    assert (shown["status"], Decimal(shown["paid"]["amount"])) == ("open", Decimal(0))

    message, cancelled = await approved(app, "sevdesk_cancel_invoice", invoice_id=ident)
    assert "Stornorechnung" in message and "cannot be undone" in message
    result = cancelled["structuredContent"]["result"]
    assert result["original"]["status"] == "cancelled"
    storno = await document(app, "invoice", result["cancellation"]["id"])
    assert (storno["type"], Decimal(storno["gross"]["amount"])) == ("SR", -GROSS)
    assert (await document(app, "invoice", ident))["status"] == "cancelled"

    _, credit = await approved(app, "sevdesk_credit_note_from_invoice", invoice_id=ident)
    assert "cancelled" in error_text(credit)  # the Stornorechnung already corrected it
    assert [w.split(" ", 1)[1] for w in writes(fake)] == [
        "/Invoice/Factory/saveInvoice",
        f"/Invoice/{ident}/sendBy",
        f"/Invoice/{ident}/bookAmount",
        f"/Invoice/{ident}/resetToOpen",
        f"/Invoice/{ident}/cancelInvoice",
    ]


async def test_one_invoice_from_draft_to_paid_to_a_credit_note_and_its_refund() -> None:
    fake = build_demo()
    app = demo_app(ALL, fake)
    ident = await finalized_paid_invoice(fake, app)

    message, created = await approved(app, "sevdesk_credit_note_from_invoice", invoice_id=ident)
    assert "credit note draft" in message
    note = created["structuredContent"]["result"]
    assert note["status"] == "draft" and note["number"]
    assert (
        fake.store.credit_notes.get(note["id"]).refSrcInvoice
        == fake.store.invoices.get(ident).ref()
    )

    _, final = await approved(
        app, "sevdesk_finalize_document", kind="credit_note", document_id=note["id"]
    )
    assert final["structuredContent"]["result"]["status"] == "open"

    refund = {"kind": "credit_note", "document_id": note["id"], "date": "2026-11-27"}
    _, paid = await approved(
        app, "sevdesk_book_payment", **refund, amount=str(GROSS), check_account_id=REGISTER
    )
    assert paid["structuredContent"]["status"] == "done", paid
    shown = await document(app, "credit_note", note["id"])
    assert shown["status"] == "paid"
    logs = [
        e
        for e in fake.store.transaction_logs
        if e.object == fake.store.credit_notes.get(note["id"]).ref()
    ]
    assert [e.amountPaid for e in logs] == [-GROSS]  # the money went out (Q26)

    _, refused = await approved(app, "sevdesk_cancel_invoice", invoice_id=ident)
    assert "credit note" in error_text(refused)
