"""sevdesk_reset_document on the demo books: to open (all bookings go) and to draft."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.cancellation import credit_note_from_invoice
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.sevdesk import dates
from tests.documents.commit_helpers import (
    CANCELLED,
    DRAFT_INVOICE,
    EXPENSE,
    PAID_INVOICE,
    STORNO,
    VOUCHER_DRAFT,
    WITH_DRAFT_NOTE,
    ChangeBefore,
    approved,
    commit_app,
    dry_run,
    facts,
    refusal,
    writes,
)
from tests.writes.helpers import approve
from tests.writes.tool_helpers import person_said, said, undo

pytestmark = pytest.mark.anyio
RESET = "sevdesk_reset_document"
PAID_VOUCHER = 800025  # Beleg KB-2026-10-17, revenue 200.00, paid by register transaction 900062
TWO_PAYMENTS = 700003  # RE-1003, paid in two instalments
TO_OPEN = {"kind": "invoice", "document_id": PAID_INVOICE, "to": "open"}
OPEN_PATH = f"/Invoice/{PAID_INVOICE}/resetToOpen"


async def test_to_open_lists_every_booking_it_removes_and_sends_nothing() -> None:
    fake = build_demo()
    arguments = {**TO_OPEN, "document_id": TWO_PAYMENTS}
    preview = (await dry_run(commit_app(fake), RESET, **arguments))["preview"]
    action, warnings = said(preview)
    assert action == "Reset invoice RE-1003 to open: all its payment bookings are removed"
    assert person_said(preview)[0] == (
        "Rechnung RE-1003 auf offen zurücksetzen: alle Zahlungen werden entfernt"
    )
    assert undo(preview) == "The payments can be booked again on the bank transactions afterwards."
    shown = facts(preview)
    assert shown["Paid"] == "1040.36 EUR → 0.00 EUR"
    removed = shown["Bookings removed"].splitlines()
    assert len(removed) == 2
    assert all(line.endswith("→ the transaction becomes unbooked") for line in removed)
    assert "removes ALL payment bookings" in warnings[0]
    assert writes(fake) == []


async def test_to_open_takes_back_the_payment_and_frees_the_transaction() -> None:
    fake = build_demo()
    message, result = await approved(commit_app(fake), RESET, **TO_OPEN)
    assert message.startswith("WARNING: Resetting to open removes ALL payment bookings")
    assert "transaction 900065: €649.38 on 29 Oct 2026" in message
    assert writes(fake) == [f"PUT {OPEN_PATH}"]
    invoice = fake.store.invoices.get(PAID_INVOICE)
    assert (invoice.status, invoice.paidAmount) == (200, Decimal(0))
    assert fake.store.transactions.get(900065).status == 100
    document = result["structuredContent"]["result"]["document"]
    assert document["status"] == "open" and document["open"]["amount"] == "649.38"
    assert document["written"] == ["reset Rechnung (invoice) RE-1032 (id 700032) to open"]


async def test_a_paid_receipt_goes_back_to_open_and_reads_back_as_a_receipt() -> None:
    fake = build_demo()
    arguments = {"kind": "voucher", "document_id": PAID_VOUCHER, "to": "open"}
    _, result = await approved(commit_app(fake), RESET, **arguments)
    assert writes(fake) == [f"PUT /Voucher/{PAID_VOUCHER}/resetToOpen"]
    voucher = fake.store.vouchers.get(PAID_VOUCHER)
    assert (voucher.status, voucher.paidAmount) == (100, Decimal(0))
    done = result["structuredContent"]["result"]
    assert done.get("document") is None
    assert done["voucher"]["status"] == "offen (open)" and done["voucher"]["kind"] == "revenue"
    assert done["voucher"]["open"] == {"amount": "200.00", "currency": "EUR"}


async def test_a_foreign_currency_receipt_warns_of_todays_rate() -> None:
    fake = build_demo()
    fake.store.vouchers.get(PAID_VOUCHER).currency = "USD"
    arguments = {"kind": "voucher", "document_id": PAID_VOUCHER, "to": "open"}
    preview = (await dry_run(commit_app(fake), RESET, **arguments))["preview"]
    assert "recalculates its EUR amounts at today's exchange rate" in said(preview)[1][-1]


async def test_to_draft_makes_an_open_receipt_editable() -> None:
    fake = build_demo()
    arguments = {"kind": "voucher", "document_id": EXPENSE, "to": "draft"}
    message, result = await approved(commit_app(fake), RESET, **arguments)
    assert "Status: open → draft" in message
    assert writes(fake) == [f"PUT /Voucher/{EXPENSE}/resetToDraft"]
    assert fake.store.vouchers.get(EXPENSE).status == 50
    assert result["structuredContent"]["result"]["voucher"]["status"] == "Entwurf (draft)"


async def test_a_declined_reset_sends_nothing() -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), RESET, approve(action="cancel"), **TO_OPEN)
    assert result["structuredContent"]["status"] == "declined"
    assert writes(fake) == [] and fake.store.invoices.get(PAID_INVOICE).status == 1000


def _enshrine_voucher(store: Store) -> None:
    store.vouchers.get(PAID_VOUCHER).enshrined = dt.datetime(2026, 11, 1, tzinfo=dates.BERLIN)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"document_id": 700036}, "is already open (offen) without payments; nothing to reset"),
        ({"document_id": DRAFT_INVOICE}, "is a draft (Entwurf); only finalized documents"),
        ({"document_id": DRAFT_INVOICE, "to": "draft"}, "is already a draft (Entwurf)"),
        ({"document_id": 700036, "to": "draft"}, "is festgeschrieben (enshrined, GoBD)"),
        ({"kind": "credit_note", "document_id": 720002, "to": "draft"}, "festgeschrieben"),
        ({"document_id": CANCELLED}, "is cancelled (storniert); a cancelled invoice cannot"),
        ({"document_id": STORNO}, "is a cancellation invoice (Stornorechnung)"),
        ({"document_id": WITH_DRAFT_NOTE}, "has the credit note GU-1003 (id 720003)"),
        ({"kind": "voucher", "document_id": VOUCHER_DRAFT}, "is a draft (Entwurf)"),
        ({"kind": "voucher", "document_id": EXPENSE}, "already open (offen) without payments"),
        (
            {"kind": "voucher", "document_id": PAID_VOUCHER, "to": "draft"},
            "with 200.00 EUR paid; only open documents without payments go back to draft",
        ),
        ({"to": "closed"}, "Invalid arguments"),
        ({"kind": "order"}, "Invalid arguments"),
    ],
)
async def test_refusals_name_the_problem_and_send_nothing(
    arguments: dict[str, Any], expected: str
) -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), RESET, **{**TO_OPEN, **arguments})
    assert expected in refusal(result)
    assert writes(fake) == []


async def test_an_enshrined_receipt_keeps_its_bookings() -> None:
    fake = build_demo()
    _enshrine_voucher(fake.store)
    arguments = {"kind": "voucher", "document_id": PAID_VOUCHER, "to": "open"}
    _, result = await approved(commit_app(fake), RESET, **arguments)
    assert "festgeschrieben (enshrined, GoBD); its bookings can no longer change" in (
        refusal(result)
    )
    assert writes(fake) == []


def _credit_meanwhile(store: Store) -> None:
    credit_note_from_invoice(store, store.invoices.get(PAID_INVOICE))


async def test_code_170_of_a_reset_is_mapped() -> None:
    fake = build_demo()
    app = commit_app(fake, transport=ChangeBefore(fake, "PUT", OPEN_PATH, _credit_meanwhile))
    _, result = await approved(app, RESET, **TO_OPEN)
    assert "sevDesk refused (code 170): a credit note (Gutschrift) exists" in refusal(result)
    assert fake.store.invoices.get(PAID_INVOICE).paidAmount == Decimal("649.38")


async def test_a_lost_answer_to_a_reset_names_the_document_to_check() -> None:
    fake = build_demo()
    fake.faults.timeout_after_write_next()
    _, result = await approved(commit_app(fake), RESET, **TO_OPEN)
    text = refusal(result)
    assert "no answer arrived" in text
    assert "Rechnung (invoice) RE-1032 (id 700032) (its status and payments)" in text
    assert writes(fake) == [f"PUT {OPEN_PATH}"]
