"""What the profit and loss is computed with, and what it answers.

The company's settings come as :class:`~sevdesk_mcp.domain.reports.company.CompanyFacts`.
Every answer states each fact it used and where the fact came from (``Fact``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Literal

import msgspec

from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.reports.company import Fact

Basis = Literal["cash", "accrual"]
Side = Literal["income", "expense", "apart"]


class FormLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the Anlage EÜR of a year.

    :param line: the line number on the form, ``None`` where it is not known.
    :param kz: the Kennzahl (ELSTER field number), ``None`` where it is not known.
    :param status: ``secondary`` (found in sources that cite the BMF form) or ``unconfirmed``.
    """

    label: str
    line: int | None
    kz: str | None
    status: str


class EuerLine(msgspec.Struct, frozen=True, kw_only=True):
    """A figure of the profit and loss, on its Anlage EÜR line.

    ``side`` ``apart`` is a non-deductible amount shown apart: it does not reduce the result.
    """

    key: str
    label: str
    side: Side
    amount: Decimal
    items: int
    line: int | None
    kz: str | None
    line_status: str
    sources: list[Untrusted]


class AssetItem(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt position that is an asset or a low-value asset, by its net amount."""

    receipt: Untrusted
    acquired: dt.date
    account: str | None
    net: Decimal
    treatment: str  # expensed, gwg, pool, asset
    why: str
    paid: bool
    to_do: str | None = None


class ProfitAndLoss(msgspec.Struct, frozen=True, kw_only=True):
    """The EÜR (``kind`` ``euer``), or an income and expense overview (``overview``) where an
    EÜR is not the company's profit determination or the basis is not cash."""

    period: str
    basis: str
    kind: str
    title: str
    why_not_euer: str | None
    legal_form: Fact
    chart: Fact
    low_value_assets: Fact
    small_business: Fact
    vat_extension: Fact
    form: str
    lines: list[EuerLine]
    income: Decimal
    expenses: Decimal
    result: Decimal
    not_deductible: Decimal
    assets: list[AssetItem]
    thresholds: list[str]
    assumptions: list[str]
    without_account: list[str]
    rule: str
