"""Lenient wire schemas of receipts, articles and banking (``docs/sevdesk-api.md`` §2.3, §2.7,
§2.8, §5.3, §5.4), read with :func:`~sevdesk_mcp.sevdesk.wire.parse` like those of ``wire``.

Money is :class:`~decimal.Decimal`, whether sevDesk sends a string (``"-15"``, the transaction
``amount``, Q5) or a number (``paidAmount``, the log's ``amountPaid``, Q4). A voucher carries
``taxRule`` (bookkeeping 2.0) or ``taxType`` (1.0), a position ``accountDatev`` (2.0) or
``accountingType`` (1.0); all four are optional, because one account holds both generations.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

from sevdesk_mcp.sevdesk.wire import Ref


class Voucher(msgspec.Struct, frozen=True):
    """``Voucher``: a receipt. ``description`` is the receipt number (Q39); ``creditDebit`` C is
    an expense, D revenue (§3.2)."""

    id: int
    voucherDate: dt.datetime | None = None
    deliveryDate: dt.datetime | None = None
    deliveryDateUntil: dt.datetime | None = None
    supplier: Ref | None = None
    supplierName: str | None = None
    supplierNameAtSave: str | None = None
    description: str | None = None
    status: int | None = None
    currency: str | None = None
    sumNet: Decimal | None = None
    sumTax: Decimal | None = None
    sumGross: Decimal | None = None
    paidAmount: Decimal | None = None
    creditDebit: str | None = None
    voucherType: str | None = None
    taxRule: Ref | None = None
    taxType: str | None = None
    paymentDeadline: dt.datetime | None = None
    payDate: dt.datetime | None = None
    update: dt.datetime | None = None


class VoucherPos(msgspec.Struct, frozen=True):
    """``VoucherPos``: the booking account lives here (Q43); ``comment`` is the position text."""

    id: int
    voucher: Ref | None = None
    accountDatev: Ref | None = None
    accountingType: Ref | None = None
    taxRate: Decimal | None = None
    net: bool | None = None
    sumNet: Decimal | None = None
    sumTax: Decimal | None = None
    sumGross: Decimal | None = None
    comment: str | None = None
    isAsset: bool | None = None  # the position is an asset (depreciated, not expensed)


class AccountingType(msgspec.Struct, frozen=True):
    """``AccountingType``: a booking account of bookkeeping system 1.0 (undocumented now)."""

    id: int
    name: str | None = None
    skr03: str | int | None = None  # the older spec says integer; numbers keep leading zeros
    skr04: str | int | None = None


class Part(msgspec.Struct, frozen=True):
    """``Part``: an article. Numbers arrive as strings (Q4)."""

    id: int
    name: str | None = None
    partNumber: str | None = None
    unity: Ref | None = None
    stock: Decimal | None = None
    stockEnabled: bool | None = None
    price: Decimal | None = None
    priceNet: Decimal | None = None
    priceGross: Decimal | None = None
    taxRate: Decimal | None = None
    status: int | None = None


class CheckAccount(msgspec.Struct, frozen=True):
    """``CheckAccount``: a bank account (online/offline) or a cash register; status 0 archived,
    100 active (§3.1)."""

    id: int
    name: str | None = None
    type: str | None = None
    currency: str | None = None
    status: int | None = None
    iban: str | None = None
    accountingNumber: str | None = None
    defaultAccount: bool | None = None


class CheckAccountTransaction(msgspec.Struct, frozen=True):
    """``CheckAccountTransaction``; ``amount`` is signed, a string or a number (Q5)."""

    id: int
    valueDate: dt.datetime | None = None
    entryDate: dt.datetime | None = None
    amount: Decimal | None = None
    paymtPurpose: str | None = None
    payeePayerName: str | None = None
    payeePayerAcctNo: str | None = None
    checkAccount: Ref | None = None
    status: int | None = None
    update: dt.datetime | None = None


class CheckAccountTransactionLog(msgspec.Struct, frozen=True):
    """A booking of a transaction against a document; ``amountPaid`` carries the sign of the
    transaction (Q26) and arrives as a number (Q4)."""

    id: int
    checkAccountTransaction: Ref | None = None
    object: Ref | None = None
    amountPaid: Decimal | None = None
    bookingDate: dt.datetime | None = None
    fromStatus: int | None = None
    toStatus: int | None = None
