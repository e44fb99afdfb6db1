"""The state machines of invoices, credit notes, orders and vouchers (``docs/sevdesk-api.md``
§3.1, Q22, Q25, Q29, Q35): which transitions are allowed and the error each refusal gives.

Every check runs before anything changes, so a refused request is never "applied". The codes
are those of §5.7; where only the code is recorded, the HTTP status is our choice (422 for a
state or business rule, 400 for a malformed request; listed in ``spec/DEVIATIONS.md``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.documents import (
    DRAFT,
    OPEN,
    PAID,
    PARTIALLY_PAID,
    VOUCHER_DRAFT,
    ZERO,
    CreditNote,
    DocBase,
    Invoice,
)
from sevdesk_mcp.fake.receipts import Voucher
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import CODE_NOT_DELETABLE, FakeError, error_in_http_200

CODE_CREDIT_NOTE_EXISTS: Final = 170
CODE_PARTLY_PAID: Final = 390
CODE_ALREADY_CANCELLED: Final = 421
CODE_CREDIT_NOTES_EXCEED: Final = 455
CODE_TAX_RATE_DIFFERS: Final = 456
CODE_INVOICE_PAID: Final = 750
CODE_VOUCHER_PAID: Final = 751
CODE_NEGATIVE_SUM: Final = 7100

Document = DocBase | Voucher


def is_enshrined(doc: Document) -> bool:
    """:returns: whether ``doc`` carries ``enshrined`` (orders never do)."""
    return getattr(doc, "enshrined", None) is not None


def is_draft(doc: Document) -> bool:
    """:returns: whether ``doc`` is a draft (100; a voucher 50)."""
    return doc.status == (VOUCHER_DRAFT if isinstance(doc, Voucher) else DRAFT)


def ensure_not_enshrined(doc: Document) -> None:
    """:raises FakeError: 422 when ``doc`` is enshrined: it can never change (TECH 2024_05_24)."""
    if is_enshrined(doc):
        raise FakeError(
            422, f"{doc.OBJECT_NAME} {doc.id} is enshrined and can not be changed anymore"
        )


def ensure_editable(doc: DocBase) -> None:
    """Check that a Factory save may update ``doc``.

    :raises FakeError: 422 when enshrined; 409 code 159 when it is no draft (Q25).
    """
    ensure_not_enshrined(doc)
    if not is_draft(doc):
        raise FakeError(
            409,
            f"{doc.OBJECT_NAME} {doc.id} is not a draft. Use resetToDraft first.",
            code=CODE_NOT_DELETABLE,
        )


def ensure_deletable(doc: DocBase) -> None:
    """:raises FakeError: 409 code 159 unless ``doc`` is a draft that is not enshrined (Q25)."""
    if is_enshrined(doc) or not is_draft(doc):
        raise FakeError(
            409, f"{doc.OBJECT_NAME} {doc.id} can not be deleted", code=CODE_NOT_DELETABLE
        )


def ensure_enshrinable(doc: DocBase) -> None:
    """Check PUT …/enshrine: only documents from status 200 on (spec), never a negative sum.

    :raises FakeError: 422 for a draft; 422 code 7100 for a negative ``sumGross``.
    """
    if is_draft(doc):
        raise FakeError(
            422, f"{doc.OBJECT_NAME} {doc.id} is a draft. Only open documents can be enshrined."
        )
    ensure_not_negative(doc)


def ensure_not_negative(doc: DocBase) -> None:
    """:raises FakeError: 422 code 7100 when enshrining ``doc`` would give a negative sum."""
    if doc.sumGross < ZERO:
        raise FakeError(422, "Enshrining would result in a negative sum", code=CODE_NEGATIVE_SUM)


def credit_notes_of(store: Store, invoice: Invoice) -> list[CreditNote]:
    """:returns: the credit notes whose ``refSrcInvoice`` is ``invoice``."""
    return [
        n
        for n in store.credit_notes
        if n.refSrcInvoice is not None and n.refSrcInvoice.id == invoice.id
    ]


def ensure_no_credit_note(store: Store, invoice: Invoice) -> None:
    """:raises FakeError: 422 code 170 when a credit note refers to ``invoice`` (Q29)."""
    if credit_notes_of(store, invoice):
        raise FakeError(
            422,
            f"There is a credit note for invoice {invoice.id}",
            code=CODE_CREDIT_NOTE_EXISTS,
        )


def ensure_credit_within(store: Store, invoice: Invoice, note_id: int, gross: Decimal) -> None:
    """Check that the credit notes of ``invoice``, with ``gross`` for note ``note_id``, do not
    exceed the invoice (Q35).

    :raises FakeError: 422 code 455.
    """
    others = sum((n.sumGross for n in credit_notes_of(store, invoice) if n.id != note_id), ZERO)
    if others + gross > invoice.sumGross:
        raise FakeError(
            422,
            "The sum of all credit notes exceeds the sum of the invoice",
            code=CODE_CREDIT_NOTES_EXCEED,
        )


def ensure_source_invoice(invoice: Invoice) -> None:
    """Check that ``invoice`` may be the source of a credit note.

    :raises FakeError: 422 for a draft, a cancellation (SR) or an advance/partial invoice.
    """
    if is_draft(invoice):
        raise FakeError(422, f"Invoice {invoice.id} is a draft; credit notes need a sent invoice")
    if invoice.invoiceType in ("SR", "AR", "TR"):
        raise FakeError(
            422, f"A credit note can not be created for an invoice of type {invoice.invoiceType}"
        )


def cancellations_of(store: Store, invoice: Invoice) -> list[Invoice]:
    """:returns: the SR invoices whose ``origin`` is ``invoice``."""
    return [
        i
        for i in store.invoices
        if i.invoiceType == "SR" and i.origin is not None and i.origin.id == invoice.id
    ]


def ensure_cancellable(store: Store, invoice: Invoice) -> None:
    """Check POST /Invoice/{id}/cancelInvoice (§2.4).

    :raises FakeError: 422 for a draft or a cancellation invoice (SR); 422 code 421 when already
        cancelled; 422 code 170 when a credit note refers to it; code 390 inside **HTTP 200**
        when it is paid in part or in full.
    """
    if is_draft(invoice):
        raise FakeError(422, f"Invoice {invoice.id} is a draft. Delete it instead.")
    ensure_not_cancelled(store, invoice)
    ensure_no_credit_note(store, invoice)
    if invoice.status == PARTIALLY_PAID or invoice.paidAmount > ZERO:
        raise error_in_http_200(
            "The invoice is partially paid and can not be cancelled. Use resetToOpen first.",
            CODE_PARTLY_PAID,
        )


def ensure_bookable(doc: Document) -> None:
    """Check that bookAmount may book on ``doc``.

    :raises FakeError: 422 for a draft; 422 code 750 for a paid invoice or credit note, code
        751 for a paid voucher.
    """
    if is_draft(doc):
        raise FakeError(422, f"{doc.OBJECT_NAME} {doc.id} is a draft and can not be booked")
    if doc.status == PAID:
        code = CODE_VOUCHER_PAID if isinstance(doc, Voucher) else CODE_INVOICE_PAID
        raise FakeError(422, f"{doc.OBJECT_NAME} {doc.id} is already paid", code=code)


def open_status(doc: Document) -> int:
    """:returns: the "open" status of ``doc``: 200, a voucher 100."""
    return DRAFT if isinstance(doc, Voucher) else OPEN


def ensure_can_reset_to_open(store: Store, doc: Document) -> None:
    """Check PUT …/resetToOpen (Q29): not for drafts, not for an enshrined voucher, not for a
    cancelled invoice or one with a credit note.

    :raises FakeError: 422; 422 code 421 for a cancelled invoice; 422 code 170 for an invoice
        with a credit note.
    """
    if is_draft(doc):
        raise FakeError(422, f"{doc.OBJECT_NAME} {doc.id} is a draft. Use sendBy instead.")
    if isinstance(doc, Voucher):
        ensure_not_enshrined(doc)
    if isinstance(doc, Invoice):
        ensure_not_cancelled(store, doc)
        ensure_no_credit_note(store, doc)


def ensure_not_cancelled(store: Store, invoice: Invoice) -> None:
    """:raises FakeError: 422 for a cancellation invoice; 422 code 421 for a cancelled one."""
    if invoice.invoiceType == "SR":
        raise FakeError(422, "A cancellation invoice can not be changed")
    if cancellations_of(store, invoice):
        raise FakeError(
            422, f"Invoice {invoice.id} is already cancelled", code=CODE_ALREADY_CANCELLED
        )


def ensure_can_reset_to_draft(doc: Document) -> None:
    """Check PUT …/resetToDraft: only from "open" (200, a voucher 100) and never enshrined.

    :raises FakeError: 422.
    """
    ensure_not_enshrined(doc)
    if doc.status != open_status(doc):
        raise FakeError(
            422,
            f"{doc.OBJECT_NAME} {doc.id} has status {doc.status}. Only open documents can be "
            "reset to draft; use resetToOpen first.",
        )
