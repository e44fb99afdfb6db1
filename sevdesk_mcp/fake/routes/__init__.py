"""The endpoints of the fake, one module per resource group, joined into :data:`ROUTER`.

To add an endpoint group: write a module with ``router = Router()`` and
``@router.route("GET", "/Thing/{id}")`` handlers, and add its router here.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.fake.router import Router
from sevdesk_mcp.fake.routes import (
    accounting,
    banking,
    contact_details,
    contacts,
    credit_notes,
    document_writes,
    exports,
    invoice_actions,
    invoices,
    orders,
    parts,
    payments,
    system,
    tags,
    vouchers,
)

ROUTER: Final = Router().include(
    system.router,
    accounting.router,
    contacts.router,
    contact_details.router,
    parts.router,
    invoices.router,
    credit_notes.router,
    orders.router,
    vouchers.router,
    banking.router,
    document_writes.router,
    invoice_actions.router,
    payments.router,
    exports.router,
    tags.router,
)
