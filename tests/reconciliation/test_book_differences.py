"""sevdesk_book_match with a difference, on the demo month of statements: a cash discount the
invoice does not grant, or after its days, is refused naming the fix (the terms are in sevDesk,
so the rule is exact); fees without a fee cue are booked only after a preview that warns (the
bank's advice of its charges may reach a human on paper); an overpayment leaves the surplus
unbooked and says so."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.demo_statements import StatementMonth, build_statement_demo
from tests.documents.commit_helpers import approved, body, commit_app, refusal, writes
from tests.writes.helpers import approve

pytestmark = pytest.mark.anyio
BOOK = "sevdesk_book_match"


def _booking(month: StatementMonth, key: str, number: str, **extra: Any) -> dict[str, Any]:
    row = {"kind": "invoice", "document_id": month.documents[number], **extra}
    return {"transaction_id": month.transactions[key], "bookings": [row]}


async def test_a_cash_discount_on_an_invoice_without_terms_is_refused_naming_the_fix() -> None:
    fake, month = build_statement_demo()
    arguments = _booking(month, "fees", "RE-1106", settle="cash_discount")
    message, result = await approved(commit_app(fake), BOOK, **arguments)
    text = refusal(result)
    assert message == ""  # refused before anybody is asked
    assert "grant no cash discount (Skonto)" in text and "not bank fees" in text
    assert "settle=partial" in text and "ask the customer" in text
    assert writes(fake) == []


async def test_a_cash_discount_after_its_days_is_refused() -> None:
    fake, month = build_statement_demo()
    tx = fake.store.transactions.get(month.transactions["cash_discount"])
    tx.valueDate = tx.entryDate = at(date(2026, 11, 30), 12)  # RE-1105: 2 % within 10 days
    fake.store.save(tx)
    arguments = _booking(month, "cash_discount", "RE-1105", settle="cash_discount")
    _, result = await approved(commit_app(fake), BOOK, **arguments)
    text = refusal(result)
    assert "grants a cash discount of 2 % within 10 days" in text
    assert "came 20 days after the document's date" in text and "settle=partial" in text
    assert writes(fake) == []


async def test_the_same_skonto_as_a_partial_payment_leaves_the_rest_open() -> None:
    fake, month = build_statement_demo()
    arguments = _booking(month, "fees", "RE-1106", settle="partial")
    _, result = await approved(commit_app(fake), BOOK, **arguments)
    assert result["structuredContent"]["status"] == "done", result
    invoice = fake.store.invoices.get(month.documents["RE-1106"])
    assert body(fake, "PUT", f"/Invoice/{invoice.id}/bookAmount")["type"] == "N"
    assert (invoice.status, invoice.paidAmount) == (750, Decimal("818.00"))


async def test_fees_with_the_banks_charge_line_book_mtc_and_keep_the_vat_base() -> None:
    fake, month = build_statement_demo()
    arguments = _booking(month, "fees", "RE-1106", settle="fees")
    message, result = await approved(commit_app(fake), BOOK, **arguments)
    assert "fees never reduce the VAT base" in message
    assert "names no bank charges" not in message
    assert result["structuredContent"]["status"] == "done", result
    ident = month.documents["RE-1106"]
    assert body(fake, "PUT", f"/Invoice/{ident}/bookAmount")["type"] == "MTC"


async def test_fees_without_a_fee_cue_are_warned_about_in_the_preview() -> None:
    fake, month = build_statement_demo()
    tx = fake.store.transactions.get(month.transactions["fees"])
    tx.paymtPurpose = "INV RE-11O6"
    fake.store.save(tx)
    arguments = _booking(month, "fees", "RE-1106", settle="fees")
    message, result = await approved(commit_app(fake), BOOK, approve(False), **arguments)
    assert "WARNING: €15.00 of invoice RE-1106 is written off as bank fees" in message
    assert "The purpose names no bank charges" in message and "settle=partial" in message
    assert result["structuredContent"]["status"] == "declined"
    assert writes(fake) == []


async def test_an_overpayment_books_the_open_amount_and_leaves_the_surplus_unbooked() -> None:
    fake, month = build_statement_demo()
    tx = fake.store.transactions.get(month.transactions["typo"])
    tx.amount = Decimal("3600.00")  # RE-1107 has 3570.00 open
    fake.store.save(tx)
    message, result = await approved(commit_app(fake), BOOK, **_booking(month, "typo", "RE-1107"))
    assert "€30.00 of transaction" in message and "stays unbooked" in message
    assert "refund it or keep it as a credit" in message
    done = result["structuredContent"]
    assert done["status"] == "done", result
    assert done["result"]["unbooked_after"]["amount"] == "30.00"
    invoice = fake.store.invoices.get(month.documents["RE-1107"])
    assert body(fake, "PUT", f"/Invoice/{invoice.id}/bookAmount")["type"] == "N"
    assert (invoice.status, invoice.paidAmount) == (1000, Decimal("3570.00"))
