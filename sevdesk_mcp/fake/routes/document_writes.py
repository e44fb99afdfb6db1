"""Writes on invoices, credit notes and orders (``docs/sevdesk-api.md`` §2.4-2.6): the Factory
saves, DELETE, enshrine and sendViaEmail. The rules live in :mod:`sevdesk_mcp.fake.lifecycle`,
:mod:`sevdesk_mcp.fake.factory`, :mod:`sevdesk_mcp.fake.factory_rules` and
:mod:`sevdesk_mcp.fake.sending`.

- ``POST /{Kind}/Factory/save{Kind}`` → **201** ``{"objects": {"invoice": …, "invoicePos":
  […], "vatdrop": "not relevant"}}`` (credit note: ``creditNote``/``creditNotePos``; order:
  ``order``/``orderPos``); an invoice saved with ``propertyIsEInvoice`` and no
  ``paymentMethod`` → 400 code 830.
- ``DELETE /{Kind}/{id}`` → ``{"objects": [null]}`` for a draft, else 409 code 159 (Q7, Q25).
- ``PUT /{Invoice,CreditNote}/{id}/enshrine`` → ``{"objects": null}``; orders have no such
  endpoint in the spec and answer 404.
- ``POST /{Kind}/{id}/sendViaEmail`` → **201** ``{"objects": <Email>}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from sevdesk_mcp.fake.documents import (
    CreditNote,
    CreditNotePos,
    DocBase,
    Invoice,
    InvoicePos,
    Order,
    OrderPos,
    PosBase,
)
from sevdesk_mcp.fake.factory import FactoryKind, commit, prepare
from sevdesk_mcp.fake.factory_rules import (
    CODE_E_INVOICE_MISSING,
    check_credit_note,
    check_invoice,
    check_order_type,
    check_tax,
)
from sevdesk_mcp.fake.factory_wire import factory_payload
from sevdesk_mcp.fake.lifecycle import ensure_deletable, ensure_enshrinable, is_enshrined
from sevdesk_mcp.fake.listing import deleted_reply, object_reply
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.sending import parse_email, send_via_email
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import EPOCH, FakeError
from sevdesk_mcp.jsontypes import JsonObject

router = Router()

Rules = Callable[[Store, Any, Sequence[PosBase], Mapping[str, object]], None]


def _invoice_rules(
    store: Store, doc: Invoice, positions: Sequence[PosBase], top: Mapping[str, object]
) -> None:
    check_invoice(doc)
    check_tax(store, doc, positions)
    _check_e_invoice(doc)


def _check_e_invoice(invoice: Invoice) -> None:
    """An invoice saved as e-invoice (``propertyIsEInvoice``, set on create or on a draft's
    update; the spec lists the data it needs) must have a payment method, as credit notes
    must (Q35).

    :raises FakeError: 400 code 830 with ``data["missing information"]``.
    """
    if invoice.propertyIsEInvoice and invoice.paymentMethod is None:
        raise FakeError(
            400,
            "Missing information for the e-invoice",
            code=CODE_E_INVOICE_MISSING,
            data={"missing information": ["document_paymentMethod"]},
        )


def _credit_note_rules(
    store: Store, doc: CreditNote, positions: Sequence[PosBase], top: Mapping[str, object]
) -> None:
    check_tax(store, doc, positions)
    check_credit_note(store, doc, positions, top)


def _order_rules(
    store: Store, doc: Order, positions: Sequence[PosBase], top: Mapping[str, object]
) -> None:
    check_order_type(doc.orderType)
    check_tax(store, doc, positions)


INVOICE: Final = FactoryKind[Invoice, InvoicePos](
    name="Invoice",
    key="invoice",
    date_field="invoiceDate",
    docs=lambda store: store.invoices,
    positions=lambda store: store.invoice_positions,
    new_doc=lambda: Invoice(invoiceDate=EPOCH, sendType="0"),  # Q10: unsent drafts carry "0"
    new_pos=lambda ref: InvoicePos(invoice=ref),
)
CREDIT_NOTE: Final = FactoryKind[CreditNote, CreditNotePos](
    name="CreditNote",
    key="creditNote",
    date_field="creditNoteDate",
    docs=lambda store: store.credit_notes,
    positions=lambda store: store.credit_note_positions,
    new_doc=lambda: CreditNote(creditNoteDate=EPOCH, bookingCategory=None),
    new_pos=lambda ref: CreditNotePos(creditNote=ref),
)
ORDER: Final = FactoryKind[Order, OrderPos](
    name="Order",
    key="order",
    date_field="orderDate",
    docs=lambda store: store.orders,
    positions=lambda store: store.order_positions,
    new_doc=lambda: Order(orderDate=EPOCH),
    new_pos=lambda ref: OrderPos(order=ref),
)


def register_writes(
    kind: FactoryKind[Any, Any], rules: Rules, extra: JsonObject | None = None
) -> None:
    """Register save, DELETE and sendViaEmail of ``kind`` (and enshrine for all but orders)."""

    def save(ctx: Context) -> Reply:
        draft, top = prepare(ctx.store, kind, ctx.json())
        rules(ctx.store, draft.doc, draft.positions, top)
        positions = commit(ctx.store, kind, draft)
        client = ctx.store.client_ref
        return object_reply(factory_payload(kind.key, draft.doc, positions, client, extra), 201)

    def delete(ctx: Context) -> Reply:
        doc = kind.docs(ctx.store).get(ctx.path_id(kind.name))
        ensure_deletable(doc)
        for pos in ctx.store.positions_of(doc):
            ctx.store.remove(kind.positions(ctx.store), pos)
        ctx.store.remove(kind.docs(ctx.store), doc)
        return deleted_reply()

    def enshrine(ctx: Context) -> Reply:
        doc: DocBase = kind.docs(ctx.store).get(ctx.path_id(kind.name))
        if not is_enshrined(doc):
            ensure_enshrinable(doc)
            doc.mark_enshrined(ctx.store.now())
            ctx.store.save(doc)
        return object_reply(None)

    def email(ctx: Context) -> Reply:
        doc = kind.docs(ctx.store).get(ctx.path_id(kind.name))
        sent = send_via_email(ctx.store, doc, parse_email(ctx.store, doc, ctx.json()))
        return object_reply(sent.wire(ctx.store.client_ref), 201)

    router.route("POST", f"/{kind.name}/Factory/save{kind.name}")(save)
    router.route("DELETE", f"/{kind.name}/{{id}}")(delete)
    router.route("POST", f"/{kind.name}/{{id}}/sendViaEmail")(email)
    if kind.name != "Order":
        router.route("PUT", f"/{kind.name}/{{id}}/enshrine")(enshrine)


register_writes(INVOICE, _invoice_rules, {"vatdrop": "not relevant"})
register_writes(CREDIT_NOTE, _credit_note_rules)
register_writes(ORDER, _order_rules)
