"""Stored receipts (vouchers) and their positions (``docs/sevdesk-api.md`` §2.7, §5.3).

Position sums are rounded half-up to the cent; a voucher's sums are the sums of its positions.
Statuses: 50 draft, 100 unpaid, 150 transferred, 750 partially paid, 1000 paid (§3.1).

Bookkeeping 1.0 (§3.4, §3.5): a receipt carries ``taxType`` instead of ``taxRule``, a position
``accountingType`` instead of ``accountDatev``. :func:`as_bookkeeping_1` turns an account (the
demo's, say) into a 1.0 account.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Final

from sevdesk_mcp.fake import accounts, legacy
from sevdesk_mcp.fake.documents import HUNDRED, VOUCHER_DRAFT, ZERO, cents
from sevdesk_mcp.fake.wire import Ref, Row
from sevdesk_mcp.jsontypes import JsonValue

if TYPE_CHECKING:
    from sevdesk_mcp.fake.store import Store

_ALL_RATES: Final = frozenset({Decimal(0), Decimal(7), Decimal(19)})
LEGACY_TAX_RATES: Final[dict[str, frozenset[Decimal] | None]] = {
    "default": _ALL_RATES,  # the rates of tax rules 1 and 9, which replace it (§3.4)
    "eu": _ALL_RATES,  # rule 3
    "noteu": frozenset({ZERO}),  # rule 17
    "custom": None,  # a tax set decides; not modelled, any rate
    "ss": frozenset({ZERO}),  # rule 11
}
TAX_TYPE_OF_RULE: Final = {1: "default", 9: "default", 3: "eu", 17: "noteu", 11: "ss"}


@dataclass(kw_only=True, slots=True)
class VoucherPos(Row):
    """A receipt position: the booking account lives here, not on the voucher (Q43):
    ``accountDatev`` on bookkeeping 2.0, ``accountingType`` on positions saved under 1.0 (§3.5).
    """

    OBJECT_NAME: ClassVar[str] = "VoucherPos"
    NULLS: ClassVar[tuple[str, ...]] = (
        "sum",
        "cateringTaxRate",
        "createNextPart",
        "estimatedAccountingType",
    )
    CONSTANTS: ClassVar[tuple[tuple[str, JsonValue], ...]] = (
        ("assetMemoValue", "0"),
        ("isGwg", "0"),
        ("cateringTip", "0"),
        ("isPercentage", "1"),
        ("discountedValue", "0"),
    )
    READ_ONLY: ClassVar[frozenset[str]] = frozenset({"voucher"})

    voucher: Ref
    accountDatev: Ref | None = None
    accountingType: Ref | None = None  # bookkeeping 1.0; legacy positions lack accountDatev
    taxRate: Decimal = ZERO
    net: bool = True
    isAsset: bool = False
    sumNet: Decimal = ZERO
    sumTax: Decimal = ZERO
    sumGross: Decimal = ZERO
    sumNetAccounting: Decimal = ZERO
    sumTaxAccounting: Decimal = ZERO
    sumGrossAccounting: Decimal = ZERO
    comment: str | None = None

    def compute(self) -> None:
        """Set tax, gross and the accounting copies from ``sumNet`` and ``taxRate``."""
        self.sumTax = cents(self.sumNet * self.taxRate / HUNDRED)
        self.sumGross = self.sumNet + self.sumTax
        self.sumNetAccounting = self.sumNet
        self.sumTaxAccounting = self.sumTax
        self.sumGrossAccounting = self.sumGross


@dataclass(kw_only=True, slots=True)
class Voucher(Row):
    """A receipt. ``creditDebit`` C is an expense, D revenue (§3.2); ``description`` is the
    receipt number (Q39). It carries both ``recurringIntervall`` and ``recurringInterval`` (Q11).
    """

    OBJECT_NAME: ClassVar[str] = "Voucher"
    NUMBERS: ClassVar[frozenset[str]] = frozenset({"paidAmount"})
    NULLS: ClassVar[tuple[str, ...]] = (
        "resultDisdar",
        "recurringIntervall",
        "recurringInterval",
        "recurringStartDate",
        "recurringNextVoucher",
        "recurringLastVoucher",
        "recurringEndDate",
        "sendType",
        "inSource",
        "accountingSpecialCase",
        "taxmaroStockAccount",
        "costCentre",
        "propertyForeignCurrencyDeadline",
        "propertyExchangeRate",
        "taxSet",
    )
    CONSTANTS: ClassVar[tuple[tuple[str, JsonValue], ...]] = (
        ("hidden", "0"),
        ("tip", "0"),
        ("mileageRate", "0"),
        ("selectedForPaymentFile", "0"),
        ("sumDiscounts", "0"),
        ("sumDiscountNet", "0"),
        ("sumDiscountGross", "0"),
        ("sumNetForeignCurrency", "0"),
        ("sumTaxForeignCurrency", "0"),
        ("sumGrossForeignCurrency", "0"),
        ("sumDiscountNetForeignCurrency", "0"),
        ("sumDiscountGrossForeignCurrency", "0"),
        ("sumDiscountsForeignCurrency", "0"),
    )
    READ_ONLY: ClassVar[frozenset[str]] = frozenset(
        {"status", "enshrined", "paidAmount", "payDate"}
    )

    createUser: Ref | None = None
    voucherDate: datetime
    supplier: Ref | None = None
    supplierName: str | None = None
    supplierNameAtSave: str | None = None
    description: str | None = None
    document: Ref | None = None
    payDate: datetime | None = None
    status: int = VOUCHER_DRAFT
    currency: str = "EUR"
    sumNet: Decimal = ZERO
    sumTax: Decimal = ZERO
    sumGross: Decimal = ZERO
    sumNetAccounting: Decimal = ZERO
    sumTaxAccounting: Decimal = ZERO
    sumGrossAccounting: Decimal = ZERO
    showNet: bool = True
    paidAmount: Decimal = ZERO
    taxType: str | None = None
    creditDebit: str = "C"
    voucherType: str = "VOU"
    enshrined: datetime | None = None
    iban: str | None = None
    vatNumber: str | None = None
    paymentDeadline: datetime | None = None
    deliveryDate: datetime | None = None
    deliveryDateUntil: datetime | None = None
    taxRule: Ref | None = None

    def set_sums(self, positions: Iterable[VoucherPos]) -> None:
        """Set the sums and their accounting copies to the sums of ``positions``."""
        items = list(positions)
        self.sumNet = sum((p.sumNet for p in items), ZERO)
        self.sumTax = sum((p.sumTax for p in items), ZERO)
        self.sumGross = sum((p.sumGross for p in items), ZERO)
        self.sumNetAccounting = self.sumNet
        self.sumTaxAccounting = self.sumTax
        self.sumGrossAccounting = self.sumGross


def as_bookkeeping_1(store: Store) -> None:
    """Make ``store`` a bookkeeping 1.0 account: the version says 1.0, and its receipts take the
    1.0 shape where the documented replacements reach: ``taxType`` for tax rules 1, 9, 3, 17,
    11; ``accountingType`` for accounts whose SKR03 number an accounting type has. Receipts
    beyond that keep what they were saved with.
    """
    store.version = "1.0"
    by_number = {t.skr03: t.id for t in legacy.ACCOUNTING_TYPES}
    for voucher in store.vouchers:
        tax_type = TAX_TYPE_OF_RULE.get(voucher.taxRule.id) if voucher.taxRule else None
        if tax_type is not None:
            voucher.taxType, voucher.taxRule = tax_type, None
    for position in store.voucher_positions:
        account = (
            accounts.account_by_id(position.accountDatev.id, store.chart, store.own_accounts)
            if position.accountDatev
            else None
        )
        ident = by_number.get(account.number) if account else None
        if ident is not None:
            position.accountingType = Ref("AccountingType", ident)
            position.accountDatev = None


def booked_position(
    voucher: Voucher, number: str, net: Decimal, rate: Decimal, comment: str | None
) -> VoucherPos:
    """:returns: a position of ``voucher`` on the SKR03 account ``number`` with its sums
    computed (for the fake's own builders).

    :raises KeyError: if the fake has no account ``number``.
    """
    account = accounts.account_by_number(number)
    if account is None:
        raise KeyError(number)
    return position_on(voucher, account, net, rate, comment)


def position_on(
    voucher: Voucher, account: accounts.Account, net: Decimal, rate: Decimal, comment: str | None
) -> VoucherPos:
    """:returns: a position of ``voucher`` on ``account`` (of any chart) with its sums computed."""
    pos = VoucherPos(
        voucher=voucher.ref(),
        accountDatev=Ref("AccountDatev", account.id),
        taxRate=rate,
        sumNet=net,
        comment=comment,
    )
    pos.compute()
    return pos
