"""The profit and loss (§4(3) EStG): the EÜR for those who may use it, gross, with every figure
on its Anlage EÜR line of the year; an income and expense overview for corporations and
commercial partnerships (which must draw up a balance sheet) and on the accrual basis.

Modules: :mod:`.legal_form` (who may use an EÜR), :mod:`.facts` (chart,
Dauerfristverlängerung), :mod:`.accounts` (what an SKR03/SKR04 account means here),
:mod:`.low_value` (GWG, pool, assets), :mod:`.meals` (meals and gifts), :mod:`.timing`
(§11 EStG), :mod:`.form_lines` (the lines per year, as data), :mod:`.walk` and
:mod:`.compute`. The rules and their sources: ``docs/tax.md``, "Profit and loss (EÜR)".
"""

from __future__ import annotations

from sevdesk_mcp.domain.reports.euer.compute import company_name, compute, profit_and_loss
from sevdesk_mcp.domain.reports.euer.model import AssetItem, Basis, EuerLine, ProfitAndLoss

__all__ = [
    "AssetItem",
    "Basis",
    "EuerLine",
    "ProfitAndLoss",
    "company_name",
    "compute",
    "profit_and_loss",
]
