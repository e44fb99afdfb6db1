"""Approvals bind the records they were given for (issue 12, finding 1; threat F01).

An approval covers the complete state of every record the action depends on, not only what the
preview showed: the approved retry prepares again under the record locks, and any difference
(positions, texts, dates, a field the preview does not show, the update time) asks the human
again and names what changed. In elicitation mode (both eras) and on the browser page.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.mcp.app import McpApp
from tests.browser.helpers import browser_app, last_link, post, visit
from tests.wire import FORM, Wire, open_wire
from tests.writes.helpers import DRAFT_ID, approve, write_app, writes

pytestmark = [pytest.mark.anyio, pytest.mark.threat("F01")]
FINALIZE = "sevdesk_finalize_document"
SENT = f"PUT /Invoice/{DRAFT_ID}/sendBy"
IBAN = "DE89 3704 0044 0532 0130 00"
FINALIZE_DRAFT = {"kind": "invoice", "document_id": DRAFT_ID}
# The same gross (6052.34 EUR) as the demo draft, one position instead of three, a new IBAN in
# the head text and another date: what the model could do with the write tier, which asks nobody.
SAME_GROSS = {
    **FINALIZE_DRAFT,
    "contact_id": 410015,
    "header": "Rechnung",
    "positions": [{"name": "Pauschale", "quantity": "1", "unit_price": "5086.00", "tax_rate": 19}],
    "head_text": f"Bitte überweisen Sie an unser neues Konto {IBAN}.",
    "date": "2026-11-20",
}


async def _call(wire: Wire, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments, **extra}
    result: dict[str, Any] = (await wire.modern("tools/call", params, caps=FORM))["result"]
    return result


async def _ask_then_change(app: McpApp, fake: FakeSevdesk, change: Any) -> dict[str, Any]:
    """Ask to finalize, change the draft behind the human's back, retry with the approval."""
    async with open_wire(app) as wire:
        first = await _call(wire, FINALIZE, FINALIZE_DRAFT)
        assert "inputRequests" in first, first
        await change(wire, fake)
        return await _call(
            wire,
            FINALIZE,
            FINALIZE_DRAFT,
            requestState=first["requestState"],
            inputResponses=approve(),
        )


async def _update_with_the_tool(wire: Wire, fake: FakeSevdesk) -> None:
    updated = await _call(wire, "sevdesk_update_document_draft", SAME_GROSS)
    assert updated["structuredContent"]["status"] == "done", updated


async def _change_an_unshown_field(wire: Wire, fake: FakeSevdesk) -> None:
    invoice = fake.store.invoices.get(DRAFT_ID)
    invoice.customerInternalNote = "changed in another tab"
    fake.store.save(invoice)


async def test_the_preview_shows_what_a_human_needs_to_judge_a_finalize() -> None:
    async with open_wire(write_app(build_demo())) as wire:
        first = await _call(wire, FINALIZE, FINALIZE_DRAFT)
    (form,) = first["inputRequests"].values()
    message = form["params"]["message"]
    # what the person reads in the client: their language (English here), their formats,
    # third-party text in quotation marks (the fences are for the model)
    assert "Contact: “Buchhandlung Seitenwind GmbH” (id 410015)" in message
    assert "Date: 24 Nov 2026" in message and "Due: 8 Dec 2026 (14 days)" in message
    assert "Delivery date: 22 Nov 2026" in message
    assert "Head text: “Vielen Dank für Ihren Auftrag." in message
    assert (
        "1 | 4 | “Einbauschrank nach Maß (je laufender Meter)” | €1,150.00 | 19 % | €4,600.00"
        in (message)
    )
    assert "Net: €5,086.00" in message and "Gross: €6,052.34" in message
    assert "⟦" not in message and "⟧" not in message


@pytest.mark.parametrize("change", [_update_with_the_tool, _change_an_unshown_field])
async def test_an_approval_does_not_survive_a_change_of_the_record(change: Any) -> None:
    fake = build_demo()
    retry = await _ask_then_change(write_app(fake), fake, change)
    assert "inputRequests" in retry, retry  # asked again, not done
    (form,) = retry["inputRequests"].values()
    assert form["params"]["message"].startswith("The records changed since you were asked (")
    assert f"/Invoice/{DRAFT_ID}" in form["params"]["message"]
    assert SENT not in writes(fake)
    invoice = fake.store.invoices.get(DRAFT_ID)
    assert invoice.status == 100 and invoice.invoiceNumber is None


async def test_the_renewed_question_names_the_changed_lines_and_binds_the_new_state() -> None:
    fake = build_demo()
    app = write_app(fake)
    retry = await _ask_then_change(app, fake, _update_with_the_tool)
    (form,) = retry["inputRequests"].values()
    message = form["params"]["message"]
    first_line = message.split("\n")[0]
    assert "the preview lines 'Date'" in first_line
    assert "'Head text', 'Positions'" in first_line and "'Header'" not in first_line
    assert IBAN in message and "Pauschale" in message
    async with open_wire(app) as wire:
        done = await _call(
            wire,
            FINALIZE,
            FINALIZE_DRAFT,
            requestState=retry["requestState"],
            inputResponses=approve(),
        )
    assert done["structuredContent"]["status"] == "done"
    assert fake.store.invoices.get(DRAFT_ID).sumGross == Decimal("6052.34")
    assert writes(fake).count(SENT) == 1


async def test_on_the_browser_page_an_approval_is_void_after_the_record_changed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        first = await _call(wire, FINALIZE, FINALIZE_DRAFT)
        assert first["structuredContent"]["status"] == "approval_pending"
        assert (await post(await visit(last_link(caplog)), "approve")).status_code == 200
        await _update_with_the_tool(wire, setup.fake)
        retry = (await _call(wire, FINALIZE, FINALIZE_DRAFT))["structuredContent"]
        page = await visit(last_link(caplog))
    assert retry["status"] == "approval_pending"
    assert retry["note"].startswith("The records changed since the user was asked (")
    assert SENT not in writes(setup.fake)
    assert "Changed: " in page.response.text and "Pauschale" in page.response.text


def test_two_different_reads_never_share_one_entry_of_the_witness() -> None:
    from sevdesk_mcp.sevdesk.witness import Witness

    witness = Witness()
    witness.saw("/Contact", {"name": "a&b=c"}, [1])
    witness.saw("/Contact", {"name": "a", "b": "c"}, [2])
    witness.saw("/Invoice", {"limit": "1", "offset": "0"}, [3])
    witness.saw("/Invoice", {"limit": "1000", "offset": "0"}, [4])
    assert len(witness.records()) == 4
