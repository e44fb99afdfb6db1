"""Lenient wire schemas the tax figures need beyond the listing schemas: the country and the
accounting sums of a document, and the country code of a contact's address."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

from sevdesk_mcp.sevdesk.wire import Ref
from sevdesk_mcp.sevdesk.wire_documents import Document, Position


class TaxDocument(Document, frozen=True):
    """An invoice or credit note with the fields a VAT return reads."""

    addressCountry: Ref | None = None
    sumNetAccounting: Decimal | None = None
    sumTaxAccounting: Decimal | None = None
    deliveryDateUntil: dt.datetime | None = None
    discount: Decimal | None = None  # cash discount (Skonto) granted, in percent
    discountTime: int | None = None  # … within this many days of the invoice date
    smallSettlement: bool | None = None  # the account is a small business (§19 UStG)


class TaxPosition(Position, frozen=True):
    """A document position with the document it belongs to (``invoice`` or ``creditNote``)."""

    invoice: Ref | None = None
    creditNote: Ref | None = None


class Country(msgspec.Struct, frozen=True):
    """A StaticCountry: id and ISO code."""

    id: int
    code: str | None = None
    name: str | None = None


class Payment(msgspec.Struct, frozen=True):
    """A booking of a payment on a document (``CheckAccountTransactionLog``)."""

    id: int
    object: Ref | None = None
    checkAccountTransaction: Ref | None = None
    amountPaid: Decimal | None = None
    bookingDate: dt.datetime | None = None
