"""Bookings and their undoing on invoices, credit notes and vouchers (``docs/sevdesk-api.md``
§2.4, §2.5, §2.7, Q9, Q18, Q26-Q29).

- ``PUT /{Invoice,CreditNote,Voucher}/{id}/bookAmount`` → ``{"objects": {"objectName":
  "InvoiceLog"|"CreditNoteLog"|"VoucherLog", "fromStatus", "toStatus", "amountPayed"
  (positive, sic), "bookingDate", …}}``.
- ``PUT /{Invoice,CreditNote,Voucher}/{id}/resetToOpen`` removes every booking (Q29);
  ``…/resetToDraft`` moves an open document back to draft. Both answer
  ``{"objects": <document>}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sevdesk_mcp.fake.bookings import (
    Payable,
    book,
    bookings_of,
    ensure_transactions_not_enshrined,
    parse_booking,
    take_back,
)
from sevdesk_mcp.fake.documents import DRAFT, VOUCHER_DRAFT
from sevdesk_mcp.fake.lifecycle import (
    ensure_bookable,
    ensure_can_reset_to_draft,
    ensure_can_reset_to_open,
    open_status,
)
from sevdesk_mcp.fake.listing import object_reply
from sevdesk_mcp.fake.receipts import Voucher
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import to_wire

router = Router()

Finder = Callable[[Store, int], Payable]
FINDERS: Final[dict[str, Finder]] = {
    "Invoice": lambda store, ident: store.invoices.get(ident),
    "CreditNote": lambda store, ident: store.credit_notes.get(ident),
    "Voucher": lambda store, ident: store.vouchers.get(ident),
}


def register_payments(name: str, find: Finder) -> None:
    """Register bookAmount, resetToOpen and resetToDraft of the document kind ``name``."""

    def book_amount(ctx: Context) -> Reply:
        doc = find(ctx.store, ctx.path_id(name))
        ensure_bookable(doc)
        log = book(ctx.store, doc, parse_booking(ctx.store, doc, ctx.json()))
        return object_reply(log.wire(ctx.store.client_ref))

    def reset_to_open(ctx: Context) -> Reply:
        doc = find(ctx.store, ctx.path_id(name))
        ensure_can_reset_to_open(ctx.store, doc)
        ensure_transactions_not_enshrined(ctx.store, doc)
        if bookings_of(ctx.store, doc) or doc.paidAmount or doc.status != open_status(doc):
            take_back(ctx.store, doc)
        return object_reply(to_wire(doc, ctx.store.client_ref))

    def reset_to_draft(ctx: Context) -> Reply:
        doc = find(ctx.store, ctx.path_id(name))
        ensure_can_reset_to_draft(doc)
        doc.status = VOUCHER_DRAFT if isinstance(doc, Voucher) else DRAFT
        ctx.store.save(doc)
        return object_reply(to_wire(doc, ctx.store.client_ref))

    router.route("PUT", f"/{name}/{{id}}/bookAmount")(book_amount)
    router.route("PUT", f"/{name}/{{id}}/resetToOpen")(reset_to_open)
    router.route("PUT", f"/{name}/{{id}}/resetToDraft")(reset_to_draft)


for _name, _find in FINDERS.items():
    register_payments(_name, _find)
