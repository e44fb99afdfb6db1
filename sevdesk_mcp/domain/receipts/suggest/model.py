"""What the booking suggestions take and answer."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Literal

import msgspec

from sevdesk_mcp.domain.receipts.guidance import ReceiptKind
from sevdesk_mcp.domain.receipts.suggest.amounts import LowValueChoice, Treatment
from sevdesk_mcp.domain.receipts.suggest.charts import Chart
from sevdesk_mcp.domain.receipts.suggest.foreign import SupplierFacts

Confidence = Literal["high", "medium", "low"]


class ReceiptQuery(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt (or one of its positions) to suggest for.

    :param description: what was bought, in the receipt's words.
    :param rate: the VAT rate the receipt shows, if known.
    :param net: the net amount (decides expense, GWG, pool or asset for an item).
    :param tax: the VAT the receipt shows, if known (0: no German VAT).
    :param day: the date of supply (the rate depends on it).
    """

    description: str
    kind: ReceiptKind = "expense"
    rate: Decimal | None = None
    net: Decimal | None = None
    tax: Decimal | None = None
    day: dt.date | None = None
    supplier: SupplierFacts = SupplierFacts()

    @property
    def german_vat(self) -> bool:
        """:returns: whether the receipt shows German VAT (a rate or tax above 0)."""
        return bool((self.rate or 0) > 0 or (self.tax or 0) > 0)


class Company(msgspec.Struct, frozen=True, kw_only=True):
    """What the company's settings say (the tool hands them down; ``None`` where unset).

    :param sole_proprietor: whether the owner's own travel is booked (sole proprietor or
        freelancer) rather than an employee's.
    :param deductible: whether the company may deduct input tax (not a small business).
    """

    chart: Chart | None = None
    low_value: LowValueChoice | None = None
    sole_proprietor: bool | None = None
    deductible: bool = True


class Suggestion(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One booking account that may fit: the tax rule and rate proposed, how sure and why (the
    evidence, strongest first), and what the account allows."""

    account_number: str
    account_name: str
    account_id: int
    tax_rule_id: int | None = None
    tax_rate: Decimal | None = None
    confidence: Confidence
    reason: str
    evidence: list[str]
    allowed: str
    rate_fits: bool | None = None
    fits: bool | None = None
    treatment: Treatment | None = None
    rate_hint: str | None = None
    reverse_charge: str | None = None


class Suggestions(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The suggestions, best first; ``note`` says what to do, ``missing`` what would help when
    none fits; ``chart`` which chart was read and why."""

    suggestions: list[Suggestion]
    note: str
    chart: str | None = None
    missing: str | None = None
