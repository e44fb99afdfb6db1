"""Documents made from another document by the Invoice Factory: the payment reminder
(``createInvoiceReminder``) and the invoice from an order (``createInvoiceFromOrder``)
(``docs/sevdesk-api.md`` §2.4, §3.2; ``spec/DEVIATIONS.md``).

The reminder is an invoice of type ``MA``: a draft without number (Q22), ``origin`` → the
invoice, ``dunningLevel`` one above the invoice's (which moves with it), ``reminderDebit`` the
open amount, ``reminderCharge`` 0 (the endpoint takes no fee), ``reminderDeadline`` today + 7
days. It has no positions and no sums of its own: it asks for the invoice's money, it earns
none. The invoice from an order is a draft (``RE``) with the order's contact, address, tax rule,
texts and its non-optional positions, ``origin`` → the order, which goes to 1000 (invoiced).
Which refusals sevDesk gives and when it moves the order are UNVERIFIED (no recording).
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Final

from sevdesk_mcp.fake.documents import (
    DRAFT,
    OPEN,
    PAID,
    PARTIALLY_PAID,
    ZERO,
    Invoice,
    InvoicePos,
    Order,
    OrderPos,
)
from sevdesk_mcp.fake.factory import OWNER
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, berlin_midnight

REMINDER_DAYS: Final = 7
DUNNABLE_TYPES: Final = frozenset({"RE", "AR", "TR", "ER"})
ORDER_REJECTED: Final = 300
_COPIED: Final = (
    "contact",
    "contactPerson",
    "address",
    "addressCountry",
    "taxRule",
    "taxText",
    "taxType",
    "currency",
    "showNet",
)


def reminder_header(level: int, number: str | None) -> str:
    """:returns: the header of a reminder: ``Zahlungserinnerung`` first, then ``1. Mahnung``…"""
    title = "Zahlungserinnerung" if level <= 1 else f"{level - 1}. Mahnung"
    return f"{title} zur Rechnung Nr. {number}"


def create_reminder(store: Store, invoice: Invoice) -> Invoice:
    """Create the reminder (``MA``) draft for ``invoice`` and raise its dunning level.

    :returns: the reminder.
    :raises FakeError: 400 for an invoice that is no open or partly paid invoice.
    """
    if invoice.invoiceType not in DUNNABLE_TYPES:
        raise FakeError(400, f"An invoice of type {invoice.invoiceType} cannot be dunned")
    if invoice.status not in (OPEN, PARTIALLY_PAID):
        raise FakeError(400, "Only open invoices can be dunned")
    level = (invoice.dunningLevel or 0) + 1
    debit = invoice.sumGross - invoice.paidAmount
    reminder = Invoice(
        invoiceDate=berlin_midnight(store.today),
        invoiceType="MA",
        origin=invoice.ref(),
        header=reminder_header(level, invoice.invoiceNumber),
        dunningLevel=level,
        reminderDebit=debit,
        reminderCharge=ZERO,
        reminderTotal=debit,
        reminderDeadline=berlin_midnight(store.today + timedelta(days=REMINDER_DAYS)),
        timeToPay=REMINDER_DAYS,
        paymentMethod=invoice.paymentMethod,
        createUser=OWNER,
        sendType="0",
    )
    for name in (*_COPIED, "addressName", "addressStreet", "addressZip", "addressCity"):
        setattr(reminder, name, getattr(invoice, name))
    store.add(store.invoices, reminder)
    invoice.dunningLevel = level
    store.save(invoice)
    return reminder


def ensure_invoiceable(order: Order, partial_type: str) -> None:
    """:raises FakeError: 400 for a delivery note, a rejected or fully invoiced order, or a
    partial invoice (``TR``/``AR``), which the fake does not model."""
    if order.orderType == "LI":
        raise FakeError(400, "A delivery note cannot be invoiced")
    if order.status == ORDER_REJECTED:
        raise FakeError(400, "A rejected order cannot be invoiced")
    if order.status == PAID:
        raise FakeError(400, "The order has already been invoiced")
    if partial_type != "RE":
        raise FakeError(400, f"partialType {partial_type} is not modelled by the fake")


def invoice_from_order(store: Store, order: Order) -> tuple[Invoice, list[InvoicePos]]:
    """Create the invoice draft for the whole of ``order``; the order goes to 1000.

    The caller checks :func:`ensure_invoiceable` first.

    :returns: the invoice and its positions.
    """
    invoice = Invoice(
        invoiceDate=berlin_midnight(store.today),
        origin=order.ref(),
        header=f"Rechnung zu Angebot Nr. {order.orderNumber}",
        headText=order.headText,
        footText=order.footText,
        createUser=OWNER,
        sendType="0",
        status=DRAFT,
    )
    for name in _COPIED:
        setattr(invoice, name, getattr(order, name))
    store.add(store.invoices, invoice)
    positions = [
        _invoiced(store, pos, invoice)
        for pos in store.order_positions
        if pos.order.id == order.id and not pos.optional
    ]
    invoice.set_sums(positions)
    store.save(invoice)
    order.status = PAID
    store.save(order)
    return invoice, positions


def _invoiced(store: Store, pos: OrderPos, invoice: Invoice) -> InvoicePos:
    copy = InvoicePos(invoice=invoice.ref())
    for field in dataclasses.fields(OrderPos):
        if field.name in ("part", "quantity", "price", "name", "unity", "text", "discount"):
            setattr(copy, field.name, getattr(pos, field.name))
    copy.positionNumber, copy.taxRate = pos.positionNumber, pos.taxRate
    copy.compute()
    return store.add(store.invoice_positions, copy)
