"""Booking a payment on an invoice, a credit note or a receipt (``PUT …/bookAmount``,
``docs/sevdesk-api.md`` §2.4, §2.5, §2.7, §3.2, Q9, Q18, Q25-Q28).

Everything is planned before any request is sent: the document must be open (not a draft, not
paid, not cancelled); the amount (always the positive money that moved) must not exceed the
open amount; the type is ``FULL_PAYMENT`` when it settles the open amount with all of its bank
transaction (or none), else ``N`` (partial), because a full payment consumes the whole
transaction (Q28).
The amount sent carries the sign of the bank flow (Q26): an invoice and a revenue receipt (D)
bring money in (+), a credit note and an expense receipt (C) send it out (-). The date is Unix
seconds at the Berlin midnight for invoices and credit notes, and a date-time with the Berlin
offset for receipts (Q18). The booking is sent once, never retried, and read back.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.banking.payment_checks import (
    AccountCheck,
    TransactionCheck,
    check_account,
    check_transaction,
)
from sevdesk_mcp.domain.banking.payment_words import payment_preview
from sevdesk_mcp.domain.documents.kinds import KINDS
from sevdesk_mcp.domain.documents.lifecycle import (
    Target,
    TargetKind,
    VoucherWritten,
    read_back_target,
    read_target,
    send_once,
)
from sevdesk_mcp.domain.documents.search import cancelled_ids
from sevdesk_mcp.domain.documents.writes import DocumentWritten
from sevdesk_mcp.domain.lifecycle_table import Step, Why, after, refusal
from sevdesk_mcp.domain.money import MAX_AMOUNT, ZERO, Money, cents, money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress, ref
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.sevdesk import dates
from sevdesk_mcp.sevdesk.paths import api_path

FULL_PAYMENT: Final = "FULL_PAYMENT"
PARTIAL: Final = "N"
CASH_DISCOUNT: Final = "CB"
FEES: Final = "MTC"
CLOSING: Final = frozenset({CASH_DISCOUNT, FEES})
CODES: Final = {
    750: "the invoice or credit note is already paid (bezahlt); nothing was booked. Read it "
    "again to see its payments.",
    751: "the receipt is already paid (bezahlt); nothing was booked. Read it again to see its "
    "payments.",
}


class PaymentRequest(msgspec.Struct, frozen=True):
    """A payment to book: ``amount`` is the positive money that moved on the Berlin ``day``."""

    kind: TargetKind
    document_id: int
    amount: Decimal
    day: dt.date
    check_account_id: int
    transaction_id: int | None = None
    closing: str | None = None  # CB (cash discount) or MTC (fees): settles with less paid


class PaymentPlan(msgspec.Struct, frozen=True):
    """The one ``bookAmount`` request, what it means, and the status it leaves the document in."""

    target: Target
    path: str
    body: JsonObject
    amount: Decimal
    signed: Decimal
    payment_type: str
    request: PaymentRequest
    status_after: int

    def summary(self) -> str:
        """:returns: the completed write in words, for the record of progress."""
        return (
            f"booked a payment of {self.target.euros(self.amount)} on {self.target.label} "
            f"(id {self.target.id})"
        )

    def where(self) -> str:
        """:returns: what to look at in sevDesk when the outcome is unknown."""
        return (
            f"{self.target.where()}, its payments (Zahlungen: one of "
            f"{self.target.euros(self.amount)} dated {self.request.day.isoformat()} means it "
            f"was booked) and the transactions of check account {self.request.check_account_id}"
        )


class PaymentBooked(msgspec.Struct, frozen=True, kw_only=True):
    """The booked payment and the document as read back: ``document`` for an invoice or credit
    note, ``voucher`` for a receipt."""

    amount: Money
    amount_sent: Decimal
    payment_type: str
    date: dt.date
    check_account_id: int
    transaction_id: int | None
    document: DocumentWritten | None
    voucher: VoucherWritten | None


async def prepare_payment(client: SevdeskPort, request: PaymentRequest) -> Prepared[PaymentPlan]:
    """Check the payment against sevDesk and plan the one request (reads only).

    :returns: the preview and the plan.
    :raises ToolInputError: for an invalid amount, an unknown account or transaction, or a
        transaction that is missing (online account) or not allowed (offline account).
    :raises ToolError: if the document cannot take this payment, or the transaction does not
        fit it.
    :raises NotFoundError: for an unknown document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    amount = _checked(request.amount)
    target = await read_target(client, request.kind, request.document_id)
    closes = request.closing in CLOSING and amount < target.open_amount
    step = Step.PAY_PART if amount < target.open_amount and not closes else Step.PAY_REST
    await _refuse_unpayable(client, target, step)
    if amount > target.open_amount:
        raise ToolError(
            f"{target.label} has only {target.euros(target.open_amount)} open, less than "
            f"{target.euros(amount)}. Book at most the open amount."
        )
    account = await check_account(client, request.check_account_id, request.transaction_id)
    signed = amount if _incoming(target) else -amount
    transaction = None
    if request.transaction_id is not None:
        transaction = await check_transaction(client, request.transaction_id, account.id, signed)
    payment_type = request.closing if closes and request.closing else None
    payment_type = payment_type or _payment_type(amount, target, transaction)
    body = _body(target, request, account, signed, payment_type)
    plan = PaymentPlan(
        target=target,
        path=api_path(target.model, target.id, "bookAmount"),
        body=body,
        amount=amount,
        signed=signed,
        payment_type=payment_type,
        request=request,
        status_after=after(target.kind, target.status, step, target.where()),
    )
    return Prepared(payment_preview(plan, account, transaction), plan)


async def execute_payment(
    client: SevdeskPort, plan: PaymentPlan, progress: Progress
) -> PaymentBooked:
    """Send the booking once and read the document back.

    :returns: the booking and the document as sevDesk now holds it.
    :raises ToolError: for a known refusal (750, 751).
    :raises OutcomeUnknownError: if it was sent and no answer arrived (names what to check).
    :raises UpstreamError: if the write or the read-back fails.
    """
    await send_once(client, "PUT", plan.path, json=plan.body, codes=CODES, where=plan.where())
    progress.done(plan.summary())
    after = await read_back_target(client, plan.target.kind, plan.target.id, [plan.summary()])
    transaction = plan.request.transaction_id
    return PaymentBooked(
        amount=money(plan.amount, plan.target.currency),
        amount_sent=cents(plan.signed),
        payment_type=plan.payment_type,
        date=plan.request.day,
        check_account_id=plan.request.check_account_id,
        transaction_id=transaction,
        document=after.document,
        voucher=after.voucher,
    )


def _checked(amount: Decimal) -> Decimal:
    if not amount.is_finite() or not ZERO < amount < MAX_AMOUNT:
        raise ToolInputError(
            "amount must be the positive money that moved, above 0 and below 1000000000 "
            "(the sign is set from the document: you always give a positive amount)."
        )
    if amount != cents(amount):
        raise ToolInputError("amount takes at most 2 decimal places.")
    return amount


async def _refuse_unpayable(client: SevdeskPort, target: Target, step: Step) -> None:
    where = target.where()
    refused = refusal(target.kind, target.status, step, where)
    why = refused.why if refused is not None else None
    if why is Why.IS_DRAFT:
        raise ToolError(f"{where} is a draft (Entwurf); a draft cannot be paid. Finalize it first.")
    if target.kind == "invoice":
        await _refuse_reversed(client, target)
    if why is Why.PAID:
        raise ToolError(f"{where} is already paid (bezahlt); nothing is open.")
    if refused is not None or target.open_amount <= 0:
        raise ToolError(
            f"{where} is {target.status_word}, with {target.euros(target.open_amount)} open; "
            "only open or partly paid documents take payments."
        )
    if target.paid < 0:
        raise ToolError(
            f"{where} shows a negative paid amount ({target.euros(target.paid)}): an earlier "
            "booking had the wrong sign. Reset it to open (Zurücksetzen auf offen) and book "
            "again."
        )


async def _refuse_reversed(client: SevdeskPort, invoice: Target) -> None:
    where = invoice.where()
    if invoice.type == "SR":
        raise ToolError(
            f"{where} is a cancellation invoice (Stornorechnung); it takes no payments."
        )
    if invoice.id in await cancelled_ids(client, KINDS["invoice"]):
        raise ToolError(f"{where} is cancelled (storniert); it takes no payments.")


def _payment_type(amount: Decimal, target: Target, transaction: TransactionCheck | None) -> str:
    if transaction is None:
        return payment_type(amount, target.open_amount, None, None)
    return payment_type(amount, target.open_amount, transaction.amount, transaction.remaining)


def payment_type(
    amount: Decimal, open_amount: Decimal, tx_amount: Decimal | None, tx_rest: Decimal | None
) -> str:
    """:returns: ``FULL_PAYMENT`` or ``N`` for booking ``amount`` on a document with
    ``open_amount`` open, against a transaction of ``tx_amount`` with ``tx_rest`` unbooked
    (both ``None`` without a transaction).

    FULL_PAYMENT consumes the whole bank transaction (Q28): only when this payment settles the
    document and is all of the transaction, or there is none; a transaction shared with other
    documents is booked partially (N).
    """
    if amount != open_amount:
        return PARTIAL
    if tx_amount is not None and (tx_rest != abs(tx_amount) or tx_rest != amount):
        return PARTIAL
    return FULL_PAYMENT


def _incoming(target: Target) -> bool:
    # Q26: the sign of the booking is the sign of the bank transaction
    if target.kind == "voucher":
        return target.credit_debit == "D"
    return target.kind == "invoice"


def _body(
    target: Target,
    request: PaymentRequest,
    account: AccountCheck,
    signed: Decimal,
    payment_type: str,
) -> JsonObject:
    body: JsonObject = {
        "amount": f"{cents(signed):f}",
        "date": _date(target, request.day),
        "type": payment_type,
        "checkAccount": ref(account.id, "CheckAccount"),
    }
    if request.transaction_id is not None:
        body["checkAccountTransaction"] = ref(request.transaction_id, "CheckAccountTransaction")
    return body


def _date(target: Target, day: dt.date) -> int | str:
    # Q18: Unix seconds for invoices and credit notes, a date-time string for receipts (noon,
    # as measured, so that no conversion through UTC can move it to another day)
    if target.kind == "voucher":
        return dates.iso_datetime(dates.berlin_midnight(day) + dt.timedelta(hours=12))
    return dates.unix_start(day)
