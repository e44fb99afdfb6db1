"""A month of bank statements for reconciliation, on top of the demo company, whose correct
matching is known (:data:`EXPECTED`).

It adds open invoices (numbers RE-1101 …), a credit note, a supplier receipt and the unbooked
transactions of November 2026 that pay them in the shapes of real statements: a collective
payment over three invoices, two instalments, a cash discount (Skonto), a foreign transfer
short by its fees (charge code SHA: the payee bears its charges), a refund against the credit
note, a supplier payment, a private withdrawal, the bank's fee, a tax payment and purposes with
typos ("RE-11O6", "Re.-Nr. 1107").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo import build_demo
from sevdesk_mcp.fake.demo_common import BANK_ACCOUNT_ID, OWNER, TAX_RULE_DOMESTIC, at
from sevdesk_mcp.fake.documents import OPEN, CreditNote, Invoice
from sevdesk_mcp.fake.models import CheckAccountTransaction, Contact
from sevdesk_mcp.fake.receipts import Voucher
from sevdesk_mcp.fake.store import Store

OPEN_VOUCHER: Final = 100
# (number, customer number, gross, day, cash discount %, days)
INVOICES: Final = (
    ("RE-1101", "1008", "1190.00", date(2026, 11, 2), 0, 0),
    ("RE-1102", "1008", "595.00", date(2026, 11, 3), 0, 0),
    ("RE-1103", "1008", "297.50", date(2026, 11, 4), 0, 0),
    ("RE-1104", "1003", "2400.00", date(2026, 10, 20), 0, 0),
    ("RE-1105", "1006", "1428.00", date(2026, 11, 10), 2, 10),
    ("RE-1106", "1009", "833.00", date(2026, 11, 5), 0, 0),
    ("RE-1107", "1001", "3570.00", date(2026, 11, 6), 0, 0),
)


@dataclass(slots=True)
class StatementMonth:
    """Ids of the month: documents by number, and per transaction the expected bookings
    ``[(kind, document id, amount)]`` (empty for private, fees and taxes)."""

    documents: dict[str, int] = field(default_factory=dict)
    expected: dict[int, list[tuple[str, int, Decimal]]] = field(default_factory=dict)
    transactions: dict[str, int] = field(default_factory=dict)


def _contact(store: Store, number: str) -> Contact:
    return next(c for c in store.contacts if c.customerNumber == number)


def _invoice(store: Store, row: tuple[str, str, str, date, int, int]) -> Invoice:
    number, customer, gross, day, percent, days = row
    contact = _contact(store, customer)
    invoice = Invoice(
        invoiceNumber=number, invoiceDate=at(day, 9), contact=contact.ref(), contactPerson=OWNER,
        status=OPEN, sumGross=Decimal(gross), sumNet=(Decimal(gross) / Decimal("1.19")).quantize(
            Decimal("0.01")), taxRule=TAX_RULE_DOMESTIC, timeToPay=14, discount=Decimal(percent),
        discountTime=days or None, header=f"Rechnung {number}", addressName=contact.name,
        enshrined=at(day, 10), sendType="VPDF", sendDate=at(day, 10),
    )  # fmt: skip
    invoice.sumTax = invoice.sumGross - invoice.sumNet
    invoice.sumGrossAccounting = invoice.sumGross
    return store.add(store.invoices, invoice)


def _tx(store: Store, day: date, amount: str, who: tuple[str, str, str | None]) -> int:
    payer, purpose, iban = who
    tx = CheckAccountTransaction(
        valueDate=at(day, 12), entryDate=at(day, 12), amount=Decimal(amount), payeePayerName=payer,
        paymtPurpose=purpose, payeePayerAcctNo=iban, checkAccount=store.check_accounts.get(
            BANK_ACCOUNT_ID).ref(),
    )  # fmt: skip
    return store.add(store.transactions, tx).id


def add_statement_month(fake: FakeSevdesk) -> StatementMonth:
    """Add the month's documents and transactions to ``fake`` (the demo company).

    :returns: their ids and the known matching.
    """
    store, month = fake.store, StatementMonth()
    for row in INVOICES:
        month.documents[row[0]] = _invoice(store, row).id
    note = CreditNote(
        creditNoteNumber="GU-1101", creditNoteDate=at(date(2026, 11, 12), 9),
        contact=_contact(store, "1002").ref(), contactPerson=OWNER, status=200,
        sumGross=Decimal("119.00"), sumNet=Decimal("100.00"), sumTax=Decimal("19.00"),
        taxRule=TAX_RULE_DOMESTIC, enshrined=at(date(2026, 11, 12), 10),
    )  # fmt: skip
    month.documents["GU-1101"] = store.add(store.credit_notes, note).id
    voucher = Voucher(
        voucherDate=at(date(2026, 11, 9), 9), supplierName="Holzhandel Breisgau GmbH",
        description="HB-2026-4471", status=OPEN_VOUCHER, sumGross=Decimal("1785.00"),
        sumNet=Decimal("1500.00"), sumTax=Decimal("285.00"), creditDebit="C",
    )  # fmt: skip
    month.documents["HB-2026-4471"] = store.add(store.vouchers, voucher).id
    _statements(store, month)
    return month


def _statements(store: Store, month: StatementMonth) -> None:
    docs = month.documents
    vollmer, hotel = _contact(store, "1008"), _contact(store, "1003")
    rows = [
        ("collective", date(2026, 11, 16), "2082.50", vollmer, "Sammelueberweisung RE-1101, RE 1102, Re.-Nr. 1103",  # noqa: E501
         [("invoice", "RE-1101", "1190.00"), ("invoice", "RE-1102", "595.00"), ("invoice", "RE-1103", "297.50")]),  # noqa: E501
        ("instalment_1", date(2026, 11, 3), "800.00", hotel, "Rate 1/3 RE-1104",
         [("invoice", "RE-1104", "800.00")]),
        ("instalment_2", date(2026, 11, 20), "800.00", hotel, "Rate 2/3 Rechnung 1104",
         [("invoice", "RE-1104", "800.00")]),
        ("cash_discount", date(2026, 11, 17), "1399.44", _contact(store, "1006"),
         "RE-1105 abzgl. 2% Skonto", [("invoice", "RE-1105", "1399.44")]),
        ("fees", date(2026, 11, 19), "818.00", _contact(store, "1009"), "INV RE-11O6 SWIFT SHA",
         [("invoice", "RE-1106", "818.00")]),
        ("typo", date(2026, 11, 23), "3570.00", _contact(store, "1001"), "Re.-Nr. 1l07 Danke",
         [("invoice", "RE-1107", "3570.00")]),
        ("refund", date(2026, 11, 18), "-119.00", _contact(store, "1002"), "Gutschrift GU-1101",
         [("credit_note", "GU-1101", "119.00")]),
    ]  # fmt: skip
    for key, day, amount, who, purpose, expected in rows:
        ident = _tx(store, day, amount, (who.name or "", purpose, who.bankAccount))
        month.transactions[key] = ident
        month.expected[ident] = [(k, docs[n], Decimal(a)) for k, n, a in expected]
    others = [
        ("supplier", date(2026, 11, 24), "-1785.00", "Holzhandel Breisgau GmbH", "Rg. HB-2026-4471"),  # noqa: E501
        ("private", date(2026, 11, 25), "-500.00", "Lena Sonnenberg", "Privatentnahme November"),
        ("bank_fee", date(2026, 11, 26), "-9.90", "Dreisambank eG", "Entgelt Kartenzahlungen"),
        ("taxes", date(2026, 11, 10), "-1834.12", "Finanzamt Freiburg-Stadt", "USt-VA 10/2026"),
    ]  # fmt: skip
    for key, day, amount, who_name, purpose in others:
        ident = _tx(store, day, amount, (who_name, purpose, None))
        month.transactions[key] = ident
        month.expected[ident] = []
    supplier = month.transactions["supplier"]
    month.expected[supplier] = [("voucher", docs["HB-2026-4471"], Decimal("1785.00"))]


def build_statement_demo() -> tuple[FakeSevdesk, StatementMonth]:
    """:returns: the demo company with the month of statements added."""
    fake = build_demo()
    return fake, add_statement_month(fake)
