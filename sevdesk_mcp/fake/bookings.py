"""PUT …/bookAmount and its undoing (``docs/sevdesk-api.md`` §2.4, §2.7, Q9, Q18, Q26-Q29).

- ``amount`` carries the sign of the bank flow (Q26): positive for an invoice and a revenue
  voucher (D), negative for a credit note and an expense voucher (C). ``paidAmount`` grows by
  ``amount`` times that expected sign, so a wrong sign books without error but leaves the
  document partly paid (750) with a negative ``paidAmount``. Over-booking is capped at
  ``sumGross`` (§2.7).
- ``date``: Unix seconds for invoices and credit notes, a date-time string for vouchers (Q18).
- An online account needs ``checkAccountTransaction`` (Q27); on offline accounts and cash
  registers the fake creates the booked transaction itself.
- Every booking sets the transaction to 400 and writes a CheckAccountTransactionLog entry
  (``amountPaid`` with the sent sign) and a document log (positive ``amountPayed``, Q9).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.coerce import parse_datetime, parse_decimal, parse_flag, parse_ref
from sevdesk_mcp.fake.documents import PAID, PARTIALLY_PAID, ZERO, CreditNote, Invoice
from sevdesk_mcp.fake.lifecycle import open_status
from sevdesk_mcp.fake.models import (
    CheckAccount,
    CheckAccountTransaction,
    CheckAccountTransactionLog,
)
from sevdesk_mcp.fake.receipts import Voucher
from sevdesk_mcp.fake.records import DocumentLog
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError

OPEN_TRANSACTION: Final = 100
BOOKED_TRANSACTION: Final = 400
PRIVATE_TRANSACTION: Final = 300
BOOKING_TYPES: Final = frozenset({"FULL_PAYMENT", "N", "CB", "CF", "O", "OF", "MTC"})
CLOSING_TYPES: Final = frozenset({"CB", "CF", "O", "OF", "MTC"})
REQUIRED: Final = ("amount", "date", "type", "checkAccount")

Payable = Invoice | CreditNote | Voucher


@dataclass(frozen=True, slots=True)
class Booking:
    """A checked bookAmount request."""

    amount: Decimal
    date: datetime
    type: str
    account: CheckAccount
    transaction: CheckAccountTransaction | None


def expected_sign(doc: Payable) -> int:
    """:returns: the sign a correct booking on ``doc`` has (Q26)."""
    if isinstance(doc, CreditNote):
        return -1
    if isinstance(doc, Voucher):
        return -1 if doc.creditDebit == "C" else 1
    return 1


def _booking_date(doc: Payable, value: object) -> datetime:
    if isinstance(doc, Voucher):
        if not isinstance(value, str):
            raise FakeError(400, "date must be a date-time string for a voucher booking")
        return parse_datetime(value, "date")
    if isinstance(value, bool) or not (
        isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit())
    ):
        raise FakeError(400, "date must be a Unix timestamp (integer)")
    return parse_datetime(int(value), "date")


def _booking_type(store: Store, value: object) -> str:
    if value not in BOOKING_TYPES:
        raise FakeError(400, "type must be one of FULL_PAYMENT, N, CB, CF, O, OF, MTC")
    if value == "CF" and store.version == "2.0":
        raise FakeError(422, "Currency fluctuation (CF) is no longer supported")
    return str(value)


def _transaction(
    store: Store, account: CheckAccount, body: Mapping[str, object], kind: str
) -> CheckAccountTransaction | None:
    raw = body.get("checkAccountTransaction")
    if raw is None:
        if account.type == "online":
            raise FakeError(
                400, "checkAccountTransaction is required when booking on an online account"
            )
        return None
    transaction = store.transactions.get(parse_ref(raw, "checkAccountTransaction").id)
    if transaction.checkAccount.id != account.id or transaction.deletedAt is not None:
        raise FakeError(422, "The transaction does not belong to the check account")
    if transaction.status == PRIVATE_TRANSACTION:
        raise FakeError(422, f"Transaction {transaction.id} is private")
    if transaction.enshrined is not None:  # festgeschrieben: it takes no booking (Q25)
        raise FakeError(422, f"Transaction {transaction.id} is enshrined")
    if transaction.status == BOOKED_TRANSACTION and kind == "FULL_PAYMENT":
        raise FakeError(422, f"Transaction {transaction.id} is already booked")
    return transaction


def parse_booking(store: Store, doc: Payable, body: Mapping[str, object]) -> Booking:
    """:returns: the checked booking request.

    :raises FakeError: 400 for a missing or malformed field; 404 code 151 for an unknown
        account or transaction; 422 for CF on 2.0, a zero amount, a foreign, private, booked or
        enshrined transaction.
    """
    for name in REQUIRED:
        if body.get(name) in (None, ""):
            raise FakeError(400, f"The field '{name}' is required")
    amount = parse_decimal(body["amount"], "amount")
    if amount == ZERO:
        raise FakeError(422, "amount must not be 0")
    when = _booking_date(doc, body["date"])
    kind = _booking_type(store, body["type"])
    account = store.check_accounts.get(parse_ref(body["checkAccount"], "checkAccount").id)
    if "createFeed" in body:
        parse_flag(body["createFeed"], "createFeed")
    return Booking(amount, when, kind, account, _transaction(store, account, body, kind))


def _new_transaction(store: Store, doc: Payable, booking: Booking) -> CheckAccountTransaction:
    purpose = doc.description if isinstance(doc, Voucher) else doc.number
    transaction = CheckAccountTransaction(
        valueDate=booking.date,
        entryDate=booking.date,
        amount=booking.amount,
        paymtPurpose=purpose,
        checkAccount=booking.account.ref(),
    )
    return store.add(store.transactions, transaction)


def book(store: Store, doc: Payable, booking: Booking) -> DocumentLog:
    """Apply a checked booking to ``doc``, its transaction and both logs.

    :returns: the document log entry bookAmount answers.
    """
    transaction = booking.transaction or _new_transaction(store, doc, booking)
    store.add(
        store.transaction_logs,
        CheckAccountTransactionLog(
            checkAccountTransaction=transaction.ref(),
            fromStatus=transaction.status,
            amountPaid=booking.amount,
            bookingDate=booking.date,
            object=doc.ref(),
        ),
    )
    transaction.status = BOOKED_TRANSACTION
    store.save(transaction)
    before = doc.status
    doc.paidAmount = min(doc.paidAmount + booking.amount * expected_sign(doc), doc.sumGross)
    settled = booking.type in CLOSING_TYPES or doc.paidAmount >= doc.sumGross
    doc.status = PAID if settled else PARTIALLY_PAID
    doc.payDate = booking.date
    store.save(doc)
    log = DocumentLog(
        document=doc.ref(),
        fromStatus=before,
        toStatus=doc.status,
        amountPayed=booking.amount,
        bookingDate=booking.date,
        transaction=transaction.ref(),
    )
    return store.add(store.document_logs, log)


def bookings_of(store: Store, doc: Payable) -> list[CheckAccountTransactionLog]:
    """:returns: the transaction-log entries that book on ``doc``."""
    ref = doc.ref()
    return [entry for entry in store.transaction_logs if entry.object == ref]


def ensure_transactions_not_enshrined(store: Store, doc: Payable) -> None:
    """:raises FakeError: 422 when a transaction booked on ``doc`` is enshrined (spec)."""
    for entry in bookings_of(store, doc):
        if store.transactions.get(entry.checkAccountTransaction.id).enshrined is not None:
            raise FakeError(422, "A transaction booked on this document is enshrined")


def take_back(store: Store, doc: Payable) -> None:
    """Remove every booking of ``doc`` (Q29): log entries go, transactions without another
    booking return to 100, ``paidAmount`` is 0 and the status "open" again.
    """
    for entry in bookings_of(store, doc):
        store.remove(store.transaction_logs, entry)
        transaction = store.transactions.get(entry.checkAccountTransaction.id)
        if not any(e.checkAccountTransaction == transaction.ref() for e in store.transaction_logs):
            transaction.status = OPEN_TRANSACTION
            store.save(transaction)
    for log in [entry for entry in store.document_logs if entry.document == doc.ref()]:
        store.remove(store.document_logs, log)
    doc.paidAmount, doc.payDate = ZERO, None
    doc.status = open_status(doc)
    store.save(doc)
