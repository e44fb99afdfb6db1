"""Stored documents: invoices, credit notes, orders, vouchers and their positions.

Sums are computed per position with :data:`~decimal.ROUND_HALF_UP` to the cent and then added
up, so a document's ``sumNet``/``sumTax``/``sumGross`` always equal the sums of its positions.
Shapes follow ``docs/sevdesk-api.md`` §5.2/§5.3 and the official response models; status codes
are those of §3.1.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import ClassVar, Final

from sevdesk_mcp.fake.wire import Ref, Row
from sevdesk_mcp.jsontypes import JsonValue

CENT: Final = Decimal("0.01")
ZERO: Final = Decimal(0)
HUNDRED: Final = Decimal(100)

DRAFT: Final = 100
OPEN: Final = 200
PARTIALLY_PAID: Final = 750
PAID: Final = 1000
VOUCHER_DRAFT: Final = 50

_FOREIGN_SUMS: Final[tuple[tuple[str, JsonValue], ...]] = (
    ("sumNetForeignCurrency", "0"),
    ("sumTaxForeignCurrency", "0"),
    ("sumGrossForeignCurrency", "0"),
    ("sumDiscountsForeignCurrency", "0"),
)


def cents(value: Decimal) -> Decimal:
    """:returns: ``value`` rounded half-up to the cent."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(kw_only=True, slots=True)
class PosBase(Row, ABC):
    """A position of an invoice, credit note or order. Prices are net."""

    part: Ref | None = None
    quantity: Decimal = Decimal(1)
    price: Decimal = ZERO
    name: str | None = None
    unity: Ref | None = None
    positionNumber: int = 0
    text: str | None = None
    discount: Decimal = ZERO
    taxRate: Decimal = ZERO
    priority: int = 100
    sumNet: Decimal = ZERO
    sumTax: Decimal = ZERO
    sumGross: Decimal = ZERO
    sumDiscount: Decimal = ZERO
    priceNet: Decimal = ZERO
    priceTax: Decimal = ZERO
    priceGross: Decimal = ZERO
    isPercentage: bool = True
    createNextPart: bool = False
    optional: bool = False

    @property
    @abstractmethod
    def document(self) -> Ref:
        """:returns: the document this position belongs to."""

    def compute(self) -> None:
        """Set the derived prices and sums from quantity, price and tax rate."""
        self.priceNet = self.price
        self.priceTax = cents(self.price * self.taxRate / HUNDRED)
        self.priceGross = self.price + self.priceTax
        before = cents(self.quantity * self.price)
        off = self.discount if not self.isPercentage else before * self.discount / HUNDRED
        self.sumDiscount = cents(off)  # percent of the net sum, or an amount (G-003)
        self.sumNet = before - self.sumDiscount
        self.sumTax = cents(self.sumNet * self.taxRate / HUNDRED)
        self.sumGross = self.sumNet + self.sumTax


@dataclass(kw_only=True, slots=True)
class InvoicePos(PosBase):
    """A position of an invoice."""

    OBJECT_NAME: ClassVar[str] = "InvoicePos"
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"optional"})
    READ_ONLY: ClassVar[frozenset[str]] = frozenset({"invoice"})

    invoice: Ref
    sumNetAccounting: Decimal = ZERO
    sumTaxAccounting: Decimal = ZERO
    sumGrossAccounting: Decimal = ZERO

    @property
    def document(self) -> Ref:
        """:returns: the invoice."""
        return self.invoice

    def compute(self) -> None:
        """Set the derived prices and sums and their ``…Accounting`` copies (EUR only)."""
        PosBase.compute(self)
        self.sumNetAccounting = self.sumNet
        self.sumTaxAccounting = self.sumTax
        self.sumGrossAccounting = self.sumGross


@dataclass(kw_only=True, slots=True)
class CreditNotePos(PosBase):
    """A position of a credit note."""

    OBJECT_NAME: ClassVar[str] = "CreditNotePos"
    READ_ONLY: ClassVar[frozenset[str]] = frozenset({"creditNote"})

    creditNote: Ref

    @property
    def document(self) -> Ref:
        """:returns: the credit note."""
        return self.creditNote


@dataclass(kw_only=True, slots=True)
class OrderPos(PosBase):
    """A position of an order; optional positions do not count in the sums (§2.6)."""

    OBJECT_NAME: ClassVar[str] = "OrderPos"
    READ_ONLY: ClassVar[frozenset[str]] = frozenset({"order"})

    order: Ref

    @property
    def document(self) -> Ref:
        """:returns: the order."""
        return self.order


@dataclass(kw_only=True, slots=True)
class DocBase(Row, ABC):
    """Fields shared by invoices, credit notes and orders."""

    NUMBER_PREFIX: ClassVar[str] = ""
    NULLS: ClassVar[tuple[str, ...]] = ("taxSet", "costCentre")
    CONSTANTS: ClassVar[tuple[tuple[str, JsonValue], ...]] = _FOREIGN_SUMS

    contact: Ref | None = None
    createUser: Ref | None = None
    contactPerson: Ref | None = None
    header: str | None = None
    headText: str | None = None
    footText: str | None = None
    address: str | None = None
    addressCountry: Ref | None = None
    deliveryDate: datetime | None = None
    status: int = DRAFT
    smallSettlement: bool = False
    taxRate: Decimal = ZERO
    taxRule: Ref | None = None
    taxText: str | None = None
    taxType: str | None = None
    sendDate: datetime | None = None
    sendType: str | None = None
    currency: str = "EUR"
    sumNet: Decimal = ZERO
    sumTax: Decimal = ZERO
    sumGross: Decimal = ZERO
    sumDiscounts: Decimal = ZERO
    customerInternalNote: str | None = None
    showNet: bool = True

    @property
    @abstractmethod
    def number(self) -> str | None:
        """:returns: the document number (``invoiceNumber``, ``creditNoteNumber``…)."""

    @abstractmethod
    def set_number(self, value: str) -> None:
        """Set the document number."""

    @property
    @abstractmethod
    def date(self) -> datetime:
        """:returns: the document date (``invoiceDate``, ``creditNoteDate``…)."""

    def set_sums(self, positions: Iterable[PosBase]) -> None:
        """Set ``sumNet``/``sumTax``/``sumGross`` to the sums of the non-optional positions."""
        counted = [p for p in positions if not p.optional]
        self.sumNet = sum((p.sumNet for p in counted), ZERO)
        self.sumTax = sum((p.sumTax for p in counted), ZERO)
        self.sumGross = sum((p.sumGross for p in counted), ZERO)

    def mark_enshrined(self, when: datetime) -> None:
        """Set ``enshrined`` where the document type has it."""


@dataclass(kw_only=True, slots=True)
class Invoice(DocBase):
    """An invoice (``invoiceType`` RE, SR cancellation, …). Drafts have no number (Q22)."""

    OBJECT_NAME: ClassVar[str] = "Invoice"
    NUMBER_PREFIX: ClassVar[str] = "RE-"
    NUMBERS: ClassVar[frozenset[str]] = frozenset({"paidAmount"})
    NULLS: ClassVar[tuple[str, ...]] = (
        *DocBase.NULLS,
        "datevConnectOnline",
        "sendPaymentReceivedNotificationDate",
    )
    READ_ONLY: ClassVar[frozenset[str]] = frozenset(
        {"invoiceNumber", "status", "enshrined", "paidAmount", "payDate", "origin"}
        | {"reminderDebit", "reminderTotal", "reminderDeadline"}  # the spec: readOnly
    )

    invoiceNumber: str | None = None
    invoiceDate: datetime
    invoiceType: str = "RE"
    timeToPay: int | None = 14
    discountTime: int | None = None
    discount: Decimal = ZERO
    addressName: str | None = None
    addressStreet: str | None = None
    addressZip: str | None = None
    addressCity: str | None = None
    payDate: datetime | None = None
    dunningLevel: int | None = None
    origin: Ref | None = None
    paymentMethod: Ref | None = None
    reminderCharge: Decimal = ZERO
    reminderDebit: Decimal | None = None
    reminderTotal: Decimal | None = None
    reminderDeadline: datetime | None = None
    accountIntervall: str | None = None  # Q37: misspelled on the wire; WKR only (ISO 8601)
    accountNextInvoice: int | None = None  # WKR only: Unix seconds, a string on the wire
    sumNetAccounting: Decimal = ZERO
    sumTaxAccounting: Decimal = ZERO
    sumGrossAccounting: Decimal = ZERO
    paidAmount: Decimal = ZERO
    enshrined: datetime | None = None
    deliveryDateUntil: datetime | None = None
    propertyIsEInvoice: bool = False

    @property
    def number(self) -> str | None:
        """:returns: ``invoiceNumber``."""
        return self.invoiceNumber

    def set_number(self, value: str) -> None:
        """Set ``invoiceNumber``."""
        self.invoiceNumber = value

    @property
    def date(self) -> datetime:
        """:returns: ``invoiceDate``."""
        return self.invoiceDate

    def set_sums(self, positions: Iterable[PosBase]) -> None:
        """Set the sums and their ``…Accounting`` copies (EUR only)."""
        DocBase.set_sums(self, positions)
        self.sumNetAccounting = self.sumNet
        self.sumTaxAccounting = self.sumTax
        self.sumGrossAccounting = self.sumGross

    def mark_enshrined(self, when: datetime) -> None:
        """Set ``enshrined``."""
        self.enshrined = when


@dataclass(kw_only=True, slots=True)
class CreditNote(DocBase):
    """A credit note (``creditNoteType`` CN); statuses 100/200/750/1000."""

    OBJECT_NAME: ClassVar[str] = "CreditNote"
    NUMBER_PREFIX: ClassVar[str] = "GU-"
    NUMBERS: ClassVar[frozenset[str]] = frozenset({"paidAmount"})
    READ_ONLY: ClassVar[frozenset[str]] = frozenset({"status", "enshrined", "paidAmount"})

    creditNoteNumber: str | None = None
    creditNoteDate: datetime
    creditNoteType: str = "CN"
    bookingCategory: str | None = "UNDERACHIEVEMENT"
    refSrcInvoice: Ref | None = None
    payDate: datetime | None = None
    paidAmount: Decimal = ZERO
    enshrined: datetime | None = None
    deliveryDateUntil: datetime | None = None

    @property
    def number(self) -> str | None:
        """:returns: ``creditNoteNumber``."""
        return self.creditNoteNumber

    def set_number(self, value: str) -> None:
        """Set ``creditNoteNumber``."""
        self.creditNoteNumber = value

    @property
    def date(self) -> datetime:
        """:returns: ``creditNoteDate``."""
        return self.creditNoteDate

    def mark_enshrined(self, when: datetime) -> None:
        """Set ``enshrined``."""
        self.enshrined = when


@dataclass(kw_only=True, slots=True)
class Order(DocBase):
    """An order: offer AN, confirmation AB or delivery note LI; statuses 100…1000 (§3.1)."""

    OBJECT_NAME: ClassVar[str] = "Order"
    NUMBER_PREFIX: ClassVar[str] = "AN-"
    READ_ONLY: ClassVar[frozenset[str]] = frozenset({"status"})

    orderNumber: str | None = None
    orderDate: datetime
    orderType: str = "AN"
    version: int = 0
    origin: Ref | None = None
    deliveryTerms: str | None = None
    paymentTerms: str | None = None

    @property
    def number(self) -> str | None:
        """:returns: ``orderNumber``."""
        return self.orderNumber

    def set_number(self, value: str) -> None:
        """Set ``orderNumber``."""
        self.orderNumber = value

    @property
    def date(self) -> datetime:
        """:returns: ``orderDate``."""
        return self.orderDate
