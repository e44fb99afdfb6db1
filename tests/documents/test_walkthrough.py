"""One open invoice through the commit tools: part payment, payment in full, reset to open,
cancellation, and the credit note that a cancelled invoice no longer gets."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.fake import build_demo
from tests.documents.commit_helpers import REGISTER, approved, commit_app, refusal, writes

pytestmark = pytest.mark.anyio
INVOICE = 700039  # RE-1039, open, 318.56 EUR
PAY = {"kind": "invoice", "document_id": INVOICE, "date": "2026-11-27"}
PAY |= {"check_account_id": REGISTER}


async def test_an_invoice_from_open_to_paid_to_open_to_cancelled() -> None:
    fake = build_demo()
    app, invoice = commit_app(fake), fake.store.invoices.get(INVOICE)
    _, first = await approved(app, "sevdesk_book_payment", **PAY, amount="18.56")
    assert first["structuredContent"]["result"]["payment_type"] == "N"
    assert (invoice.status, invoice.paidAmount) == (750, Decimal("18.56"))
    _, second = await approved(app, "sevdesk_book_payment", **PAY, amount="300.00")
    assert second["structuredContent"]["result"]["payment_type"] == "FULL_PAYMENT"
    assert (invoice.status, invoice.paidAmount) == (1000, Decimal("318.56"))
    booked = [e for e in fake.store.transaction_logs if e.object == invoice.ref()]
    assert sorted(e.amountPaid for e in booked) == [Decimal("18.56"), Decimal("300.00")]

    _, early = await approved(app, "sevdesk_cancel_invoice", invoice_id=INVOICE)
    assert "has 318.56 EUR paid" in refusal(early)
    reset = {"kind": "invoice", "document_id": INVOICE, "to": "open"}
    message, _ = await approved(app, "sevdesk_reset_document", **reset)
    assert message.count("→ the transaction becomes unbooked") == 2
    assert (invoice.status, invoice.paidAmount) == (200, Decimal(0))
    assert not [e for e in fake.store.transaction_logs if e.object == invoice.ref()]

    _, cancelled = await approved(app, "sevdesk_cancel_invoice", invoice_id=INVOICE)
    assert cancelled["structuredContent"]["result"]["original"]["status"] == "cancelled"
    _, credit = await approved(app, "sevdesk_credit_note_from_invoice", invoice_id=INVOICE)
    assert "is already cancelled (storniert)" in refusal(credit)
    assert writes(fake) == [
        f"PUT /Invoice/{INVOICE}/bookAmount",
        f"PUT /Invoice/{INVOICE}/bookAmount",
        f"PUT /Invoice/{INVOICE}/resetToOpen",
        f"POST /Invoice/{INVOICE}/cancelInvoice",
    ]
