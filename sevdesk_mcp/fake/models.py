"""Stored objects of the fake: users, contacts, addresses, parts, check accounts, transactions.

Field names are the wire names, including sevDesk's misspellings (Q37: ``surename``,
``titel``; Q14: ``autoMapTransaction``). Documents live in :mod:`sevdesk_mcp.fake.documents`.
Shapes follow the recorded fixtures of ``docs/sevdesk-api.md`` §5 plus the fields of the
official response models.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import ClassVar

from sevdesk_mcp.fake.wire import Ref, Row


@dataclass(kw_only=True, slots=True)
class SevClient(Row):
    """The account itself (GET /SevClient; shape UNVERIFIED: id, objectName, name)."""

    OBJECT_NAME: ClassVar[str] = "SevClient"
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"create", "update", "sevClient"})

    name: str


@dataclass(kw_only=True, slots=True)
class SevUser(Row):
    """A user of the account; documents name one as ``contactPerson`` and ``createUser``."""

    OBJECT_NAME: ClassVar[str] = "SevUser"

    username: str
    firstName: str
    lastName: str
    fullname: str
    email: str
    status: int = 100


@dataclass(kw_only=True, slots=True)
class Contact(Row):
    """An organisation (``name``) or a person (``surename``/``familyname``, Q37)."""

    OBJECT_NAME: ClassVar[str] = "Contact"
    NULLS: ClassVar[tuple[str, ...]] = ("mandateReference",)

    name: str | None = None
    status: int = 1000
    customerNumber: str | None = None
    parent: Ref | None = None
    surename: str | None = None
    familyname: str | None = None
    titel: str | None = None
    category: Ref | None = None
    description: str | None = None
    academicTitle: str | None = None
    gender: str | None = None
    name2: str | None = None
    birthday: date | None = None
    vatNumber: str | None = None
    bankAccount: str | None = None
    bankNumber: str | None = None
    defaultCashbackTime: int | None = None
    defaultCashbackPercent: Decimal | None = None
    defaultTimeToPay: int | None = None
    taxNumber: str | None = None
    taxOffice: str | None = None
    exemptVat: bool = False
    taxType: str | None = None
    defaultDiscountAmount: Decimal | None = None
    defaultDiscountPercentage: bool = True
    buyerReference: str | None = None
    governmentAgency: bool = False
    defaultShowVat: bool = True

    @property
    def is_person(self) -> bool:
        """:returns: whether this contact is a person (no organisation ``name``)."""
        return self.name is None


@dataclass(kw_only=True, slots=True)
class ContactAddress(Row):
    """A postal address of a contact; ``category`` 43 work … 49 pickup (§3.3)."""

    OBJECT_NAME: ClassVar[str] = "ContactAddress"

    contact: Ref
    street: str | None = None
    zip: str | None = None
    city: str | None = None
    country: Ref | None = None
    category: Ref | None = None
    name: str | None = None
    name2: str | None = None
    name3: str | None = None
    name4: str | None = None


@dataclass(kw_only=True, slots=True)
class CommunicationWay(Row):
    """An e-mail address, phone number or web address of a contact."""

    OBJECT_NAME: ClassVar[str] = "CommunicationWay"

    contact: Ref
    type: str
    value: str
    key: Ref | None = None
    main: bool = False


@dataclass(kw_only=True, slots=True)
class Part(Row):
    """An article. The spec types its numbers as numbers; sevDesk writes strings (Q4, Q6)."""

    OBJECT_NAME: ClassVar[str] = "Part"

    name: str
    partNumber: str
    text: str | None = None
    category: Ref | None = None
    stock: Decimal = Decimal(0)
    stockEnabled: bool = True
    unity: Ref
    price: Decimal | None = None
    priceNet: Decimal | None = None
    priceGross: Decimal | None = None
    pricePurchase: Decimal | None = None
    taxRate: Decimal = Decimal(19)
    status: int = 100
    internalComment: str | None = None


@dataclass(kw_only=True, slots=True)
class CheckAccount(Row):
    """A bank account (``online``/``offline``) or cash register (``register``).

    ``balance`` is not stored: the routes compute it from the transactions.
    """

    OBJECT_NAME: ClassVar[str] = "CheckAccount"

    name: str
    type: str
    importType: str | None = None
    currency: str = "EUR"
    defaultAccount: bool = False
    status: int = 100
    accountingNumber: str | None = None
    iban: str | None = None
    bic: str | None = None
    baseAccount: bool = False
    priority: int = 0
    autoMapTransaction: bool = True  # Q14: singular; the spec's plural is ignored
    autoSyncTransactions: bool = False
    lastSync: datetime | None = None
    bankServer: str | None = None


@dataclass(kw_only=True, slots=True)
class CheckAccountTransaction(Row):
    """A bank or register transaction. ``amount`` is a string on the wire (Q5)."""

    OBJECT_NAME: ClassVar[str] = "CheckAccountTransaction"
    NULLS: ClassVar[tuple[str, ...]] = (
        "feeAmount",
        "score",
        "compareHash",
        "obonoReceiptUuid",
        "externalId",
        "restoredAt",
    )

    valueDate: datetime
    entryDate: datetime
    amount: Decimal
    paymtPurpose: str | None = None
    payeePayerName: str | None = None
    payeePayerAcctNo: str | None = None
    payeePayerBankCode: str | None = None
    gvCode: str | None = None
    entryText: str | None = None
    primaNotaNo: str | None = None
    checkAccount: Ref
    status: int = 100
    sourceTransaction: Ref | None = None
    targetTransaction: Ref | None = None
    enshrined: datetime | None = None
    deletedAt: datetime | None = None


@dataclass(kw_only=True, slots=True)
class CheckAccountTransactionLog(Row):
    """A booking of a transaction against a document; ``amountPaid`` is a number (Q4, Q26)."""

    OBJECT_NAME: ClassVar[str] = "CheckAccountTransactionLog"
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"update"})
    NUMBERS: ClassVar[frozenset[str]] = frozenset({"amountPaid"})

    checkAccountTransaction: Ref
    fromStatus: int = 100
    toStatus: int = 400
    amountPaid: Decimal
    bookingDate: datetime
    object: Ref


@dataclass(kw_only=True, slots=True)
class Tag(Row):
    """A tag of the account (``Model_TagResponse``: no ``update``)."""

    OBJECT_NAME: ClassVar[str] = "Tag"
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"update"})

    name: str


@dataclass(kw_only=True, slots=True)
class TagRelation(Row):
    """A tag on one invoice, order, voucher or credit note (``Model_TagCreateResponse``)."""

    OBJECT_NAME: ClassVar[str] = "TagRelation"
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"update"})

    tag: Ref
    object: Ref
