"""The fake's books as DATEV bookings (SKR03, Sachkontenlänge 4): what its DATEV export holds.

One :class:`Posting` per line of the Buchungsstapel; the amount is always positive and the side
(S/H) is that of ``konto``:

- an invoice: the debtor (Konto) debited (S) against the revenue account of its tax rule and
  rate (Gegenkonto), one line per revenue account; a credit note the other way round (H); a
  cancellation invoice (SR, negated positions) also H, by the sign of its sums;
- a receipt: each position's booking account (Konto) against the creditor, S for an expense
  (``creditDebit`` C), H for revenue (D);
- a bank booking (transaction log): the bank or register account (Konto) against the
  document's debtor or creditor, S for money in, H for money out.

Revenue accounts 8400, 8300, 8125, 8120, 8320, 8336, 8337 and 8338, and the purchase accounts
3300 and 3400, are automatic accounts in DATEV's SKR03: they carry their tax themselves, so
the line has no BU-Schlüssel. Elsewhere the classic keys are written: 3 / 2 / 5 output tax at
19 / 7 / 16 %, 9 / 8 / 7 input tax at 19 / 7 / 16 % (tax rule 9). Reverse-charge and
acquisition keys are not modelled: those lines carry none. Personal accounts have five
digits: debtors from 10001, creditors from 70001, numbered in the order the fake holds them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake import accounts, legacy
from sevdesk_mcp.fake.documents import DRAFT, VOUCHER_DRAFT, ZERO, CreditNote, DocBase, Invoice
from sevdesk_mcp.fake.models import CheckAccountTransactionLog
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import BERLIN, Ref

DEBTORS: Final = 10000
CREDITORS: Final = 70000
BANK: Final = "1200"
REGISTER: Final = "1000"
FALLBACK_EXPENSE: Final = "4900"
DOMESTIC_RULES: Final = frozenset({1})
INPUT_TAX_RULES: Final = frozenset({9})
REVENUE_BY_RULE: Final = {
    2: "8120",  # exports, §4 Nr. 1a UStG
    3: "8125",  # intra-EU supplies, §4 Nr. 1b UStG
    4: "8100",  # tax-free, §4 Nr. 8 ff. UStG
    5: "8337",  # the customer owes the tax, §13b UStG
    17: "8338",  # not taxable in Germany
    18: "8320",  # OSS: taxable in another EU state
    19: "8320",
    20: "8320",
    21: "8336",  # EU services, the customer owes the tax
}
DOMESTIC_REVENUE: Final = {Decimal(19): "8400", Decimal(7): "8300"}
OTHER_REVENUE: Final = "8200"
OUTPUT_TAX_KEYS: Final = {Decimal(19): "3", Decimal(7): "2", Decimal(16): "5"}
INPUT_TAX_KEYS: Final = {Decimal(19): "9", Decimal(7): "8", Decimal(16): "7"}
AUTOMATIC_PURCHASES: Final = frozenset({"3300", "3400"})


@dataclass(frozen=True, slots=True)
class Posting:
    """One line of the Buchungsstapel."""

    amount: Decimal
    side: str
    konto: str
    gegenkonto: str
    bu: str
    day: date
    beleg: str
    text: str


def postings(store: Store, start: date, end: date) -> list[Posting]:
    """:returns: the bookings of ``start``..``end`` (Berlin days): documents, receipts, then
    bank bookings, each in the order the fake holds them."""
    parties = _Parties(store)
    found = [p for doc in documents(store, start, end) for p in _document(store, doc, parties)]
    found += [p for v in receipts(store, start, end) for p in _receipt(store, v, parties)]
    for entry in store.transaction_logs:
        if start <= entry.bookingDate.astimezone(BERLIN).date() <= end:
            found += _bank(store, entry, parties)
    return found


def documents(store: Store, start: date, end: date) -> list[DocBase]:
    """:returns: the finalized invoices and credit notes dated ``start``..``end``."""
    docs: list[DocBase] = [*store.invoices, *store.credit_notes]
    docs = [d for d in docs if getattr(d, "invoiceType", None) != "WKR"]  # templates, no sales
    return [d for d in docs if d.status != DRAFT and start <= _day(d) <= end]


def receipts(store: Store, start: date, end: date) -> list[Voucher]:
    """:returns: the receipts that are no drafts, dated ``start``..``end``."""
    return [
        v
        for v in store.vouchers
        if v.status != VOUCHER_DRAFT and start <= v.voucherDate.astimezone(BERLIN).date() <= end
    ]


def _day(doc: DocBase) -> date:
    return doc.date.astimezone(BERLIN).date()


class _Parties:
    """Debtor and creditor numbers of the fake's contacts and suppliers."""

    def __init__(self, store: Store) -> None:
        self._contacts = {c.id: n for n, c in enumerate(store.contacts, 1)}
        names = [_supplier_key(v) for v in store.vouchers]
        self._suppliers = {key: n for n, key in enumerate(dict.fromkeys(names), 1)}

    def debtor(self, contact: Ref | None) -> str:
        return str(DEBTORS + (self._contacts.get(contact.id, 0) if contact else 0))

    def creditor(self, voucher: Voucher) -> str:
        return str(CREDITORS + self._suppliers.get(_supplier_key(voucher), 0))

    def partner(self, voucher: Voucher) -> str:
        return self.creditor(voucher) if voucher.creditDebit == "C" else self.debtor(None)


def _supplier_key(voucher: Voucher) -> str:
    if voucher.supplier is not None:
        return f"contact {voucher.supplier.id}"
    return voucher.supplierName or ""


def _flip(side: str) -> str:
    return "H" if side == "S" else "S"


def _signed(amount: Decimal, side: str) -> tuple[Decimal, str]:
    """:returns: the positive amount and the side, flipped for a negative amount."""
    return (amount, side) if amount >= ZERO else (-amount, _flip(side))


def revenue_account(rule: int | None, rate: Decimal) -> tuple[str, str]:
    """:returns: the SKR03 revenue account and BU-Schlüssel of a sale by tax rule and rate."""
    if rule in REVENUE_BY_RULE:
        return REVENUE_BY_RULE[rule], ""
    if rule in DOMESTIC_RULES and rate in DOMESTIC_REVENUE:
        return DOMESTIC_REVENUE[rate], ""
    return OTHER_REVENUE, OUTPUT_TAX_KEYS.get(rate, "")


def _document(store: Store, doc: DocBase, parties: _Parties) -> list[Posting]:
    rule = doc.taxRule.id if doc.taxRule else None
    gross: defaultdict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for pos in store.positions_of(doc):
        if not pos.optional:
            gross[revenue_account(rule, pos.taxRate)] += pos.sumGross
    side = "H" if isinstance(doc, CreditNote) else "S"
    text = _contact_name(store, doc) or doc.header or ""
    out = []
    for (account, key), total in gross.items():
        if total != ZERO:
            amount, flag = _signed(total, side)
            debtor, number = parties.debtor(doc.contact), doc.number or ""
            out.append(Posting(amount, flag, debtor, account, key, _day(doc), number, text))
    return out


def _contact_name(store: Store, doc: DocBase) -> str | None:
    contact = store.contacts.find(doc.contact.id) if doc.contact else None
    if contact is None:
        return None
    return contact.name or " ".join(p for p in (contact.surename, contact.familyname) if p)


def expense_account(position: VoucherPos, store: Store) -> str:
    """:returns: the number of a receipt position's booking account in the chart of ``store``
    (or its own accounts; 2.0; 1.0 accounting types give their SKR03 number)."""
    if position.accountDatev is not None:
        found = accounts.account_by_id(position.accountDatev.id, store.chart, store.own_accounts)
        return found.number if found else FALLBACK_EXPENSE
    if position.accountingType is not None:
        ident = position.accountingType.id
        legacy_type = legacy.accounting_type_by_id(ident, store.own_accounting_types)
        return legacy_type.skr03 if legacy_type else FALLBACK_EXPENSE
    return FALLBACK_EXPENSE


def _input_tax_key(voucher: Voucher, account: str, rate: Decimal) -> str:
    deductible = (voucher.taxRule and voucher.taxRule.id in INPUT_TAX_RULES) or (
        voucher.taxRule is None and voucher.taxType == "default"
    )
    if not deductible or account in AUTOMATIC_PURCHASES:
        return ""
    return INPUT_TAX_KEYS.get(rate, "")


def _receipt(store: Store, voucher: Voucher, parties: _Parties) -> list[Posting]:
    side = "S" if voucher.creditDebit == "C" else "H"
    day = voucher.voucherDate.astimezone(BERLIN).date()
    out = []
    for pos in store.voucher_positions_of(voucher):
        if pos.sumGross == ZERO:
            continue
        account = expense_account(pos, store)
        amount, flag = _signed(pos.sumGross, side)
        key = _input_tax_key(voucher, account, pos.taxRate)
        text = voucher.supplierName or pos.comment or ""
        beleg = voucher.description or ""
        out.append(Posting(amount, flag, account, parties.partner(voucher), key, day, beleg, text))
    return out


def _bank(store: Store, entry: CheckAccountTransactionLog, parties: _Parties) -> list[Posting]:
    transaction = store.transactions.find(entry.checkAccountTransaction.id)
    account = store.check_accounts.find(transaction.checkAccount.id) if transaction else None
    target = _target(store, entry.object)
    if account is None or target is None or entry.amountPaid == ZERO:
        return []
    bank = account.accountingNumber or (REGISTER if account.type == "register" else BANK)
    if isinstance(target, Voucher):
        partner, number = parties.partner(target), target.description or ""
    else:
        partner, number = parties.debtor(target.contact), target.number or ""
    amount, flag = _signed(entry.amountPaid, "S")
    day = entry.bookingDate.astimezone(BERLIN).date()
    return [Posting(amount, flag, bank, partner, "", day, number, f"Zahlung {number}".strip())]


def _target(store: Store, ref: Ref) -> Invoice | CreditNote | Voucher | None:
    if ref.objectName == "Invoice":
        return store.invoices.find(ref.id)
    if ref.objectName == "CreditNote":
        return store.credit_notes.find(ref.id)
    if ref.objectName == "Voucher":
        return store.vouchers.find(ref.id)
    return None
