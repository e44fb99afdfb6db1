"""A year of books with each case of the profit and loss (EÜR) whose figures are known by
construction: :func:`build_euer_case`.

One small workshop (bookkeeping 2.0, SKR03) in 2026, named as a GmbH (:data:`GMBH`) or as a
sole proprietor (:data:`SOLE`), so the same books give the overview and the EÜR. It holds:
sales at 19 % and 7 %, a tax-free export, an unpaid December invoice; rent; a GWG at 649 EUR
net bought in November and unpaid; a laptop at 1,400 EUR net booked as an expense; a business
meal at two rates (2026: food 7 %, drinks 19 %); a gift over 50 EUR and one under; VAT paid to
the tax office, one payment in January 2026 for December 2025 and one in January 2027 for
December 2026; a VAT refund from the tax office. Every document is listed in :data:`SALES`
and :data:`RECEIPTS`; the expected figures are worked out by hand in ``tests/tax``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.documents import OPEN, PAID, Invoice, InvoicePos
from sevdesk_mcp.fake.receipts import Voucher, booked_position
from sevdesk_mcp.fake.wire import Ref

EUER_TOKEN: Final = "3e9a1c7b5d2f40e68a1c3e5f7b9d1f20"  # noqa: S105 - a test token
TODAY: Final = date(2027, 1, 20)
GMBH: Final = "Werkstatt Adler GmbH"
SOLE: Final = "Jana Adler Werkstatt e.K."
RECEIPT_PAID: Final = 1000
RECEIPT_OPEN: Final = 100


@dataclass(frozen=True, slots=True)
class Sale:
    """An invoice: its lines are (net, rate)."""

    number: str
    day: date
    rule: int
    lines: tuple[tuple[str, int], ...]
    paid_on: date | None = None


@dataclass(frozen=True, slots=True)
class Receipt:
    """A receipt: its lines are (SKR03 account, net, rate, text); ``D`` is revenue."""

    number: str
    day: date
    lines: tuple[tuple[str, str, int, str], ...]
    paid_on: date | None = None
    credit_debit: str = "C"
    rule: int = 9


SALES: Final = (
    Sale("RE-E-01", date(2026, 3, 10), 1, (("10000.00", 19),), date(2026, 3, 20)),
    Sale("RE-E-02", date(2026, 11, 15), 1, (("2000.00", 7),), date(2026, 12, 5)),
    Sale("RE-E-03", date(2026, 12, 20), 1, (("1000.00", 19),)),
    Sale("RE-E-04", date(2026, 6, 10), 2, (("3000.00", 0),), date(2026, 6, 30)),
)
RECEIPTS: Final = (
    Receipt("ER-E-01", date(2026, 2, 1), (("4210", "1000.00", 19, "Werkstattmiete 02/2026"),),
            date(2026, 2, 3)),
    Receipt("ER-E-02", date(2026, 11, 12), (("0480", "649.00", 19, "Oberfräse"),)),
    Receipt("ER-E-03", date(2026, 9, 1), (("4980", "1400.00", 19, "Laptop"),), date(2026, 9, 5)),
    Receipt("ER-E-04", date(2026, 5, 13),
            (("4650", "120.00", 7, "Bewirtung Kunde Faller: Speisen"),
             ("4650", "40.00", 19, "Bewirtung Kunde Faller: Getränke")), date(2026, 5, 13)),
    Receipt("ER-E-05", date(2026, 12, 1), (("4630", "80.00", 19, "Präsentkorb Kunde Faller"),),
            date(2026, 12, 1)),
    Receipt("ER-E-06", date(2026, 12, 2), (("4630", "30.00", 19, "Fachbuch Kundin Weber"),),
            date(2026, 12, 2)),
    Receipt("FA-2025-12", date(2026, 1, 9), (("1780", "700.00", 0, "USt 12/2025"),),
            date(2026, 1, 9), rule=16),
    Receipt("FA-2026-06", date(2026, 7, 10), (("1780", "1200.00", 0, "USt 06/2026"),),
            date(2026, 7, 10), rule=16),
    Receipt("FA-2026-12", date(2027, 1, 8), (("1780", "850.00", 0, "USt 12/2026"),),
            date(2027, 1, 8), rule=16),
    Receipt("FA-2025-J", date(2026, 4, 15), (("1790", "300.00", 0, "Erstattung USt 2025"),),
            date(2026, 4, 15), credit_debit="D", rule=22),
)  # fmt: skip


def build_euer_case(name: str = SOLE) -> tuple[FakeSevdesk, dict[str, int]]:
    """:returns: a fresh fake of the company ``name`` holding the year, and the ids of its
    documents and receipts by number."""
    fake = FakeSevdesk(EUER_TOKEN, today=TODAY)
    fake.store.client.name = name
    ids = {s.number: _sale(fake, s) for s in SALES}
    ids.update({r.number: _receipt(fake, r) for r in RECEIPTS})
    return fake, ids


def _sale(fake: FakeSevdesk, sale: Sale) -> int:
    store = fake.store
    doc = store.add(store.invoices, Invoice(invoiceDate=at(sale.day), header=sale.number))
    doc.taxRule, doc.status = Ref("TaxRule", sale.rule), OPEN
    doc.set_number(sale.number)
    doc.deliveryDate = at(sale.day)
    positions = []
    for number, (net, rate) in enumerate(sale.lines, 1):
        pos = InvoicePos(invoice=doc.ref())
        pos.name, pos.price, pos.taxRate = "Leistung", Decimal(net), Decimal(rate)
        pos.positionNumber = number
        pos.compute()
        positions.append(store.add(store.invoice_positions, pos))
    doc.set_sums(positions)
    if sale.paid_on is not None:
        doc.status, doc.paidAmount, doc.payDate = PAID, doc.sumGross, at(sale.paid_on, 12)
    return doc.id


def _receipt(fake: FakeSevdesk, receipt: Receipt) -> int:
    store = fake.store
    voucher = Voucher(
        voucherDate=at(receipt.day),
        deliveryDate=at(receipt.day),
        supplierName="Lieferant",
        description=receipt.number,
        creditDebit=receipt.credit_debit,
        taxRule=Ref("TaxRule", receipt.rule),
        status=RECEIPT_OPEN,
    )
    store.add(store.vouchers, voucher)
    positions = []
    for number, net, rate, text in receipt.lines:
        pos = booked_position(voucher, number, Decimal(net), Decimal(rate), text)
        positions.append(store.add(store.voucher_positions, pos))
    voucher.set_sums(positions)
    if receipt.paid_on is not None:
        voucher.status, voucher.paidAmount = RECEIPT_PAID, voucher.sumGross
        voucher.payDate = at(receipt.paid_on, 12)
    return voucher.id
