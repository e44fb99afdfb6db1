"""sevdesk_finalize_document, sevdesk_enshrine_document and sevdesk_send_document_email: the
preview a human approves names the irreversible consequence, and exactly that is executed."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.definitions import ALL_TOOLS
from tests.documents.commit_helpers import EXPENSE, VOUCHER_DRAFT
from tests.documents.draft_helpers import (
    DRAFT_CREDIT_NOTE,
    DRAFT_INVOICE,
    OPEN_INVOICE,
    app,
    approved,
)
from tests.wire import open_wire
from tests.writes.helpers import approve, write_app
from tests.writes.tool_helpers import body, call, error_text, facts, person_said, said, writes

pytestmark = pytest.mark.anyio
FINALIZE = "sevdesk_finalize_document"
ENSHRINE = "sevdesk_enshrine_document"
EMAIL = "sevdesk_send_document_email"
MAIL = {
    "to_email": "buchhaltung@cafe-kastanie.example",
    "subject": "Ihre Rechnung",
    "text": "Guten Tag,\nanbei die Rechnung.\nViele Grüße",
}


async def test_finalize_asks_naming_number_and_festschreiben_then_sends_by_once() -> None:
    fake = build_demo()
    message, result = await approved(app(fake), FINALIZE, kind="invoice", document_id=DRAFT_INVOICE)
    assert "enshrines it (festschreiben, GoBD)" in message
    assert "can never again be changed or deleted" in message
    assert "WARNING: This cannot be undone." in message
    assert "Sent to the customer: no" in message
    data = result["structuredContent"]
    assert data["status"] == "done"
    assert writes(fake) == [f"PUT /Invoice/{DRAFT_INVOICE}/sendBy"]
    assert body(fake, "PUT", f"/Invoice/{DRAFT_INVOICE}/sendBy") == {
        "sendType": "VPDF",
        "sendDraft": False,
    }
    written = data["result"]
    assert written["status"] == "open" and written["number"].startswith("RE-")
    assert written["enshrined"] is True


async def test_a_declined_finalize_sends_nothing() -> None:
    fake = build_demo()
    _, result = await approved(
        app(fake), FINALIZE, approve(action="decline"), kind="invoice", document_id=DRAFT_INVOICE
    )
    assert result["structuredContent"]["status"] == "declined"
    assert writes(fake) == []


async def test_finalize_refuses_a_document_that_is_no_draft() -> None:
    fake = build_demo()
    result = await call(app(fake), FINALIZE, kind="invoice", document_id=OPEN_INVOICE)
    assert "is already finalized" in error_text(result)
    assert writes(fake) == []


@pytest.mark.parametrize(
    ("allow", "missing"),
    [("write", {FINALIZE, ENSHRINE, EMAIL}), ("write,commit", {EMAIL})],
)
async def test_binding_tools_are_not_offered_without_their_tier(
    allow: str, missing: set[str]
) -> None:
    fake = build_demo()
    server = write_app(fake, {"SEVDESK_ALLOW": allow})
    async with open_wire(server) as wire:
        listed = (await wire.modern("tools/list", {}))["result"]["tools"]
        answer = await wire.modern(
            "tools/call",
            {"name": sorted(missing)[0], "arguments": {"kind": "invoice", "document_id": 1}},
        )
    assert not missing & {t["name"] for t in listed}
    assert "sevdesk_create_document_draft" in {t["name"] for t in listed}
    assert "error" in answer or answer["result"]["isError"] is True
    assert writes(fake) == []


async def test_a_lost_answer_after_finalize_is_reported_as_unknown_with_what_to_check() -> None:
    fake = build_demo()
    fake.faults.timeout_after_write_next()
    server = write_app(fake, {"SEVDESK_CONFIRM": "off", "SEVDESK_I_UNDERSTAND_NO_CONFIRM": "1"})
    result = await call(server, FINALIZE, kind="invoice", document_id=DRAFT_INVOICE)
    text = error_text(result)
    assert "may or may not have been applied" in text
    assert f"Look at Rechnung (invoice) {DRAFT_INVOICE} in sevDesk" in text
    assert writes(fake) == [f"PUT /Invoice/{DRAFT_INVOICE}/sendBy"]  # never retried


async def test_enshrine_always_warns_that_it_is_irreversible_gobd() -> None:
    fake = build_demo()
    fake.store.invoices.get(OPEN_INVOICE).enshrined = None  # finalized before enshrining existed
    dry = (await call(app(fake), ENSHRINE, kind="invoice", document_id=OPEN_INVOICE, dryRun=True))[
        "structuredContent"
    ]
    assert "is final (GoBD)" in said(dry["preview"])[1][0]
    assert dry["preview"]["irreversible"] is True
    message, result = await approved(app(fake), ENSHRINE, kind="invoice", document_id=OPEN_INVOICE)
    assert "(GoBD)" in message
    assert result["structuredContent"]["result"]["enshrined"] is True
    assert writes(fake) == [f"PUT /Invoice/{OPEN_INVOICE}/enshrine"]


@pytest.mark.parametrize(
    ("document", "said"),
    [(OPEN_INVOICE, "already enshrined (festgeschrieben)"), (DRAFT_INVOICE, "Finalize it first")],
)
async def test_enshrine_refuses_what_it_cannot_do(document: int, said: str) -> None:
    fake = build_demo()
    result = await call(app(fake), ENSHRINE, kind="invoice", document_id=document)
    assert said in error_text(result)
    assert writes(fake) == []


async def test_the_email_preview_shows_recipient_subject_and_text_in_full() -> None:
    fake = build_demo()
    data = (
        await call(app(fake), EMAIL, kind="invoice", document_id=OPEN_INVOICE, **MAIL, dryRun=True)
    )["structuredContent"]
    shown = facts(data["preview"])
    assert (shown["To"], shown["Subject"], shown["Text"]) == (
        f"⟦{MAIL['to_email']}⟧",
        f"⟦{MAIL['subject']}⟧",
        f"⟦{MAIL['text']}⟧",
    )
    assert "cannot be recalled" in " ".join(said(data["preview"])[1])
    assert writes(fake) == []


async def test_an_approved_email_is_sent_once_and_the_document_read_back() -> None:
    fake = build_demo()
    message, result = await approved(
        app(fake), EMAIL, kind="invoice", document_id=OPEN_INVOICE, **MAIL
    )
    assert "To: “buchhaltung@cafe-kastanie.example”" in message
    assert "Text:\n    “Guten Tag,\n    anbei die Rechnung." in message
    assert writes(fake) == [f"POST /Invoice/{OPEN_INVOICE}/sendViaEmail"]
    sent = body(fake, "POST", f"/Invoice/{OPEN_INVOICE}/sendViaEmail")
    assert (sent["toEmail"], sent["subject"], sent["text"]) == tuple(MAIL.values())
    written = result["structuredContent"]["result"]
    assert (written["status"], written["number"]) == ("open", "RE-1039")
    (email,) = fake.store.emails
    assert (email.to, email.subject) == (MAIL["to_email"], MAIL["subject"])


async def test_a_draft_is_not_sent_because_sending_would_finalize_it() -> None:
    fake = build_demo()
    server = write_app(fake, {"SEVDESK_ALLOW": "write,external"})  # no commit tier
    result = await call(server, EMAIL, kind="invoice", document_id=DRAFT_INVOICE, **MAIL)
    assert "Finalize it first with sevdesk_finalize_document" in error_text(result)
    assert writes(fake) == []
    assert fake.store.invoices.get(DRAFT_INVOICE).status == 100


async def test_a_bad_email_address_is_refused() -> None:
    fake = build_demo()
    mail = {**MAIL, "to_email": "a@b.example, c@d.example"}
    result = await call(app(fake), EMAIL, kind="invoice", document_id=DRAFT_INVOICE, **mail)
    assert "to_email" in error_text(result)
    assert writes(fake) == []


async def test_a_credit_note_draft_can_be_finalized_with_its_number() -> None:
    fake = build_demo()
    _, result = await approved(
        app(fake), FINALIZE, kind="credit_note", document_id=DRAFT_CREDIT_NOTE
    )
    written = result["structuredContent"]["result"]
    assert (written["number"], written["status"]) == ("GU-1003", "open")


BINDING_CALLS: dict[str, dict[str, Any]] = {
    "sevdesk_finalize_document": {"kind": "invoice", "document_id": DRAFT_INVOICE},
    "sevdesk_send_document_email": {"kind": "invoice", "document_id": OPEN_INVOICE, **MAIL},
    "sevdesk_mark_document_sent": {"kind": "invoice", "document_id": DRAFT_INVOICE, "way": "post"},
    "sevdesk_book_payment": {
        "kind": "invoice",
        "document_id": OPEN_INVOICE,
        "amount": "18.56",
        "date": "2026-11-27",
        "check_account_id": 5002,
    },
    "sevdesk_cancel_invoice": {"invoice_id": OPEN_INVOICE},
    "sevdesk_credit_note_from_invoice": {"invoice_id": OPEN_INVOICE},
    "sevdesk_reset_document": {"kind": "invoice", "document_id": 700032, "to": "open"},
    "sevdesk_book_match": {
        "transaction_id": 900075,
        "bookings": [{"kind": "invoice", "document_id": 700037}],
    },
    "sevdesk_mark_transaction_private": {"transaction_id": 900058},
    "sevdesk_undo_booking": {"transaction_id": 900065},
    "sevdesk_finalize_receipt": {"voucher_id": VOUCHER_DRAFT},
    "sevdesk_export_datev_enshrined": {"period": "2026-10"},
}


def _ready(fake: FakeSevdesk, name: str) -> FakeSevdesk:
    """:returns: ``fake`` with what a binding call needs beyond the demo books: the demo
    receipt draft gets a tax rule its booking account allows (as its own test does)."""
    if name == "sevdesk_finalize_receipt":
        draft = fake.store.vouchers.get(VOUCHER_DRAFT)
        draft.taxRule = fake.store.vouchers.get(EXPENSE).taxRule
    return fake


WORDS = (
    "festschreib",
    "festgeschrieben",
    "Storno",
    "Gutschrift",
    "Zurücksetzen",
    "zurückgesetzt",
    "cannot be recalled",
    "binding",
)


async def test_every_binding_preview_names_its_consequence_in_the_bookkeepers_words() -> None:
    binding = {t.name for t in ALL_TOOLS if t.tier >= Tier.COMMIT}
    assert binding == {*BINDING_CALLS, ENSHRINE}  # enshrine has its own test above
    for name, arguments in BINDING_CALLS.items():
        fake = _ready(build_demo(), name)
        data = (await call(app(fake), name, **arguments, dryRun=True))["structuredContent"]
        preview = data["preview"]
        words = [*said(preview)[1], said(preview)[0], *person_said(preview)]
        assert preview["warnings"], name
        assert any(word in " ".join(words) for word in WORDS), (name, words)
        assert writes(fake) == []


async def test_orders_are_not_enshrined() -> None:
    fake = build_demo()
    order = next(iter(fake.store.orders)).id
    result = await call(app(fake), ENSHRINE, kind="order", document_id=order)
    assert "no enshrine for orders" in error_text(result)
    assert writes(fake) == []
