"""sevdesk_cancel_invoice and sevdesk_credit_note_from_invoice on the demo books."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.cancellation import cancel_invoice, credit_note_from_invoice
from sevdesk_mcp.fake.store import Store
from tests.documents.commit_helpers import (
    CANCELLED,
    DRAFT_INVOICE,
    PAID_INVOICE,
    PARTLY_PAID,
    STORNO,
    WITH_DRAFT_NOTE,
    ChangeBefore,
    approved,
    body,
    commit_app,
    dry_run,
    facts,
    refusal,
    writes,
)
from tests.writes.helpers import approve
from tests.writes.tool_helpers import FailAfter, person_said, said, undo

pytestmark = pytest.mark.anyio
CANCEL = "sevdesk_cancel_invoice"
CREDIT = "sevdesk_credit_note_from_invoice"
RE_1036 = 700036  # open, 6543.81 EUR, no payments, no credit note
CANCEL_PATH = f"/Invoice/{RE_1036}/cancelInvoice"
CREDIT_PATH = "/CreditNote/Factory/createFromInvoice"


def _storno_of(store: Store, invoice_id: int) -> list[Any]:
    return [
        i
        for i in store.invoices
        if i.invoiceType == "SR" and i.origin and i.origin.id == invoice_id
    ]


async def test_the_cancel_preview_says_it_is_irreversible_and_sends_nothing() -> None:
    fake = build_demo()
    preview = (await dry_run(commit_app(fake), CANCEL, invoice_id=RE_1036))["preview"]
    assert preview["irreversible"] is True
    action, warnings = said(preview)
    assert action == (
        "Cancel invoice RE-1036: a cancellation invoice with negative amounts is created and "
        "enshrined"
    )
    assert person_said(preview)[0].startswith("Rechnung RE-1036 stornieren: ")
    assert "cancellation invoice (Stornorechnung) with negative amounts" in warnings[0]
    assert "enshrined (festgeschrieben, GoBD)" in warnings[0]
    assert "Stornorechnung mit negativen Beträgen" in person_said(preview)[1]
    assert facts(preview)["Cancellation invoice"].startswith(
        "new invoice of type SR over -6543.81 EUR"
    )
    assert writes(fake) == []


async def test_approval_cancels_once_and_returns_both_invoices() -> None:
    fake = build_demo()
    message, result = await approved(commit_app(fake), CANCEL, invoice_id=RE_1036)
    lines = message.splitlines()
    assert lines[0].startswith(
        "WARNING: Cancelling creates a cancellation invoice (Stornorechnung)"
    )
    assert lines[1] == "WARNING: This cannot be undone."
    assert writes(fake) == [f"POST {CANCEL_PATH}"]
    (storno,) = _storno_of(fake.store, RE_1036)
    assert storno.sumGross == Decimal("-6543.81") and storno.enshrined is not None
    done = result["structuredContent"]["result"]
    assert done["original"]["id"] == RE_1036 and done["original"]["status"] == "cancelled"
    cancellation = done["cancellation"]
    assert (cancellation["id"], cancellation["type"]) == (storno.id, "SR")
    assert cancellation["gross"] == {"amount": "-6543.81", "currency": "EUR"}
    assert cancellation["number"] == storno.invoiceNumber and cancellation["enshrined"] is True
    assert done["original"]["written"] == [
        f"cancelled with Stornorechnung {storno.invoiceNumber} (id {storno.id})"
    ]


async def test_a_declined_cancellation_sends_nothing() -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), CANCEL, approve(False), invoice_id=RE_1036)
    assert result["structuredContent"]["status"] == "declined"
    assert writes(fake) == [] and not _storno_of(fake.store, RE_1036)


@pytest.mark.parametrize(
    ("invoice", "expected"),
    [
        (DRAFT_INVOICE, "is a draft (Entwurf) and has no number: nothing to cancel. Delete"),
        (STORNO, "is itself a cancellation invoice (Stornorechnung)"),
        (CANCELLED, "already cancelled (storniert) by the Stornorechnung RE-1007 (id 700007)"),
        (PARTLY_PAID, "has 1271.00 EUR paid; sevDesk cancels only invoices without payments"),
        (PAID_INVOICE, "Reset it to open first (Zurücksetzen auf offen"),
        (WITH_DRAFT_NOTE, "has the credit note GU-1003 (id 720003); sevDesk refuses to cancel"),
        (999_999, "no such object"),
    ],
)
async def test_cancel_refusals_name_the_problem_and_send_nothing(
    invoice: int, expected: str
) -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), CANCEL, invoice_id=invoice)
    assert expected in refusal(result)
    assert writes(fake) == []


def _pay_part(store: Store) -> None:
    invoice = store.invoices.get(RE_1036)
    invoice.status, invoice.paidAmount = 750, Decimal(100)


def _cancel_meanwhile(store: Store) -> None:
    cancel_invoice(store, store.invoices.get(RE_1036))


def _credit_meanwhile(store: Store) -> None:
    credit_note_from_invoice(store, store.invoices.get(RE_1036))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (_pay_part, "sevDesk refused (code 390): the invoice has payments booked (teilbezahlt)"),
        (_cancel_meanwhile, "sevDesk refused (code 421): the invoice is already cancelled"),
        (_credit_meanwhile, "sevDesk refused (code 170): a credit note (Gutschrift) exists"),
    ],
)
async def test_sevdesk_codes_of_cancel_are_mapped(change: Any, expected: str) -> None:
    # the books change between the approval and the request (another user in sevDesk)
    fake = build_demo()
    app = commit_app(fake, transport=ChangeBefore(fake, "POST", CANCEL_PATH, change))
    _, result = await approved(app, CANCEL, invoice_id=RE_1036)
    text = refusal(result)
    assert expected in text and "⟦" not in text  # sevDesk's own wording is not shown
    assert writes(fake) == [f"POST {CANCEL_PATH}"]


async def test_code_390_arrives_inside_http_200() -> None:
    fake = build_demo()
    app = commit_app(fake, transport=ChangeBefore(fake, "POST", CANCEL_PATH, _pay_part))
    await approved(app, CANCEL, invoice_id=RE_1036)
    (sent,) = [r for r in fake.requests if r.method == "POST"]
    assert not sent.applied and not _storno_of(fake.store, RE_1036)


async def test_a_lost_answer_to_cancel_names_the_invoice_to_check() -> None:
    fake = build_demo()
    fake.faults.timeout_after_write_next()
    _, result = await approved(commit_app(fake), CANCEL, invoice_id=RE_1036)
    text = refusal(result)
    assert "no answer arrived" in text
    assert "Rechnung (invoice) RE-1036 (id 700036) and the invoices of type SR" in text
    assert writes(fake) == [f"POST {CANCEL_PATH}"] and _storno_of(fake.store, RE_1036)


async def test_the_credit_note_preview_names_invoice_amount_and_the_lock() -> None:
    fake = build_demo()
    preview = (await dry_run(commit_app(fake), CREDIT, invoice_id=RE_1036))["preview"]
    action, warnings = said(preview)
    assert action == "Create a credit note draft over the whole of invoice RE-1036"
    assert person_said(preview)[0] == (
        "Gutschrift als Entwurf über die ganze Rechnung RE-1036 erstellen"
    )
    assert facts(preview)["Credit note"] == (
        "new draft against invoice RE-1036 over 6543.81 EUR, with the invoice's positions"
    )
    assert "sevDesk refuses both with code 170" in warnings[0]
    sentence = undo(preview)
    assert sentence is not None and "deleted again" in sentence
    assert writes(fake) == []


async def test_approval_drafts_the_credit_note_once_and_locks_the_invoice() -> None:
    fake = build_demo()
    app = commit_app(fake)
    message, result = await approved(app, CREDIT, invoice_id=RE_1036)
    assert message.startswith("WARNING: While the credit note exists")
    assert writes(fake) == [f"POST {CREDIT_PATH}"]
    assert body(fake, "POST", CREDIT_PATH) == {"invoice": {"id": RE_1036, "objectName": "Invoice"}}
    (note,) = [
        n for n in fake.store.credit_notes if n.refSrcInvoice and n.refSrcInvoice.id == RE_1036
    ]
    assert note.status == 100
    done = result["structuredContent"]["result"]
    assert (done["id"], done["kind"], done["status"]) == (note.id, "credit_note", "draft")
    assert done["gross"] == {"amount": "6543.81", "currency": "EUR"}
    _, cancel = await approved(app, CANCEL, invoice_id=RE_1036)
    assert f"(id {note.id}); sevDesk refuses to cancel it (code 170)" in refusal(cancel)
    arguments = {"kind": "invoice", "document_id": RE_1036, "to": "open"}
    _, reset = await approved(app, "sevdesk_reset_document", **arguments)
    assert f"(id {note.id}); sevDesk refuses to reset it (code 170)" in refusal(reset)
    assert writes(fake) == [f"POST {CREDIT_PATH}"]


@pytest.mark.parametrize(
    ("invoice", "expected"),
    [
        (DRAFT_INVOICE, "is a draft (Entwurf) and has no number: nothing to draft a credit"),
        (STORNO, "is itself a cancellation invoice (Stornorechnung)"),
        (CANCELLED, "is already cancelled (storniert)"),
        (WITH_DRAFT_NOTE, "already has the credit note GU-1003 (id 720003)"),
    ],
)
async def test_credit_note_refusals_send_nothing(invoice: int, expected: str) -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), CREDIT, invoice_id=invoice)
    assert expected in refusal(result)
    assert writes(fake) == []


async def test_code_455_of_the_credit_note_is_mapped() -> None:
    fake = build_demo()
    app = commit_app(fake, transport=ChangeBefore(fake, "POST", CREDIT_PATH, _credit_meanwhile))
    _, result = await approved(app, CREDIT, invoice_id=RE_1036)
    assert "sevDesk refused (code 455): the credit notes of this invoice would exceed" in (
        refusal(result)
    )
    assert (
        len(
            [
                n
                for n in fake.store.credit_notes
                if n.refSrcInvoice and n.refSrcInvoice.id == RE_1036
            ]
        )
        == 1
    )


async def test_a_lost_answer_to_the_credit_note_names_where_to_look() -> None:
    fake = build_demo()
    fake.faults.timeout_after_write_next()
    _, result = await approved(commit_app(fake), CREDIT, invoice_id=RE_1036)
    text = refusal(result)
    assert "no answer arrived" in text
    assert "the credit notes (Gutschriften) of Rechnung (invoice) RE-1036 (id 700036)" in text


async def test_a_failed_read_back_names_the_cancellation_already_made() -> None:
    fake = build_demo()
    app = commit_app(fake, transport=FailAfter(fake, "POST", CANCEL_PATH, 500))
    _, result = await approved(app, CANCEL, invoice_id=RE_1036)
    text = refusal(result)
    assert "Already changed before the failure: cancelled Rechnung (invoice) RE-1036" in text
    assert writes(fake) == [f"POST {CANCEL_PATH}"] and _storno_of(fake.store, RE_1036)
