"""Documents made from an invoice: the cancellation invoice (cancelInvoice) and the credit note
(CreditNote/Factory/createFromInvoice) (``docs/sevdesk-api.md`` §2.4, §2.5, Q35).

The cancellation is an SR invoice with the original's header data and negated positions:
numbered, enshrined, status 1000, ``origin`` → the original, which goes to 1000 as well (the
demo company's cancellation is built the same way). The credit note is a draft with the
invoice's contact, address, tax rule and positions, ``refSrcInvoice`` → the invoice.
"""

from __future__ import annotations

import dataclasses

from sevdesk_mcp.fake.documents import (
    PAID,
    ZERO,
    CreditNote,
    CreditNotePos,
    Invoice,
    InvoicePos,
)
from sevdesk_mcp.fake.factory import OWNER
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import berlin_midnight


def cancellation_header(number: str | None, original: str | None) -> str:
    """:returns: the header of a cancellation invoice, as sevDesk writes it in German."""
    return f"Stornorechnung Nr. {number} zur Rechnung Nr. {original}"


def cancel_invoice(store: Store, original: Invoice) -> tuple[Invoice, list[InvoicePos]]:
    """Create the SR invoice that cancels ``original`` and set both to status 1000.

    The caller checks :func:`~sevdesk_mcp.fake.lifecycle.ensure_cancellable` first.

    :returns: the cancellation invoice and its positions.
    """
    now = store.now()
    number = store.next_number(original.NUMBER_PREFIX)
    cancellation = dataclasses.replace(
        original,
        id=0,
        invoiceNumber=number,
        invoiceType="SR",
        origin=original.ref(),
        status=PAID,
        invoiceDate=berlin_midnight(store.today),
        header=cancellation_header(number, original.invoiceNumber),
        paidAmount=ZERO,
        payDate=None,
        sendDate=now,
        enshrined=now,
        customerInternalNote=None,
    )
    store.add(store.invoices, cancellation)
    positions = [
        _negated(store, pos, cancellation)
        for pos in store.invoice_positions
        if pos.invoice.id == original.id
    ]
    cancellation.set_sums(positions)
    store.save(cancellation)
    original.status = PAID
    store.save(original)
    return cancellation, positions


def _negated(store: Store, pos: InvoicePos, cancellation: Invoice) -> InvoicePos:
    copy = dataclasses.replace(pos, id=0, invoice=cancellation.ref(), quantity=-pos.quantity)
    copy.compute()
    return store.add(store.invoice_positions, copy)


def credit_note_from_invoice(
    store: Store, invoice: Invoice
) -> tuple[CreditNote, list[CreditNotePos]]:
    """Create a credit-note draft for the whole of ``invoice``, numbered from the sequence.

    The caller checks the source invoice and the credit-note total first.

    :returns: the credit note and its positions.
    """
    note = CreditNote(
        creditNoteDate=berlin_midnight(store.today),
        creditNoteNumber=store.next_number(CreditNote.NUMBER_PREFIX),
        refSrcInvoice=invoice.ref(),
        bookingCategory="UNDERACHIEVEMENT",
        header=f"Gutschrift zur Rechnung Nr. {invoice.invoiceNumber}",
        createUser=OWNER,
        sendType="0",
    )
    for name in ("contact", "contactPerson", "address", "addressCountry", "taxRule"):
        setattr(note, name, getattr(invoice, name))
    for name in ("taxText", "taxType", "currency", "showNet", "deliveryDate"):
        setattr(note, name, getattr(invoice, name))
    note.deliveryDateUntil = invoice.deliveryDateUntil
    store.add(store.credit_notes, note)
    positions = [
        _credited(store, pos, note)
        for pos in store.invoice_positions
        if pos.invoice.id == invoice.id
    ]
    note.set_sums(positions)
    store.save(note)
    return note, positions


def _credited(store: Store, pos: InvoicePos, note: CreditNote) -> CreditNotePos:
    copy = CreditNotePos(creditNote=note.ref())
    for name in ("part", "quantity", "price", "name", "unity", "positionNumber", "text"):
        setattr(copy, name, getattr(pos, name))
    copy.discount, copy.taxRate, copy.optional = pos.discount, pos.taxRate, pos.optional
    copy.compute()
    return store.add(store.credit_note_positions, copy)
