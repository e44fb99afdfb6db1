"""Invoices (``docs/sevdesk-api.md`` §2.4): the shared document endpoints, the ``invoiceType``
and ``updateAfter`` (Unix seconds) filters, and the removed ``changeStatus`` (404, TECH
2024_04_04).

The list leaves recurring invoices (``WKR``) out unless ``showWkr=all`` (the spec's filter
table; UNVERIFIED, ``spec/DEVIATIONS.md``). ``POST /Invoice/Factory/createInvoiceReminder``
(query ``invoice[id]``, ``invoice[objectName]``) and ``POST
/Invoice/Factory/createInvoiceFromOrder`` (``{order, type, amount, partialType}``) answer 200
``{"objects": <Invoice>}`` (:mod:`sevdesk_mcp.fake.factory_followups`).
"""

from __future__ import annotations

from sevdesk_mcp.fake.coerce import parse_ref, parse_text
from sevdesk_mcp.fake.documents import Invoice, InvoicePos
from sevdesk_mcp.fake.factory_followups import (
    create_reminder,
    ensure_invoiceable,
    invoice_from_order,
)
from sevdesk_mcp.fake.listing import Filter, after, by_text, filtered, list_reply, object_reply
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.routes.doc_common import DocumentKind, register_document_routes
from sevdesk_mcp.fake.wire import FakeError, to_wire

router = Router()

_EXTRA: dict[str, Filter[Invoice]] = {
    "invoiceType": by_text(lambda i: i.invoiceType),
    "updateAfter": after(lambda i: i.update),
}

INVOICES: DocumentKind[Invoice, InvoicePos] = DocumentKind(
    name="Invoice",
    number_key="invoiceNumber",
    parent_key="invoice",
    docs=lambda store: store.invoices,
    positions=lambda store: store.invoice_positions,
    extra_filters=_EXTRA,
)


@router.route("GET", "/Invoice")  # registered first: it wins over the shared list
def list_invoices(ctx: Context) -> Reply:
    """:returns: the invoices; recurring ones (``WKR``) only with ``showWkr=all``.

    :raises FakeError: 400 for an invalid ``limit``.
    """
    rows = [
        i for i in ctx.store.invoices if i.invoiceType != "WKR" or ctx.query.get("showWkr") == "all"
    ]
    rows = filtered(rows, ctx.query, INVOICES.filters())
    return list_reply(ctx, rows, lambda i: to_wire(i, ctx.store.client_ref))


register_document_routes(router, INVOICES)


@router.route("POST", "/Invoice/Factory/createInvoiceReminder")
def post_reminder(ctx: Context) -> Reply:
    """:returns: 200 with the new reminder (``MA``) draft.

    :raises FakeError: 400 without ``invoice[id]`` or for an invoice that cannot be dunned;
        404 code 151 for an unknown invoice.
    """
    raw = ctx.query.get("invoice[id]")
    if raw is None or ctx.query.get("invoice[objectName]") != "Invoice":
        raise FakeError(400, "invoice expected array with 'id' and 'objectName'. null given")
    invoice = ctx.store.invoices.get(parse_ref({"id": raw, "objectName": "Invoice"}, "invoice").id)
    reminder = create_reminder(ctx.store, invoice)
    return object_reply(to_wire(reminder, ctx.store.client_ref))


@router.route("POST", "/Invoice/Factory/createInvoiceFromOrder")
def post_invoice_from_order(ctx: Context) -> Reply:
    """:returns: 200 with the new invoice draft; the order is then invoiced (1000).

    :raises FakeError: 400 without ``order``, for a delivery note, a rejected or invoiced order
        or a partial invoice; 404 code 151 for an unknown order.
    """
    body = ctx.json()
    if body.get("order") is None:
        raise FakeError(400, "order expected array with 'id' and 'objectName'. null given")
    order = ctx.store.orders.get(parse_ref(body["order"], "order").id)
    partial = body.get("partialType")
    ensure_invoiceable(order, "RE" if partial is None else parse_text(partial, "partialType"))
    invoice, _ = invoice_from_order(ctx.store, order)
    return object_reply(to_wire(invoice, ctx.store.client_ref))


@router.route("PUT", "/Invoice/{id}/changeStatus")
def change_status_removed(ctx: Context) -> Reply:
    """The endpoint was removed in 2024 (§2.4).

    :raises FakeError: always 404.
    """
    raise FakeError(
        404,
        f"The endpoint {ctx.path} was removed. Use sendBy, sendViaEmail, bookAmount, "
        "resetToOpen or resetToDraft.",
    )
