"""Calls of the document tools on the demo books, with a human approving through the form."""

from __future__ import annotations

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.mcp.app import McpApp
from tests.writes.helpers import approved, write_app

__all__ = ["app", "approved"]

CUSTOMER = 410003  # Café Kastanie GmbH, with a billing address in Freiburg
OPEN_INVOICE = 700039  # RE-1039, open, 318.56 EUR gross
DRAFT_INVOICE = 700041  # a draft without number
DRAFT_CREDIT_NOTE = 720003  # GU-1003, a draft
LINE = {"name": "Tischlerarbeiten Theke", "quantity": "3", "unit_price": "120.00", "tax_rate": 19}


def app(fake: FakeSevdesk) -> McpApp:
    """:returns: the server with every tier on the demo books."""
    return write_app(fake)
