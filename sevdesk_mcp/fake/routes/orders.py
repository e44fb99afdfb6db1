"""Orders: offers AN, confirmations AB, delivery notes LI (``docs/sevdesk-api.md`` §2.6).

getPdf without ``preventSendBy`` moves a draft to 200, as measured for orders (Q21). The list
also filters on ``orderType`` and ``updateAfter`` (Unix seconds).
"""

from __future__ import annotations

from sevdesk_mcp.fake.documents import Order, OrderPos
from sevdesk_mcp.fake.listing import Filter, after, by_text
from sevdesk_mcp.fake.router import Router
from sevdesk_mcp.fake.routes.doc_common import DocumentKind, register_document_routes

router = Router()

_EXTRA: dict[str, Filter[Order]] = {
    "orderType": by_text(lambda o: o.orderType),
    "updateAfter": after(lambda o: o.update),
}

ORDERS: DocumentKind[Order, OrderPos] = DocumentKind(
    name="Order",
    number_key="orderNumber",
    parent_key="order",
    docs=lambda store: store.orders,
    positions=lambda store: store.order_positions,
    extra_filters=_EXTRA,
)
register_document_routes(router, ORDERS)
