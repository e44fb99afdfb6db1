"""When sevDesk changes between preview and write, or fails half-way, the user learns exactly
what happened and what was already changed; nothing is retried."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.sending import finalise
from sevdesk_mcp.fake.store import Store
from tests.documents.commit_helpers import ChangeBefore
from tests.documents.draft_helpers import (
    CUSTOMER,
    DRAFT_CREDIT_NOTE,
    DRAFT_INVOICE,
    LINE,
    OPEN_INVOICE,
)
from tests.writes.tool_helpers import call, error_text, facts, write_app, writes

pytestmark = pytest.mark.anyio
ALL = {"SEVDESK_ALLOW": "write,commit,external"}
DRAFT = {"kind": "invoice", "contact_id": CUSTOMER, "positions": [LINE], "date": "2026-11-27"}


def finalized_meanwhile(store: Store) -> None:
    finalise(store, store.invoices.get(DRAFT_INVOICE), "VPDF")


@pytest.mark.parametrize(
    ("tool", "arguments", "request_", "said"),
    [
        (
            "sevdesk_delete_document_draft",
            {"kind": "invoice", "document_id": DRAFT_INVOICE},
            ("DELETE", f"/Invoice/{DRAFT_INVOICE}"),
            "(code 159): the document is no longer a draft",
        ),
        (  # sevDesk refuses a save of an enshrined document with 422 and no code
            "sevdesk_update_document_draft",
            {**DRAFT, "document_id": DRAFT_INVOICE},
            ("POST", "/Invoice/Factory/saveInvoice"),
            "is no draft (status 200, festgeschrieben)",
        ),
    ],
)
async def test_a_draft_finalized_meanwhile_is_reported_as_such(
    tool: str, arguments: dict[str, object], request_: tuple[str, str], said: str
) -> None:
    fake = build_demo()
    transport = ChangeBefore(fake, *request_, finalized_meanwhile)
    result = await call(write_app(fake, ALL, transport), tool, **arguments)
    text = error_text(result)
    assert said in text
    assert writes(fake) == [" ".join(request_)]  # sent once, refused, not retried


async def test_a_credit_note_failing_after_its_number_was_taken_names_the_number() -> None:
    fake = build_demo()
    fail = ChangeBefore(
        fake, "POST", "/CreditNote/Factory/saveCreditNote", lambda _: fake.faults.fail_next(503)
    )
    arguments = {**DRAFT, "kind": "credit_note", "source_invoice_id": OPEN_INVOICE}
    result = await call(write_app(fake, ALL, fail), "sevdesk_create_document_draft", **arguments)
    text = error_text(result)
    assert "may or may not have been applied" in text  # a 503 after sending: unknown (Q33)
    assert "Already changed before the failure: took credit note number GU-" in text
    assert writes(fake) == ["POST /CreditNote/Factory/saveCreditNote"]


async def test_a_credit_note_number_already_in_use_is_refused() -> None:
    fake = build_demo()
    arguments = {**DRAFT, "kind": "credit_note", "source_invoice_id": OPEN_INVOICE}
    dry = await call(
        write_app(fake, ALL), "sevdesk_create_document_draft", **arguments, dryRun=True
    )
    number = facts(dry["structuredContent"]["preview"])["Credit note number"].split()[0]
    fake.store.credit_notes.get(DRAFT_CREDIT_NOTE).creditNoteNumber = number  # range stood still
    result = await call(write_app(fake, ALL), "sevdesk_create_document_draft", **arguments)
    assert f"{number} is already used by credit note {DRAFT_CREDIT_NOTE}" in error_text(result)
    assert writes(fake) == []


async def test_a_number_taken_meanwhile_by_another_credit_note_stops_before_the_save() -> None:
    fake = build_demo()
    lists = iter(range(100))

    def collide(store: Store) -> None:
        if next(lists) == 2:  # the check after the number was taken (two reads in prepare)
            store.credit_notes.get(DRAFT_CREDIT_NOTE).creditNoteNumber = taken_number(fake)

    arguments = {**DRAFT, "kind": "credit_note", "source_invoice_id": OPEN_INVOICE}
    server = write_app(fake, ALL, ChangeBefore(fake, "GET", "/CreditNote", collide))
    result = await call(server, "sevdesk_create_document_draft", **arguments)
    assert "is already used by credit note" in error_text(result)
    assert "took credit note number" in error_text(result)
    assert writes(fake) == []


def taken_number(fake: FakeSevdesk) -> str:
    """:returns: the number the fake handed out last (its format is GU-%NUMBER)."""
    return f"GU-{fake.store.peek_number('GU-') - 1}"


async def test_a_draft_with_a_negative_sum_is_not_finalized() -> None:
    fake = build_demo()
    credit = {**LINE, "quantity": "1", "unit_price": "-500.00"}
    draft = await call(
        write_app(fake, ALL), "sevdesk_create_document_draft", **{**DRAFT, "positions": [credit]}
    )
    ident = draft["structuredContent"]["result"]["id"]
    assert Decimal(draft["structuredContent"]["result"]["gross"]["amount"]) < 0
    result = await call(
        write_app(fake, ALL), "sevdesk_finalize_document", kind="invoice", document_id=ident
    )
    assert "code 7100" in error_text(result)
    assert writes(fake) == ["POST /Invoice/Factory/saveInvoice"]
