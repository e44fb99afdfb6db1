"""Orders, commission credit notes, credit-note updates and the number sequence's answers."""

from __future__ import annotations

import datetime as dt

import pytest

from sevdesk_mcp.domain.documents.credit_note_numbers import formatted as _formatted
from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.fake import build_demo
from tests.documents.draft_helpers import CUSTOMER, DRAFT_CREDIT_NOTE, LINE, OPEN_INVOICE, app
from tests.writes.tool_helpers import body, call, error_text, facts, writes

pytestmark = pytest.mark.anyio
CREATE = "sevdesk_create_document_draft"
BASE = {"contact_id": CUSTOMER, "positions": [LINE], "date": "2026-11-27"}


async def test_an_order_draft_is_an_offer_with_its_type() -> None:
    fake = build_demo()
    data = (await call(app(fake), CREATE, kind="order", order_type="AB", **BASE))[
        "structuredContent"
    ]
    assert data["status"] == "done", data
    sent = body(fake, "POST", "/Order/Factory/saveOrder")
    assert (sent["order"]["orderType"], sent["order"]["orderDate"]) == ("AB", "27.11.2026")
    assert sent["orderPosSave"][0]["objectName"] == "OrderPos"
    assert data["result"]["kind"] == "order" and data["result"]["status"] == "draft"


async def test_a_commission_credit_note_needs_tax_rule_9() -> None:
    fake = build_demo()
    wrong = await call(
        app(fake), CREATE, kind="credit_note", credit_note_category="provision", **BASE
    )
    assert "needs tax rule 9" in error_text(wrong)
    right = await call(
        app(fake),
        CREATE,
        kind="credit_note",
        credit_note_category="provision",
        tax_rule_id=9,
        **BASE,
    )
    assert right["structuredContent"]["status"] == "done", right
    sent = body(fake, "POST", "/CreditNote/Factory/saveCreditNote")["creditNote"]
    assert sent["bookingCategory"] == "PROVISION" and "refSrcInvoice" not in sent


async def test_a_correction_may_only_use_the_rates_of_its_invoice() -> None:
    fake = build_demo()
    line = {**LINE, "tax_rate": 7}
    result = await call(
        app(fake),
        CREATE,
        **{**BASE, "positions": [line]},
        kind="credit_note",
        source_invoice_id=OPEN_INVOICE,
    )
    assert "code 456" in error_text(result)
    assert writes(fake) == []


async def test_options_of_other_kinds_are_refused() -> None:
    fake = build_demo()
    days = await call(app(fake), CREATE, kind="order", payment_days=10, **BASE)
    source = await call(app(fake), CREATE, kind="invoice", source_invoice_id=OPEN_INVOICE, **BASE)
    assert "payment_days applies to invoices only" in error_text(days)
    assert "source_invoice_id applies to credit notes only" in error_text(source)


async def test_updating_a_credit_note_draft_keeps_its_number() -> None:
    fake = build_demo()
    data = (
        await call(
            app(fake),
            "sevdesk_update_document_draft",
            kind="credit_note",
            document_id=DRAFT_CREDIT_NOTE,
            source_invoice_id=OPEN_INVOICE,
            **{**BASE, "positions": [{**LINE, "unit_price": "10.00"}]},
            dryRun=True,
        )
    )["structuredContent"]
    assert data["status"] == "dry_run", data
    assert facts(data["preview"])["Positions replaced"] != "0"
    source = fake.store.credit_notes.get(DRAFT_CREDIT_NOTE).refSrcInvoice
    assert source is not None  # RE-1037, whose positions are at 7 %
    live = await call(  # the credit note keeps the invoice it corrects
        app(fake),
        "sevdesk_update_document_draft",
        kind="credit_note",
        document_id=DRAFT_CREDIT_NOTE,
        **{**BASE, "positions": [{**LINE, "unit_price": "10.00", "tax_rate": 7}]},
    )
    assert live["structuredContent"]["status"] == "done", live
    sent = body(fake, "POST", "/CreditNote/Factory/saveCreditNote")["creditNote"]
    assert sent["creditNoteNumber"] == "GU-1003"
    assert sent["refSrcInvoice"]["id"] == source.id


def test_the_number_sequence_answer_is_formatted() -> None:
    day = dt.date(2026, 3, 9)
    assert _formatted("1005", day) == "1005"
    pattern = {"nextSequence": "7", "format": "GU-%YYYY-%MM-%NUMBER"}
    assert _formatted(dict(pattern), day) == "GU-2026-03-7"
    assert _formatted({"nextSequence": 7}, day) == "7"
    with pytest.raises(MalformedResponseError, match="Nummernkreise"):
        _formatted({"format": "GU-%NUMBER"}, day)
