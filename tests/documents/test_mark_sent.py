"""sevdesk_mark_document_sent: sendBy with VP or VPR records a letter; sevDesk posts nothing,
and a draft is finalized by it, which the preview says."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import build_demo
from tests.documents.draft_helpers import DRAFT_INVOICE, OPEN_INVOICE, app, approved
from tests.writes.tool_helpers import body, call, facts, said, writes

pytestmark = pytest.mark.anyio
MARK = "sevdesk_mark_document_sent"


async def test_marking_a_draft_as_posted_finalizes_it_and_says_so() -> None:
    fake = build_demo()
    message, result = await approved(
        app(fake), MARK, kind="invoice", document_id=DRAFT_INVOICE, way="post"
    )
    assert "this finalizes the draft" in message
    assert "sevDesk sends no letter" in message
    assert "festschreiben" in message
    assert writes(fake) == [f"PUT /Invoice/{DRAFT_INVOICE}/sendBy"]
    assert body(fake, "PUT", f"/Invoice/{DRAFT_INVOICE}/sendBy") == {
        "sendType": "VP",
        "sendDraft": False,
    }
    data = result["structuredContent"]["result"]
    assert data["status"] == "open"
    assert any(f"sevdesk://invoices/{DRAFT_INVOICE}/pdf" in d for d in data["written"])


async def test_marking_an_open_invoice_as_printed_records_it_only() -> None:
    fake = build_demo()
    result = await call(
        app(fake), MARK, kind="invoice", document_id=OPEN_INVOICE, way="printed", dryRun=True
    )
    preview = result["structuredContent"]["preview"]
    action, warnings = said(preview)
    assert "finalizes" not in action
    assert any("user's to do" in w for w in warnings)
    assert any("VPR" in value for value in facts(preview).values())
    assert writes(fake) == []


@pytest.mark.parametrize("document_id", [700006, 700007])  # cancelled, and its Storno
async def test_a_cancelled_invoice_or_its_storno_is_not_marked_as_sent(document_id: int) -> None:
    fake = build_demo()
    result = await call(app(fake), MARK, kind="invoice", document_id=document_id, way="post")
    text = result["content"][0]["text"]
    assert result.get("isError") is True and "cancelled or is a cancellation invoice" in text
    assert writes(fake) == []
