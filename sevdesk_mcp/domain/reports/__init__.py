"""Reports computed from sevDesk's data: open items, the cash position and what changed
(``summaries``), and the tax figures: the advance VAT return (``vat``), the EU sales list
(``zm``), the One-Stop-Shop figures (``oss``), the profit and loss by booking account
(``euer``), and the exports (``exports``). The rules behind each figure are in
docs/tax.md.
"""

from __future__ import annotations

from sevdesk_mcp.domain.reports.summaries import (
    AccountBalance,
    Aging,
    CashPosition,
    Change,
    Changes,
    ContactOpen,
    Item,
    KindChanges,
    OpenItems,
    OpenSide,
    bucket,
    cash_position,
    changed_since,
    open_items,
    read_open_items,
)

__all__ = [
    "AccountBalance",
    "Aging",
    "CashPosition",
    "Change",
    "Changes",
    "ContactOpen",
    "Item",
    "KindChanges",
    "OpenItems",
    "OpenSide",
    "bucket",
    "cash_position",
    "changed_since",
    "open_items",
    "read_open_items",
]
