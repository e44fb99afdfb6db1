"""Every tool the product ships, and the toolsets they belong to."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.tools import (
    advanced,
    banking,
    contacts,
    contacts_write,
    documents,
    documents_commit,
    documents_write,
    einvoice,
    exports,
    files,
    meta,
    parts,
    parts_write,
    receipts,
    receipts_write,
    reconciliation,
    reconciliation_write,
    reports,
    tax,
    vouchers,
)
from sevdesk_mcp.tools.registry import AnyTool

ALL_TOOLS: Final[tuple[AnyTool, ...]] = (
    *meta.TOOLS,
    *contacts.TOOLS,
    *contacts_write.TOOLS,
    *documents.TOOLS,
    *documents_write.TOOLS,
    *documents_commit.TOOLS,
    *vouchers.TOOLS,
    *receipts.TOOLS,
    *receipts_write.TOOLS,
    *einvoice.TOOLS,
    *parts.TOOLS,
    *parts_write.TOOLS,
    *banking.TOOLS,
    *reconciliation.TOOLS,
    *reconciliation_write.TOOLS,
    *reports.TOOLS,
    *tax.TOOLS,
    *exports.TOOLS,
    *files.TOOLS,
    *advanced.TOOLS,
)
TOOLSETS: Final = frozenset(t.toolset for t in ALL_TOOLS)
DEFAULT_OFF_TOOLSETS: Final = frozenset({"advanced"})  # the generic read
DEFAULT_TOOLSETS: Final = TOOLSETS - DEFAULT_OFF_TOOLSETS
