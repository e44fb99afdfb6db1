"""Toolset ``documents``, tier ``commit``: book a payment, cancel an invoice (Storno), draft a
credit note from an invoice, reset a document to open or to draft (ADR 0003 write flow).

Every tool runs on :func:`~sevdesk_mcp.tools.write_flow.define_write_tool`, so a human approves
the preview before anything is sent. The logic is in :mod:`sevdesk_mcp.domain.banking.payments`,
:mod:`sevdesk_mcp.domain.documents.reversals` and :mod:`sevdesk_mcp.domain.documents.resets`.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.banking import payments
from sevdesk_mcp.domain.banking.payments import PaymentBooked, PaymentPlan
from sevdesk_mcp.domain.documents import resets, reversals
from sevdesk_mcp.domain.documents.lifecycle import TargetKind, Written
from sevdesk_mcp.domain.documents.resets import ResetPlan, ResetTo
from sevdesk_mcp.domain.documents.reversals import Cancelled, InvoicePlan
from sevdesk_mcp.domain.documents.writes import DocumentWritten
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.vocabulary import BINDING_ANNOTATIONS, DocumentId, DryRun, SevdeskId
from sevdesk_mcp.tools.write_flow import define_write_tool, plan_only

Kind = Annotated[TargetKind, msgspec.Meta(description="voucher: a receipt (Beleg)")]
InvoiceId = SevdeskId


class BookPaymentInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_book_payment``."""

    kind: Kind
    document_id: DocumentId
    amount: Annotated[
        Decimal,
        msgspec.Meta(description="Positive; the sign follows the document"),
    ]
    date: Annotated[dt.date, msgspec.Meta(description="Payment date (Berlin)")]
    check_account_id: Annotated[
        SevdeskId, msgspec.Meta(description="Bank account or cash register id")
    ]
    transaction_id: (
        Annotated[
            SevdeskId,
            msgspec.Meta(
                description="Only on online accounts, where it is needed",
            ),
        ]
        | None
    ) = None
    dryRun: DryRun = False


class CancelInvoiceInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_cancel_invoice``."""

    invoice_id: InvoiceId
    dryRun: DryRun = False


class CreditNoteInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_credit_note_from_invoice``."""

    invoice_id: InvoiceId
    dryRun: DryRun = False


class ResetInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_reset_document``."""

    kind: Kind
    document_id: DocumentId
    to: ResetTo
    dryRun: DryRun = False


async def _prepare_payment(args: BookPaymentInput, client: SevdeskPort) -> Prepared[PaymentPlan]:
    request = payments.PaymentRequest(
        kind=args.kind,
        document_id=args.document_id,
        amount=args.amount,
        day=args.date,
        check_account_id=args.check_account_id,
        transaction_id=args.transaction_id,
    )
    return await payments.prepare_payment(client, request)


async def _prepare_cancel(args: CancelInvoiceInput, client: SevdeskPort) -> Prepared[InvoicePlan]:
    return await reversals.prepare_cancel(client, args.invoice_id)


async def _prepare_credit_note(args: CreditNoteInput, client: SevdeskPort) -> Prepared[InvoicePlan]:
    return await reversals.prepare_credit_note(client, args.invoice_id)


async def _prepare_reset(args: ResetInput, client: SevdeskPort) -> Prepared[ResetPlan]:
    return await resets.prepare_reset(client, args.kind, args.document_id, args.to)


def _payment_locks(args: BookPaymentInput) -> tuple[str, ...]:
    transaction = (f"transaction/{args.transaction_id}",) if args.transaction_id else ()
    return (f"{args.kind}/{args.document_id}", *transaction)


BOOK_PAYMENT = define_write_tool(
    name="sevdesk_book_payment",
    title="Book a payment (Zahlung verbuchen)",
    description=(
        "Books one payment on one open invoice, credit note or receipt, also on cash registers "
        "and offline accounts. One transaction on several documents: sevdesk_book_match. Taken "
        "back only by sevdesk_reset_document to=open."
    ),
    toolset="documents",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=BookPaymentInput,
    output=PaymentBooked,
    prepare=_prepare_payment,
    execute=plan_only(payments.execute_payment),
    locks=_payment_locks,
)

CANCEL_INVOICE = define_write_tool(
    name="sevdesk_cancel_invoice",
    title="Cancel an invoice (Stornieren)",
    description=(
        "Cancels (Storno) a finalized invoice: sevDesk creates an enshrined cancellation invoice; "
        "irreversible. Refuses drafts (delete them), invoices with payments (reset to open first) "
        "or with a credit note; a credit note itself cannot be cancelled."
    ),
    toolset="documents",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=CancelInvoiceInput,
    output=Cancelled,
    prepare=_prepare_cancel,
    execute=plan_only(reversals.execute_cancel),
    locks=lambda a: (f"invoice/{a.invoice_id}", "numbers/invoice"),
)

CREDIT_NOTE_FROM_INVOICE = define_write_tool(
    name="sevdesk_credit_note_from_invoice",
    title="Credit note from an invoice (Gutschrift)",
    description=(
        "Drafts a credit note over a whole finalized invoice; while it exists the invoice can be "
        "neither reset to open nor cancelled. A partial one: sevdesk_create_document_draft with "
        "source_invoice_id."
    ),
    toolset="documents",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=CreditNoteInput,
    output=DocumentWritten,
    prepare=_prepare_credit_note,
    execute=plan_only(reversals.execute_credit_note),
    locks=lambda a: (f"invoice/{a.invoice_id}", "numbers/credit_note"),
)

RESET_DOCUMENT = define_write_tool(
    name="sevdesk_reset_document",
    title="Reset a document to open or draft",
    description=(
        "Resets a document: to=open removes ALL its payment bookings (from a transaction: "
        "sevdesk_undo_booking); to=draft makes an unpaid document editable again, refused once "
        "enshrined (as finalizing does)."
    ),
    toolset="documents",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=ResetInput,
    output=Written,
    prepare=_prepare_reset,
    execute=plan_only(resets.execute_reset),
    locks=lambda a: (f"{a.kind}/{a.document_id}",),
)

TOOLS = (BOOK_PAYMENT, CANCEL_INVOICE, CREDIT_NOTE_FROM_INVOICE, RESET_DOCUMENT)
