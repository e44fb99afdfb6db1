"""Invoices (``docs/sevdesk-api.md`` §2.4): the shared document endpoints, the ``invoiceType``
and ``updateAfter`` (Unix seconds) filters, and the removed ``changeStatus`` (404, TECH
2024_04_04).
"""

from __future__ import annotations

from sevdesk_mcp.fake.documents import Invoice, InvoicePos
from sevdesk_mcp.fake.listing import Filter, after, by_text
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.routes.doc_common import DocumentKind, register_document_routes
from sevdesk_mcp.fake.wire import FakeError

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
register_document_routes(router, INVOICES)


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
