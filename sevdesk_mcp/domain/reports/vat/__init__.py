"""The advance VAT return (Umsatzsteuer-Voranmeldung): which box a position goes to
(``rules``), when it counts (``timing``), price changes after the sale (``corrections``),
foreign receipts entered without reverse charge (``foreign``), what the figures assume
(``basis``), the questions left open (``questions``) and the return itself (``compute``,
``model``). The rules and their sources are in docs/tax.md."""

from __future__ import annotations

from sevdesk_mcp.domain.reports.vat.basis import Assumption, Method, VatBasis
from sevdesk_mcp.domain.reports.vat.compute import compute, differences, vat_return
from sevdesk_mcp.domain.reports.vat.corrections import Shortfalls
from sevdesk_mcp.domain.reports.vat.model import Box, Source, VatReturn

__all__ = [
    "Assumption",
    "Box",
    "Method",
    "Shortfalls",
    "Source",
    "VatBasis",
    "VatReturn",
    "compute",
    "differences",
    "vat_return",
]
