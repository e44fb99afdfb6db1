"""sevdesk_book_payment on the demo books: plan, preview, approval, one bookAmount, read-back."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.sevdesk import dates
from tests.documents.commit_helpers import (
    EXPENSE,
    ONLINE,
    OPEN_CREDIT_NOTE,
    OPEN_INVOICE,
    OUTGOING_TX,
    PARTLY_PAID,
    PAYING_TX,
    REGISTER,
    REVENUE,
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
from tests.writes.tool_helpers import person_said, said, undo

pytestmark = pytest.mark.anyio
BOOK = "sevdesk_book_payment"
DAY = dt.date(2026, 11, 26)
PAY_RE_1037 = {
    "kind": "invoice",
    "document_id": OPEN_INVOICE,
    "amount": "763.98",
    "date": DAY.isoformat(),
    "check_account_id": ONLINE,
    "transaction_id": PAYING_TX,
}


async def test_a_dry_run_previews_the_booking_and_sends_nothing() -> None:
    fake = build_demo()
    data = await dry_run(commit_app(fake), BOOK, **PAY_RE_1037)
    preview = data["preview"]
    action, warnings = said(preview)
    assert action == "Book a payment on invoice RE-1037."
    shown = facts(preview)
    assert shown["Customer"] == "⟦Stadtbäckerei Vollmer GmbH⟧"
    assert shown["Amount"] == "763.98 EUR, incoming payment"
    assert shown["Amount sent to sevDesk"] == "763.98 EUR (positive: incoming)"
    assert shown["Payment type"] == "full payment (FULL_PAYMENT)"
    assert shown["Open before"] == "763.98 EUR"
    assert shown["Open after"] == "0.00 EUR"
    assert shown["Status after"] == "paid"
    assert "unbooked before: 763.98 EUR, after: 0.00 EUR" in shown["Bank transaction"]
    assert "resetting the document to open" in warnings[0]
    assert "removes ALL of its payment bookings" in warnings[0]
    assert undo(preview) == (
        "Way back: reset the document to open (this removes all of its payment bookings)."
    )
    german = person_said(preview)
    assert german[0] == "Eine Zahlung auf Rechnung RE-1037 verbuchen."
    assert "Zurücksetzen des Dokuments auf offen" in german[1]
    assert writes(fake) == []


async def test_approval_books_once_against_the_transaction_and_reads_back() -> None:
    fake = build_demo()
    message, result = await approved(commit_app(fake), BOOK, **PAY_RE_1037)
    assert message.startswith("WARNING: A booked payment is binding in the books.")
    data = result["structuredContent"]
    assert data["status"] == "done"
    path = f"/Invoice/{OPEN_INVOICE}/bookAmount"
    assert writes(fake) == [f"PUT {path}"]
    assert body(fake, "PUT", path) == {
        "amount": "763.98",
        "date": dates.unix_start(DAY),  # Q18: Unix seconds at the Berlin midnight
        "type": "FULL_PAYMENT",
        "checkAccount": {"id": ONLINE, "objectName": "CheckAccount"},
        "checkAccountTransaction": {"id": PAYING_TX, "objectName": "CheckAccountTransaction"},
    }
    invoice = fake.store.invoices.get(OPEN_INVOICE)
    assert (invoice.status, invoice.paidAmount) == (1000, Decimal("763.98"))
    assert fake.store.transactions.get(PAYING_TX).status == 400
    booked = data["result"]
    assert booked.get("voucher") is None and booked["payment_type"] == "FULL_PAYMENT"
    assert booked["amount"] == {"amount": "763.98", "currency": "EUR"}
    assert booked["document"]["status"] == "paid"
    assert booked["document"]["open"] == {"amount": "0.00", "currency": "EUR"}
    assert booked["document"]["written"] == [
        "booked a payment of 763.98 EUR on Rechnung (invoice) RE-1037 (id 700037)"
    ]


@pytest.mark.parametrize("answer", [approve(False), approve(action="decline")])
async def test_a_declined_booking_sends_nothing(answer: dict[str, Any]) -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), BOOK, answer, **PAY_RE_1037)
    assert result["structuredContent"]["status"] == "declined"
    assert writes(fake) == []
    assert fake.store.invoices.get(OPEN_INVOICE).paidAmount == 0


async def test_a_part_payment_in_the_cash_register_is_type_n_and_partly_paid() -> None:
    fake = build_demo()
    arguments = {**PAY_RE_1037, "document_id": PARTLY_PAID, "amount": "100"}
    arguments |= {"check_account_id": REGISTER, "transaction_id": None}
    _, result = await approved(commit_app(fake), BOOK, **arguments)
    sent = body(fake, "PUT", f"/Invoice/{PARTLY_PAID}/bookAmount")
    assert sent["type"] == "N" and sent["amount"] == "100.00"
    assert "checkAccountTransaction" not in sent  # Q27: sevDesk makes the register transaction
    invoice = fake.store.invoices.get(PARTLY_PAID)
    assert (invoice.status, invoice.paidAmount) == (750, Decimal(1371))
    document = result["structuredContent"]["result"]["document"]
    assert document["status"] == "partially_paid"
    assert document["open"]["amount"] == "1170.84"


def _payment(kind: str, ident: int, amount: str, account: int, tx: int | None) -> dict[str, Any]:
    return {"kind": kind, "document_id": ident, "amount": amount, "date": DAY.isoformat()} | {
        "check_account_id": account,
        "transaction_id": tx,
    }


@pytest.mark.parametrize(
    ("arguments", "sent", "status"),
    [
        (_payment("credit_note", OPEN_CREDIT_NOTE, "95.20", REGISTER, None), "-95.20", 1000),
        (_payment("voucher", EXPENSE, "240", ONLINE, OUTGOING_TX), "-240.00", 750),
        (_payment("voucher", REVENUE, "142.80", REGISTER, None), "142.80", 1000),
    ],
)
async def test_the_sign_follows_the_bank_flow(
    arguments: dict[str, Any], sent: str, status: int
) -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), BOOK, **arguments)
    kind, ident, amount = arguments["kind"], arguments["document_id"], arguments["amount"]
    model = {"credit_note": "CreditNote", "voucher": "Voucher"}[kind]
    request = body(fake, "PUT", f"/{model}/{ident}/bookAmount")
    assert request["amount"] == sent  # Q26: credit notes and expenses are booked negative
    table = fake.store.credit_notes if kind == "credit_note" else fake.store.vouchers
    document = table.get(ident)
    assert (document.status, document.paidAmount) == (status, Decimal(amount))
    if kind == "voucher":
        assert request["date"] == "2026-11-26T12:00:00+01:00"  # Q18: a date-time for vouchers
        assert result["structuredContent"]["result"]["voucher"]["paid"]["amount"] == (
            f"{Decimal(amount):.2f}"
        )
    else:
        assert request["date"] == dates.unix_start(DAY)


def _archive_register(store: Store) -> None:
    store.check_accounts.get(REGISTER).status = 0


def _mark_private(store: Store) -> None:
    store.transactions.get(PAYING_TX).status = 300


def _delete_transaction(store: Store) -> None:
    store.transactions.get(PAYING_TX).deletedAt = dt.datetime(2026, 11, 25, tzinfo=dates.BERLIN)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"document_id": 700041}, "is a draft (Entwurf); a draft cannot be paid. Finalize"),
        ({"document_id": 700032}, "RE-1032 (id 700032) is already paid (bezahlt)"),
        ({"document_id": 700006}, "is cancelled (storniert); it takes no payments"),
        ({"document_id": 700007}, "is a cancellation invoice (Stornorechnung)"),
        ({"kind": "voucher", "document_id": 800031}, "is a draft (Entwurf)"),
        ({"amount": "763.99"}, "has only 763.98 EUR open, less than 763.99 EUR"),
        ({"amount": "0"}, "amount must be the positive money that moved"),
        ({"amount": "-763.98"}, "amount must be the positive money that moved"),
        ({"amount": "1.005"}, "amount takes at most 2 decimal places"),
        ({"check_account_id": 999}, "There is no check account 999"),
        ({"transaction_id": None}, "is an online bank account"),
        ({"check_account_id": REGISTER}, "is an offline account or cash register"),
        ({"transaction_id": 999_999}, "There is no transaction 999999"),
        ({"transaction_id": 900062}, "belongs to check account 5002, not to 5001"),
        ({"transaction_id": 900065}, "Transaction 900065 is already fully booked"),
        ({"transaction_id": OUTGOING_TX}, "is outgoing (-240.00), but this payment is incoming"),
        ({"document_id": 700036, "amount": "1000"}, "has only 763.98 left to book"),
        ({"unknown": 1}, "Unknown argument"),
    ],
)
async def test_refusals_name_the_problem_and_send_nothing(
    changes: dict[str, Any], expected: str
) -> None:
    fake = build_demo()
    _, result = await approved(commit_app(fake), BOOK, **{**PAY_RE_1037, **changes})
    assert expected in refusal(result)
    assert writes(fake) == []


@pytest.mark.parametrize(
    ("change", "arguments", "expected"),
    [
        (
            _archive_register,
            {"check_account_id": REGISTER, "transaction_id": None},
            "is archived",
        ),
        (_mark_private, {}, "is marked private (Privat)"),
        (_delete_transaction, {}, "was deleted in sevDesk"),
    ],
)
async def test_accounts_and_transactions_sevdesk_does_not_book_on_are_refused(
    change: Any, arguments: dict[str, Any], expected: str
) -> None:
    fake = build_demo()
    change(fake.store)
    _, result = await approved(commit_app(fake), BOOK, **{**PAY_RE_1037, **arguments})
    assert expected in refusal(result)
    assert writes(fake) == []


def _pay_invoice(store: Store) -> None:
    invoice = store.invoices.get(OPEN_INVOICE)
    invoice.status, invoice.paidAmount = 1000, invoice.sumGross


def _pay_voucher(store: Store) -> None:
    voucher = store.vouchers.get(REVENUE)
    voucher.status, voucher.paidAmount = 1000, voucher.sumGross


@pytest.mark.parametrize(
    ("path", "change", "arguments", "expected"),
    [
        (
            f"/Invoice/{OPEN_INVOICE}/bookAmount",
            _pay_invoice,
            PAY_RE_1037,
            "sevDesk refused (code 750): the invoice or credit note is already paid",
        ),
        (
            f"/Voucher/{REVENUE}/bookAmount",
            _pay_voucher,
            {**PAY_RE_1037, "kind": "voucher", "document_id": REVENUE, "amount": "142.80"}
            | {"check_account_id": REGISTER, "transaction_id": None},
            "sevDesk refused (code 751): the receipt is already paid",
        ),
    ],
)
async def test_paid_meanwhile_is_mapped_from_sevdesks_code(
    path: str, change: Any, arguments: dict[str, Any], expected: str
) -> None:
    fake = build_demo()
    app = commit_app(fake, transport=ChangeBefore(fake, "PUT", path, change))
    _, result = await approved(app, BOOK, **arguments)
    text = refusal(result)
    assert expected in text and "Already changed" not in text
    assert writes(fake) == [f"PUT {path}"]


async def test_a_timeout_after_sending_is_an_unknown_outcome_naming_what_to_check() -> None:
    fake = build_demo()
    fake.faults.timeout_after_write_next()
    _, result = await approved(commit_app(fake), BOOK, **PAY_RE_1037)
    text = refusal(result)
    assert "no answer arrived" in text and "not retried" in text
    assert "Rechnung (invoice) RE-1037 (id 700037), its payments (Zahlungen" in text
    assert "transactions of check account 5001" in text
    assert writes(fake) == [f"PUT /Invoice/{OPEN_INVOICE}/bookAmount"]  # sent once
    assert fake.store.invoices.get(OPEN_INVOICE).status == 1000  # it was applied after all


async def test_a_transaction_shared_by_two_invoices_is_booked_partially_each_time() -> None:
    fake = build_demo()  # Q28: FULL_PAYMENT would use up the whole bank transaction
    app = commit_app(fake)
    first = {**PAY_RE_1037, "amount": "445.42"}
    _, part = await approved(app, BOOK, **first)
    assert part["structuredContent"]["result"]["payment_type"] == "N"
    rest = {**PAY_RE_1037, "document_id": 700039, "amount": "318.56"}  # RE-1039, all it owes
    message, done = await approved(app, BOOK, **rest)
    assert "Status after: paid" in message
    booked = done["structuredContent"]["result"]
    assert (booked["payment_type"], booked["document"]["status"]) == ("N", "paid")
    assert [body(fake, "PUT", f"/Invoice/{i}/bookAmount")["type"] for i in (700037, 700039)] == [
        "N",
        "N",
    ]


async def test_the_approval_question_is_asked_in_german_when_so_set() -> None:
    fake = build_demo()
    app = commit_app(fake, {"SEVDESK_LANGUAGE": "de"})
    message, result = await approved(app, BOOK, **PAY_RE_1037)
    assert message.startswith("ACHTUNG: Eine verbuchte Zahlung ist in der Buchhaltung verbindlich.")
    assert "Eine Zahlung auf Rechnung RE-1037 verbuchen." in message
    assert "Kunde: „Stadtbäckerei Vollmer GmbH“" in message
    assert "Betrag: 763,98 €, Zahlungseingang" in message
    assert "Zahlungskonto: " in message and "Status danach: bezahlt" in message
    assert "unverbucht vorher: 763,98 €, danach: 0,00 €" in message
    assert result["structuredContent"]["status"] == "done"
