"""Lenient wire schemas of invoices, credit notes and orders and their positions.

The three share one shape with different names for number, date and type
(``invoiceNumber``/``creditNoteNumber``/``orderNumber``, …); :class:`Document` reads all of them.
``paidAmount`` arrives as a JSON number, everything else as strings (Q4).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import ClassVar

import msgspec

from sevdesk_mcp.safety.redact import Undisclosed
from sevdesk_mcp.sevdesk.wire import Days, Ref, Text


class Document(msgspec.Struct, frozen=True):
    """An invoice, credit note or order."""

    id: int
    status: int | None = None
    contact: Ref | None = None
    invoiceNumber: str | None = None
    creditNoteNumber: str | None = None
    orderNumber: str | None = None
    invoiceDate: dt.datetime | None = None
    creditNoteDate: dt.datetime | None = None
    orderDate: dt.datetime | None = None
    invoiceType: str | None = None
    creditNoteType: str | None = None
    orderType: str | None = None
    header: str | None = None
    headText: str | None = None
    footText: str | None = None
    address: str | None = None
    currency: str | None = None
    sumNet: Decimal | None = None
    sumTax: Decimal | None = None
    sumGross: Decimal | None = None
    paidAmount: Decimal | None = None
    timeToPay: Days | None = None
    deliveryDate: dt.datetime | None = None
    payDate: dt.datetime | None = None
    sendDate: dt.datetime | None = None
    taxRule: Ref | None = None
    taxType: str | None = None
    taxText: str | None = None
    origin: Ref | None = None
    refSrcInvoice: Ref | None = None
    customerInternalNote: str | None = None
    enshrined: dt.datetime | None = None
    update: dt.datetime | None = None

    def number(self) -> str | None:
        """:returns: the document number (``None`` for drafts, Q22)."""
        return self.invoiceNumber or self.creditNoteNumber or self.orderNumber

    def date(self) -> dt.datetime | None:
        """:returns: the document date."""
        return self.invoiceDate or self.creditNoteDate or self.orderDate

    def type(self) -> str | None:
        """:returns: ``RE``, ``SR``, ``CN``, ``AN``, …"""
        return self.invoiceType or self.creditNoteType or self.orderType


class OpenDocument(msgspec.Struct, frozen=True):
    """What the open-items report reads of an invoice or credit note (a whole list of them).

    Reading these few members of every document takes about half the time :class:`Document`
    takes, and none of them can be an empty string, so the list is read without the
    substitution of empty strings (``parsed.py``)."""

    id: int
    status: int | None = None
    contact: Ref | None = None
    invoiceDate: dt.datetime | None = None
    creditNoteDate: dt.datetime | None = None
    currency: Text | None = None
    sumGross: Decimal | None = None
    paidAmount: Decimal | None = None
    timeToPay: Days | None = None

    def date(self) -> dt.datetime | None:
        """:returns: the document date (no ``orderDate``: orders have no open amounts)."""
        return self.invoiceDate or self.creditNoteDate


class Position(msgspec.Struct, frozen=True):
    """A position of an invoice, credit note or order."""

    id: int
    name: str | None = None
    text: str | None = None
    quantity: Decimal | bool | None = None  # ``true`` stands for 1 in save answers (Q4)
    price: Decimal | None = None
    unity: Ref | None = None
    taxRate: Decimal | None = None
    sumNet: Decimal | None = None
    sumTax: Decimal | None = None
    sumGross: Decimal | None = None
    positionNumber: int | None = None
    optional: bool | None = None
    part: Ref | None = None

    def amount(self) -> Decimal:
        """:returns: the quantity as a number."""
        if isinstance(self.quantity, bool):
            return Decimal(int(self.quantity))
        return self.quantity if self.quantity is not None else Decimal(0)


class PdfFile(Undisclosed, msgspec.Struct, frozen=True):
    """The answer of ``getPdf``: inside ``objects``, keys ``mimetype``, ``base64Encoded`` (Q3).
    Its repr leaves out the content."""

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"content"})

    content: str | None = None
    filename: str | None = None
    mimetype: str | None = None
    base64Encoded: bool | None = None
