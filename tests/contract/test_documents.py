"""Document tools and resources against the demo company, through the real dispatcher."""

from __future__ import annotations

import base64
import datetime as dt
import os
import stat
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.mcp.app import McpApp
from tests.demo_account import demo_app, many_invoices
from tests.wire import open_wire

pytestmark = pytest.mark.anyio


async def call(app: McpApp, name: str, **arguments: Any) -> dict[str, Any]:
    async with open_wire(app) as wire:
        answer = await wire.modern("tools/call", {"name": name, "arguments": arguments})
    result: dict[str, Any] = answer["result"]
    return result


async def search(app: McpApp | None = None, **arguments: Any) -> dict[str, Any]:
    result = await call(app or demo_app(), "sevdesk_search_documents", **arguments)
    assert not result.get("isError"), result
    data: dict[str, Any] = result["structuredContent"]
    return data


@pytest.mark.parametrize(
    ("status", "count"),
    [("draft", 3), ("open", 8), ("partially_paid", 3), ("paid", 29), ("cancelled", 1)],
)
async def test_invoices_by_status(status: str, count: int) -> None:
    data = await search(status=status, limit=200)
    assert data["total_matches"] == count
    assert {d["status"] for d in data["documents"]} == {status}


async def test_overdue_invoices_are_open_and_past_due_with_days_counted() -> None:
    data = await search(overdue_only=True, limit=200)
    today = dt.date(2026, 11, 27)
    assert data["total_matches"] == 6
    for doc in data["documents"]:
        assert doc["status"] in ("open", "partially_paid")
        assert dt.date.fromisoformat(doc["due_date"]) < today
        assert doc["days_overdue"] == (today - dt.date.fromisoformat(doc["due_date"])).days
        assert Decimal(doc["open"]["amount"]) == Decimal(doc["gross"]["amount"]) - Decimal(
            doc["paid"]["amount"]
        )


async def test_totals_are_exact_sums_over_every_match() -> None:
    data = await search(open_only=True, limit=3)
    everything = await search(open_only=True, limit=200)
    assert len(data["documents"]) == 3 and data["total_matches"] == everything["total_matches"]
    exact = sum(Decimal(d["open"]["amount"]) for d in everything["documents"])
    assert data["open_total"] == [{"amount": f"{exact:.2f}", "currency": "EUR"}]
    assert data["note"].startswith(f"{data['total_matches'] - 3} more invoices not shown")


async def test_date_range_number_and_contact_filters() -> None:
    march = await search(date_from="2026-03-01", date_to="2026-03-31", limit=200)
    assert march["documents"]
    assert all("2026-03-01" <= d["date"] <= "2026-03-31" for d in march["documents"])
    one = await search(number_contains="1037")
    assert [d["number"] for d in one["documents"]] == ["RE-1037"]
    contact_id = one["documents"][0]["contact_id"]
    theirs = await search(contact_id=contact_id, limit=200)
    assert {d["contact_id"] for d in theirs["documents"]} == {contact_id}
    assert theirs["documents"][0]["contact_name"].startswith("⟦")


async def test_credit_notes_and_orders_have_their_own_statuses() -> None:
    notes = await search(kind="credit_note", limit=200)
    assert {d["status"] for d in notes["documents"]} == {"draft", "open", "paid"}
    orders = await search(kind="order", limit=200)
    assert {"draft", "sent", "rejected", "accepted", "invoiced"} <= {
        d["status"] for d in orders["documents"]
    }
    assert all(d.get("due_date") is None for d in orders["documents"])


async def test_a_status_of_another_kind_is_a_clear_error() -> None:
    result = await call(demo_app(), "sevdesk_search_documents", kind="order", status="paid")
    assert result["isError"] is True
    assert "The status 'paid' does not exist for orders" in result["content"][0]["text"]


async def test_get_document_positions_add_up_and_relations_are_found() -> None:
    app = demo_app()
    original = (await call(app, "sevdesk_get_document", document_id=700006))["structuredContent"]
    assert original["document"]["status"] == "cancelled"
    assert original["related"] == [
        {
            "relation": "cancelled by",
            "kind": "invoice",
            "id": 700007,
            "number": "RE-1007",
            "status": "paid",
        }
    ]
    assert original["positions_total"] == original["document"]["net"]
    assert original["tax"]["bookkeeping_system"] == "2.0"
    assert original["pdf_resource"] == "sevdesk://invoices/700006/pdf"
    storno = (await call(app, "sevdesk_get_document", document_id=700007))["structuredContent"]
    assert storno["related"][0]["relation"] == "cancels invoice"
    assert Decimal(storno["document"]["gross"]["amount"]) < 0


async def test_credit_notes_point_to_their_invoice_and_back() -> None:
    app = demo_app()
    note = await call(app, "sevdesk_get_document", kind="credit_note", document_id=720001)
    relation = note["structuredContent"]["related"][0]
    assert relation["relation"] == "corrects invoice" and relation["kind"] == "invoice"
    invoice = await call(app, "sevdesk_get_document", document_id=relation["id"])
    assert any(r["kind"] == "credit_note" for r in invoice["structuredContent"]["related"])


async def test_an_unknown_document_is_a_clear_error() -> None:
    result = await call(demo_app(), "sevdesk_get_document", kind="order", document_id=1)
    assert result["isError"] is True and "no such object" in result["content"][0]["text"]


async def test_the_pdf_tool_links_a_resource_and_never_marks_a_draft_sent() -> None:
    fake = build_demo()
    app = demo_app(fake=fake)
    drafts = await search(app, status="draft")
    draft_id = drafts["documents"][0]["id"]
    result = await call(app, "sevdesk_document_pdf", document_id=draft_id)
    link = result["content"][1]
    assert link["type"] == "resource_link" and link["mimeType"] == "application/pdf"
    assert link["uri"] == f"sevdesk://invoices/{draft_id}/pdf"
    assert result["structuredContent"].get("saved_to") is None
    after = await search(app, status="draft")
    assert draft_id in [d["id"] for d in after["documents"]]
    assert all(
        r.query.get("preventSendBy") == "true" for r in fake.requests if r.path.endswith("/getPdf")
    )


async def test_with_an_output_folder_the_pdf_is_saved_as_a_new_private_file(tmp_path: Path) -> None:
    app = demo_app({"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    first = (await call(app, "sevdesk_document_pdf", document_id=700037))["structuredContent"]
    second = (await call(app, "sevdesk_document_pdf", document_id=700037))["structuredContent"]
    assert Path(first["saved_to"]).name == "invoice-700037-RE-1037.pdf"
    assert Path(second["saved_to"]).name == "invoice-700037-RE-1037-1.pdf"
    data = await anyio.Path(first["saved_to"]).read_bytes()
    assert data.startswith(b"%PDF") and len(data) == first["size_bytes"]
    assert stat.S_IMODE(os.stat(first["saved_to"]).st_mode) == 0o600


async def test_resources_list_templates_and_reads() -> None:
    async with open_wire(demo_app()) as wire:
        listed = (await wire.modern("resources/list"))["result"]["resources"]
        templates = (await wire.modern("resources/templates/list"))["result"]["resourceTemplates"]
        pdf = await wire.modern("resources/read", {"uri": "sevdesk://invoices/700037/pdf"})
        rules = await wire.modern("resources/read", {"uri": "sevdesk://reference/tax-rules"})
        missing = await wire.modern("resources/read", {"uri": "sevdesk://orders/1/pdf"})
        unknown = await wire.modern("resources/read", {"uri": "sevdesk://reference/../x"})
        await wire.initialize()
        legacy = await wire.request("resources/read", {"uri": "sevdesk://invoices/1/pdf"})
    assert {r["uri"] for r in listed} >= {
        "sevdesk://reference/tax-rules",
        "sevdesk://reference/booking-accounts",
    }
    assert [t["uriTemplate"] for t in templates] == [
        "sevdesk://invoices/{id}/pdf",
        "sevdesk://credit-notes/{id}/pdf",
        "sevdesk://orders/{id}/pdf",
    ]
    content = pdf["result"]["contents"][0]
    assert content["mimeType"] == "application/pdf"
    assert base64.b64decode(content["blob"]).startswith(b"%PDF")
    assert '"code":"USTPFL_UMS_EINN"' in rules["result"]["contents"][0]["text"]
    assert missing["error"]["code"] == -32602
    assert missing["error"]["data"] == {"uri": "sevdesk://orders/1/pdf"}
    assert unknown["error"]["code"] == -32602
    assert legacy["error"]["code"] == -32002


async def test_search_pages_past_a_thousand_invoices() -> None:
    fake = many_invoices(2500)
    data = await search(demo_app(fake=fake), limit=10)
    assert data["total_matches"] == 2500 and len(data["documents"]) == 10
    assert data["gross_total"] == [{"amount": "29750.00", "currency": "EUR"}]
    assert data["note"] == "2490 more invoices not shown; narrow the search or raise limit."
    limits = [r.query.get("limit") for r in fake.requests if r.path == "/Invoice"]
    assert limits and all(limits)
