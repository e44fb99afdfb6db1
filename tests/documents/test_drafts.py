"""sevdesk_create/update/delete_document_draft on the demo books, through the dispatcher."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.sevdesk import dates
from tests.documents.draft_helpers import CUSTOMER, DRAFT_INVOICE, LINE, OPEN_INVOICE, app
from tests.writes.tool_helpers import body, call, error_text, facts, writes

pytestmark = pytest.mark.anyio
CREATE = "sevdesk_create_document_draft"
SAVE = "POST /Invoice/Factory/saveInvoice"
DRAFT = {"kind": "invoice", "contact_id": CUSTOMER, "positions": [LINE], "date": "2026-11-27"}


async def test_a_dry_run_shows_address_sums_and_tax_rule_and_sends_nothing() -> None:
    fake = build_demo()
    data = (await call(app(fake), CREATE, **DRAFT, header="Theke", dryRun=True))[
        "structuredContent"
    ]
    assert data["status"] == "dry_run"
    shown = facts(data["preview"])
    assert shown["Billing address"] == (
        "⟦Café Kastanie GmbH⟧\n⟦Konviktstraße 41⟧\n⟦79098 Freiburg im Breisgau⟧"
    )
    assert shown["Contact"] == "⟦Café Kastanie GmbH⟧ (id 410003)"
    assert shown["Tax rule"].startswith("1 ")
    assert shown["Positions"] == (
        "Pos. | Quantity | Name | Unit price | VAT | Net\n"
        "1 | 3 | ⟦Tischlerarbeiten Theke⟧ | 120.00 EUR | 19 % | 360.00 EUR"
    )
    assert (shown["Net"], shown["VAT 19 %"], shown["Gross"]) == (
        "360.00 EUR",
        "68.40 EUR",
        "428.40 EUR",
    )
    assert shown["Payment term"].endswith("days")
    assert writes(fake) == []


async def test_create_sends_one_save_with_the_address_and_reads_the_draft_back() -> None:
    fake = build_demo()
    data = (await call(app(fake), CREATE, **DRAFT, header="Theke"))["structuredContent"]
    assert data["status"] == "done"
    assert writes(fake) == [SAVE]
    sent = body(fake, "POST", "/Invoice/Factory/saveInvoice")
    invoice = sent["invoice"]
    assert invoice["objectName"] == "Invoice" and invoice["mapAll"] is True
    assert (invoice["status"], invoice["invoiceType"], invoice["invoiceDate"]) == (
        100,
        "RE",
        "27.11.2026",
    )
    assert invoice["addressStreet"] == "Konviktstraße 41"  # not copied by sevDesk (Q24)
    assert invoice["contactPerson"]["objectName"] == "SevUser"
    (position,) = sent["invoicePosSave"]
    assert (position["quantity"], position["price"], position["taxRate"]) == ("3", "120.00", "19")
    result = data["result"]
    assert (result["status"], result.get("number"), result["enshrined"]) == ("draft", None, False)
    assert Decimal(result["gross"]["amount"]) == Decimal("428.40")
    assert fake.store.invoices.get(result["id"]).status == 100


@pytest.mark.parametrize(
    ("rule", "rate", "said"),
    [
        (11, 19, "Tax rule 11 does not allow the rate(s) 19 %"),
        (9, 19, "Tax rule 9 is not a rule for sales documents"),
        (19, 19, "One-Stop-Shop"),  # a German buyer: refused once the contact is read
    ],
)
async def test_a_tax_rule_that_does_not_fit_is_refused_before_any_request(
    rule: int, rate: int, said: str
) -> None:
    fake = build_demo()
    line = {**LINE, "tax_rate": rate}
    result = await call(app(fake), CREATE, **{**DRAFT, "positions": [line]}, tax_rule_id=rule)
    assert said in error_text(result)
    assert fake.requests == [] if rule != 19 else writes(fake) == []


async def test_a_second_identical_draft_is_refused_unless_allowed() -> None:
    fake = build_demo()
    server = app(fake)
    first = (await call(server, CREATE, **DRAFT, header="Theke"))["structuredContent"]
    again = await call(server, CREATE, **DRAFT, header="theke ")
    assert f"Invoice {first['result']['id']}" in error_text(again)
    assert "allow_duplicate=true" in error_text(again)
    allowed = await call(server, CREATE, **DRAFT, header="Theke", allow_duplicate=True)
    assert allowed["structuredContent"]["status"] == "done"
    assert writes(fake) == [SAVE, SAVE]


async def test_an_unknown_contact_is_named() -> None:
    fake = build_demo()
    result = await call(app(fake), CREATE, **{**DRAFT, "contact_id": 999999})
    assert "There is no contact 999999" in error_text(result)
    assert writes(fake) == []


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"unit_price": "1e3"}, "positions[0].unit_price must be a decimal number"),
        ({"unit_price": 1e-7}, "positions[0].unit_price is the JSON number 1e-07, which is no"),
        ({"unit_price": "1.005"}, "positions[0].unit_price takes at most 2 decimal places"),
        ({"quantity": "0"}, "positions[0].quantity must be a decimal number above 0"),
        ({"name": "Theke\u202e"}, "'positions[0].name' contains characters a human"),
        ({"colour": "red"}, "colour"),
    ],
)
async def test_a_bad_position_is_refused_naming_the_field(
    change: dict[str, str], said: str
) -> None:
    fake = build_demo()
    result = await call(app(fake), CREATE, **{**DRAFT, "positions": [{**LINE, **change}]})
    assert said in error_text(result)
    assert writes(fake) == []


async def test_a_credit_note_takes_its_number_from_the_sequence_and_names_the_invoice() -> None:
    fake = build_demo()
    line = {**LINE, "quantity": "1", "unit_price": "50.00"}
    arguments = {**DRAFT, "kind": "credit_note", "positions": [line]}
    data = (await call(app(fake), CREATE, **arguments, source_invoice_id=OPEN_INVOICE))[
        "structuredContent"
    ]
    assert data["status"] == "done", data
    taken = [r.query for r in fake.requests if "SevSequence" in r.path]
    assert [q.get("useNextNumber") for q in taken] == ["false", None]  # peeked, then taken
    sent = body(fake, "POST", "/CreditNote/Factory/saveCreditNote")["creditNote"]
    assert sent["creditNoteNumber"] and sent["bookingCategory"] == "UNDERACHIEVEMENT"
    assert sent["refSrcInvoice"] == {"id": OPEN_INVOICE, "objectName": "Invoice"}
    assert data["result"]["number"] == sent["creditNoteNumber"]
    assert data["result"]["status"] == "draft"


async def test_a_credit_note_without_its_invoice_is_refused() -> None:
    fake = build_demo()
    result = await call(app(fake), CREATE, **{**DRAFT, "kind": "credit_note"})
    assert "needs source_invoice_id" in error_text(result)
    assert writes(fake) == []


async def test_an_update_replaces_the_positions_of_the_draft() -> None:
    fake = build_demo()
    old = [p.id for p in fake.store.positions_of(fake.store.invoices.get(DRAFT_INVOICE))]
    data = (
        await call(app(fake), "sevdesk_update_document_draft", **DRAFT, document_id=DRAFT_INVOICE)
    )["structuredContent"]
    assert data["status"] == "done", data
    sent = body(fake, "POST", "/Invoice/Factory/saveInvoice")
    assert sent["invoice"]["id"] == DRAFT_INVOICE
    assert [p["id"] for p in sent["invoicePosDelete"]] == old
    assert Decimal(data["result"]["gross"]["amount"]) == Decimal("428.40")
    positions = fake.store.positions_of(fake.store.invoices.get(DRAFT_INVOICE))
    assert [p.name for p in positions] == ["Tischlerarbeiten Theke"]


async def test_a_finalized_document_cannot_be_changed_or_deleted() -> None:
    fake = build_demo()
    server = app(fake)
    update = await call(server, "sevdesk_update_document_draft", **DRAFT, document_id=OPEN_INVOICE)
    delete = await call(
        server, "sevdesk_delete_document_draft", kind="invoice", document_id=OPEN_INVOICE
    )
    for result in (update, delete):
        assert "is no draft" in error_text(result)
        assert "sevdesk_cancel_invoice" in error_text(result)
    assert writes(fake) == []


async def test_delete_removes_the_draft_and_checks_it_is_gone() -> None:
    fake = build_demo()
    data = (
        await call(
            app(fake), "sevdesk_delete_document_draft", kind="invoice", document_id=DRAFT_INVOICE
        )
    )["structuredContent"]
    assert data["status"] == "done"
    assert data["result"] == {
        "id": DRAFT_INVOICE,
        "kind": "invoice",
        "deleted": True,
        "written": [f"deleted draft {DRAFT_INVOICE}"],
    }
    assert writes(fake) == [f"DELETE /Invoice/{DRAFT_INVOICE}"]


async def test_a_draft_without_date_is_dated_on_the_books_today() -> None:
    """In demo mode the default date is the demo books' today, not the real one."""
    fake = build_demo()
    fake.today = date(2025, 3, 14)
    assert fake.today != dates.today()
    undated = {k: v for k, v in DRAFT.items() if k != "date"}
    data = (await call(app(fake), CREATE, **undated))["structuredContent"]
    assert data["status"] == "done", data
    assert body(fake, "POST", "/Invoice/Factory/saveInvoice")["invoice"]["invoiceDate"] == (
        "14.03.2025"
    )
