"""sevdesk_book_match, sevdesk_mark_transaction_private and sevdesk_undo_booking through the
whole write flow on the demo month of statements: plan, preview, one approval, the bookings in
order, read-back; a plan that goes stale between preview and execute asks again."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake.demo_statements import StatementMonth, build_statement_demo
from tests.documents.commit_helpers import approved, body, commit_app, refusal, writes
from tests.wire import FORM, open_wire
from tests.writes.helpers import approve

pytestmark = pytest.mark.anyio
BOOK = "sevdesk_book_match"


def _rows(month: StatementMonth, key: str, **extra: Any) -> dict[str, Any]:
    tx = month.transactions[key]
    rows = [
        {"kind": k, "document_id": d, "amount": f"{a:.2f}", **extra}
        for k, d, a in month.expected[tx]
    ]
    return {"transaction_id": tx, "bookings": rows}


async def test_a_collective_payment_over_three_invoices_is_one_approval_and_three_bookings() -> (
    None
):
    fake, month = build_statement_demo()
    message, result = await approved(commit_app(fake), BOOK, **_rows(month, "collective"))
    assert "Booking 3: invoice RE-" in message and "one after another" in message
    assert "Unbooked after: €0.00" in message
    done = result["structuredContent"]
    assert done["status"] == "done", result
    ids = [month.documents[n] for n in ("RE-1101", "RE-1102", "RE-1103")]
    assert writes(fake) == [f"PUT /Invoice/{i}/bookAmount" for i in ids]  # in order
    assert [body(fake, "PUT", f"/Invoice/{i}/bookAmount")["type"] for i in ids] == ["N"] * 3  # Q28
    assert all(fake.store.invoices.get(i).status == 1000 for i in ids)
    assert done["result"]["unbooked_after"]["amount"] == "0.00"


async def test_an_instalment_leaves_the_invoice_partly_paid() -> None:
    fake, month = build_statement_demo()
    _, result = await approved(commit_app(fake), BOOK, **_rows(month, "instalment_1"))
    assert result["structuredContent"]["status"] == "done", result
    invoice = fake.store.invoices.get(month.documents["RE-1104"])
    assert (invoice.status, invoice.paidAmount) == (750, Decimal("800.00"))
    assert body(fake, "PUT", f"/Invoice/{invoice.id}/bookAmount")["type"] == "N"


async def test_a_cash_discount_settles_the_invoice_with_type_cb() -> None:
    fake, month = build_statement_demo()
    message, result = await approved(
        commit_app(fake), BOOK, **_rows(month, "cash_discount", settle="cash_discount")
    )
    assert "less a cash discount (CB)" in message and "open €1,428.00 → €0.00" in message
    assert result["structuredContent"]["status"] == "done", result
    invoice = fake.store.invoices.get(month.documents["RE-1105"])
    assert body(fake, "PUT", f"/Invoice/{invoice.id}/bookAmount")["type"] == "CB"
    assert invoice.status == 1000


async def test_a_refund_books_the_credit_note_with_the_sign_of_the_bank_flow() -> None:
    fake, month = build_statement_demo()
    _, result = await approved(commit_app(fake), BOOK, **_rows(month, "refund"))
    assert result["structuredContent"]["status"] == "done", result
    ident = month.documents["GU-1101"]
    assert body(fake, "PUT", f"/CreditNote/{ident}/bookAmount")["amount"] == "-119.00"  # Q26
    assert fake.store.credit_notes.get(ident).status == 1000


async def test_over_booking_the_transaction_is_refused_before_anything_is_sent() -> None:
    fake, month = build_statement_demo()
    arguments = _rows(month, "collective")
    arguments["bookings"][2]["amount"] = "300.00"
    _, result = await approved(commit_app(fake), BOOK, **arguments)
    assert "has only 297.50 EUR open" in refusal(result)
    arguments = _rows(month, "instalment_1")
    arguments["bookings"][0]["amount"] = "800.01"
    _, result = await approved(commit_app(fake), BOOK, **arguments)
    assert "Transaction" in refusal(result) and "left for" in refusal(result)
    assert writes(fake) == []


async def test_a_plan_that_goes_stale_between_preview_and_execute_asks_again() -> None:
    fake, month = build_statement_demo()
    params = {"name": BOOK, "arguments": _rows(month, "collective")}
    async with open_wire(commit_app(fake)) as wire:
        first = (await wire.modern("tools/call", params, caps=FORM))["result"]
        invoice = fake.store.invoices.get(month.documents["RE-1102"])
        invoice.customerInternalNote = "changed in another tab"
        fake.store.save(invoice)
        again = {**params, "requestState": first["requestState"], "inputResponses": approve()}
        retry = (await wire.modern("tools/call", again, caps=FORM))["result"]
    assert "inputRequests" in retry, retry  # asked again, nothing booked
    (form,) = retry["inputRequests"].values()
    assert form["params"]["message"].startswith("The records changed since you were asked (")
    assert writes(fake) == []


async def test_a_failure_half_way_names_what_is_already_booked() -> None:
    fake, month = build_statement_demo()
    second = month.documents["RE-1102"]
    from tests.documents.commit_helpers import ChangeBefore

    def pay_meanwhile(store: Any) -> None:
        invoice = store.invoices.get(second)
        invoice.status, invoice.paidAmount = 1000, invoice.sumGross

    transport = ChangeBefore(fake, "PUT", f"/Invoice/{second}/bookAmount", pay_meanwhile)
    _, result = await approved(
        commit_app(fake, transport=transport), BOOK, **_rows(month, "collective")
    )
    text = refusal(result)
    assert "Already changed before the failure: booked a payment of 1190.00 EUR" in text
    assert "RE-1101" in text


async def test_a_private_withdrawal_is_marked_and_set_back() -> None:
    fake, month = build_statement_demo()
    tx = month.transactions["private"]
    app = commit_app(fake)
    message, result = await approved(app, "sevdesk_mark_transaction_private", transaction_id=tx)
    assert "Status: unbooked → private" in message
    assert result["structuredContent"]["result"]["state"] == "private"
    assert fake.store.transactions.get(tx).status == 300
    _, result = await approved(
        app, "sevdesk_mark_transaction_private", transaction_id=tx, private=False
    )
    assert fake.store.transactions.get(tx).status == 100
    _, result = await approved(app, "sevdesk_mark_transaction_private", transaction_id=900065)
    assert "is booked against documents" in refusal(result)


async def test_undo_resets_the_documents_and_names_the_consequence() -> None:
    fake, month = build_statement_demo()
    app = commit_app(fake)
    await approved(app, BOOK, **_rows(month, "collective"))
    tx = month.transactions["collective"]
    message, result = await approved(app, "sevdesk_undo_booking", transaction_id=tx)
    assert "removes ALL of its bookings" in message
    assert result["structuredContent"]["status"] == "done", result
    assert all(
        fake.store.invoices.get(month.documents[n]).status == 200
        for n in ("RE-1101", "RE-1102", "RE-1103")
    )
    assert fake.store.transactions.get(tx).status == 100
    _, result = await approved(app, "sevdesk_undo_booking", transaction_id=tx)
    assert "has no bookings to undo" in refusal(result)


async def test_suggestions_on_the_demo_month_are_the_known_matching() -> None:
    fake, month = build_statement_demo()
    async with open_wire(commit_app(fake)) as wire:
        params = {"name": "sevdesk_suggest_matches", "arguments": {"limit": 100}}
        data = (await wire.modern("tools/call", params, caps={}))["result"]["structuredContent"]
    rows = {t["transaction_id"]: t for t in data["transactions"]}
    for tx, expected in month.expected.items():
        row = rows[tx]
        if not expected:
            assert row["status"] == "no_match" and row.get("hint"), row
            continue
        assert row["status"] == "confident", row
        got = [
            (b["kind"], b["document_id"], Decimal(b["amount"]["amount"]))
            for b in row["suggestions"][0]["bookings"]
        ]
        assert got == expected
