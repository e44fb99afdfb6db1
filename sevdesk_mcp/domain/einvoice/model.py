"""The one model of an e-invoice, whatever its syntax (EN 16931 business terms, ``BT-n``).

Money and quantities are ``Decimal`` as written (never float); an absent optional element is
``None``. Dates are ISO ``YYYY-MM-DD`` strings (CII's format 102 converted). Text is the
document's own, whitespace collapsed (the payment terms BT-20 keep their line breaks: XRechnung
puts one Skonto entry on each line): it is third-party text and is fenced wherever it is shown.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

import msgspec

Syntax = Literal["ubl-invoice", "ubl-creditnote", "cii"]
Profile = Literal["MINIMUM", "BASIC WL", "BASIC", "EN16931", "EXTENDED", "XRECHNUNG", "UNKNOWN"]


class Address(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A postal address (BG-5, BG-8, BG-15)."""

    street: str | None = None
    city: str | None = None
    post_code: str | None = None
    country: str | None = None


class Contact(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A contact point (BG-6, BG-9)."""

    name: str | None = None
    phone: str | None = None
    email: str | None = None


class Party(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Seller (BG-4), buyer (BG-7), payee or tax representative."""

    name: str | None = None
    trading_name: str | None = None
    identifiers: list[str] = []
    legal_id: str | None = None
    vat_id: str | None = None
    tax_number: str | None = None
    address: Address | None = None
    contact: Contact | None = None
    electronic_address: str | None = None


class Period(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An invoicing period (BG-14, BG-26)."""

    start: str | None = None
    end: str | None = None


class AllowanceCharge(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A document-level (BG-20/21) or line-level (BG-27/28) allowance or charge."""

    charge: bool
    amount: Decimal | None = None
    base: Decimal | None = None
    percent: Decimal | None = None
    category: str | None = None
    rate: Decimal | None = None
    reason: str | None = None
    reason_code: str | None = None
    logistics: bool = False


class Line(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An invoice line (BG-25)."""

    id: str | None = None
    name: str | None = None
    description: str | None = None
    quantity: Decimal | None = None
    unit: str | None = None
    net: Decimal | None = None
    price: Decimal | None = None
    gross_price: Decimal | None = None
    category: str | None = None
    rate: Decimal | None = None
    period: Period | None = None
    allowances_charges: list[AllowanceCharge] = []


class VatBreakdown(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One VAT breakdown (BG-23)."""

    taxable: Decimal | None = None
    tax: Decimal | None = None
    category: str | None = None
    rate: Decimal | None = None
    exemption_reason: str | None = None
    exemption_code: str | None = None


class TaxAmount(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A total VAT amount with its currency (BT-110 or BT-111)."""

    amount: Decimal
    currency: str | None = None


class Totals(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Document totals (BG-22)."""

    line_net: Decimal | None = None
    allowances: Decimal | None = None
    charges: Decimal | None = None
    net: Decimal | None = None
    vat: Decimal | None = None
    vat_accounting: Decimal | None = None
    gross: Decimal | None = None
    prepaid: Decimal | None = None
    rounding: Decimal | None = None
    due: Decimal | None = None
    tax_amounts: list[TaxAmount] = []


class PaymentMeans(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One payment instruction (BG-16): code, credit transfer (BG-17), card (BG-18), direct
    debit (BG-19)."""

    code: str | None = None
    text: str | None = None
    ibans: list[str] = []
    bic: str | None = None
    card: bool = False
    mandate: str | None = None
    debited_account: str | None = None


class Invoice(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An e-invoice, read from UBL or CII."""

    syntax: Syntax
    profile: Profile
    specification: str | None = None
    number: str | None = None
    issue_date: str | None = None
    type_code: str | None = None
    currency: str | None = None
    tax_currency: str | None = None
    tax_point_date: str | None = None
    tax_point_code: str | None = None
    due_date: str | None = None
    buyer_reference: str | None = None
    order_reference: str | None = None
    preceding_invoices: list[str] = []
    notes: list[str] = []
    seller: Party = Party()
    buyer: Party = Party()
    tax_representative: Party | None = None
    deliver_to: Address | None = None
    delivery_date: str | None = None
    period: Period | None = None
    lines: list[Line] = []
    allowances_charges: list[AllowanceCharge] = []
    vat_breakdown: list[VatBreakdown] = []
    totals: Totals = Totals()
    payment_means: list[PaymentMeans] = []
    payment_terms: str | None = None
    creditor_id: str | None = None
    attachment_names: list[str] = []

    @property
    def is_xrechnung(self) -> bool:
        """:returns: whether the XRechnung CIUS rules (BR-DE) apply."""
        return self.profile == "XRECHNUNG"
