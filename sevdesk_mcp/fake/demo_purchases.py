"""The demo company's receipts (vouchers): rent, material, energy, fees, cash purchases.

``creditDebit`` C is an expense, D revenue (§3.2). ``description`` is the receipt number
(Q39). The booking account lives on each position (Q43). Most use tax rule 9; the Irish
software licence is reverse charge (rule 14, rate 0); cash revenue uses rule 1. Paid receipts
yield payments with the sign of the transaction: expenses negative, revenue positive (Q26).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.demo_common import OWNER, Payment, at, workday
from sevdesk_mcp.fake.demo_contacts import DemoContacts
from sevdesk_mcp.fake.documents import PAID, VOUCHER_DRAFT
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos, booked_position
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import Ref

YEAR: Final = 2026
UNPAID: Final = 100
BANK: Final = "bank"
REGISTER: Final = "register"
RENT_NET: Final = Decimal("1450.00")

Position = tuple[str, int, str, str]  # (account number, tax rate, net, comment)


@dataclass(frozen=True, slots=True)
class Receipt:
    """One receipt of the demo; ``paid_by`` is ``bank``, ``register`` or ``""`` (unpaid)."""

    month: int
    day: int
    supplier: str  # a contact key, or a bare supplier name
    number: str
    status: int
    positions: tuple[Position, ...]
    paid_by: str = ""
    pay_after_days: int = 7
    credit_debit: str = "C"
    tax_rule: int = 9


def _rent(month: int) -> Receipt:
    comment = f"Werkstattmiete {month:02d}/{YEAR}"
    pay_after = 19 if month == 1 else 4  # January's rent after the first customer payment
    return Receipt(month, 1, "gewerbehof", f"DM-{YEAR}-{month:02d}", PAID,
                   (("4210", 19, str(RENT_NET), comment),), BANK, pay_after)  # fmt: skip


RECEIPTS: Final = (
    *(_rent(month) for month in range(1, 12)),
    Receipt(1, 9, "Werkstattladen (Barverkauf)", "KB-2026-01-09", PAID,
            (("8400", 19, "420.17", "Barverkauf Schneidebretter und Pflegeöl"),), REGISTER, 0,
            "D", 1),
    Receipt(1, 20, "Badische Handwerkerversicherung VVaG", "BHV-2026-1187", PAID,
            (("4360", 0, "1284.00", "Betriebshaftpflicht 2026"),), BANK, 10),
    Receipt(2, 10, "saegewerk", "SK-26-0142", PAID,
            (("3400", 19, "3860.00", "Schnittholz Eiche 52 mm, 2,4 m³"),), BANK, 12),
    Receipt(3, 4, "planwerk", "PW-IE-2026-031", PAID,
            (("4806", 0, "1190.00", "CAD-Lizenz Jahresabo"),), BANK, 6, tax_rule=14),
    Receipt(3, 16, "beschlag", "BHR-77120", PAID,
            (("3400", 19, "642.30", "Topfbänder, Auszüge, Griffe"),), BANK, 9),
    Receipt(4, 2, "energie", "EVB-2026-H1", PAID,
            (("4240", 19, "780.00", "Abschlag Strom 1. Halbjahr"),), BANK, 5),
    Receipt(5, 13, "Gasthaus Adler", "A-5521", PAID,
            (("4650", 19, "96.40", "Bewirtung Kundengespräch Faller"),), REGISTER, 0),
    Receipt(6, 8, "saegewerk", "SK-26-0388", PAID,
            (("3400", 19, "4215.50", "Schnittholz Nussbaum und Eiche"),), BANK, 14),
    Receipt(7, 1, "telekom", "NST-0726-4471", PAID,
            (("4920", 19, "39.90", "Festnetz 07/2026"), ("4925", 19, "44.90", "Glasfaser 07/2026")),
            BANK, 10),
    Receipt(7, 31, "Dreisambank eG", "KA-2026-07", PAID,
            (("4970", 0, "38.70", "Kontoführung 1. Halbjahr"),), BANK, 0),
    Receipt(8, 14, "Tankstelle Glottertal", "TG-88231", PAID,
            (("4530", 19, "71.26", "Diesel Transporter"),), REGISTER, 0),
    Receipt(9, 9, "Papeterie am Martinstor", "PM-2209", PAID,
            (("4930", 19, "23.45", "Ordner, Druckerpapier"),), REGISTER, 0),
    Receipt(9, 21, "beschlag", "BHR-79455", PAID,
            (("3400", 19, "1188.00", "Schubkastensysteme"),), BANK, 8),
    Receipt(10, 1, "energie", "EVB-2026-H2", PAID,
            (("4240", 19, "810.00", "Abschlag Strom 2. Halbjahr"),), BANK, 5),
    Receipt(10, 17, "Wochenmarkt Münsterplatz (Barverkauf)", "KB-2026-10-17", PAID,
            (("8300", 7, "186.92", "Barverkauf Brennholz"),), REGISTER, 0, "D", 1),
    Receipt(10, 26, "saegewerk", "SK-26-0711", UNPAID,
            (("3400", 19, "2980.00", "Schnittholz Buche"),)),
    Receipt(11, 6, "Steuerkanzlei Wehrle", "STK-2026-311", UNPAID,
            (("4950", 19, "740.00", "Jahresabschluss-Vorbereitung"),)),
    Receipt(11, 12, "Werkzeughandel Rombach", "WR-105533", UNPAID,
            (("0480", 19, "649.00", "Oberfräse"),)),
    Receipt(11, 18, "Privatkundin Restholz", "RH-2026-04", UNPAID,
            (("8400", 19, "120.00", "Restholz Eiche"),), credit_debit="D", tax_rule=1),
    Receipt(11, 19, "Fachbuchhandlung Holz", "FB-4410", VOUCHER_DRAFT,
            (("4940", 7, "58.88", "Fachbuch Oberflächen"),)),
    Receipt(11, 23, "Holzmesse Service GmbH", "HMS-26-0090", VOUCHER_DRAFT,
            (("4900", 19, "1350.00", "Standfläche Holzmesse"),)),
    Receipt(11, 25, "Postfiliale Herdern", "PH-2026-1125", VOUCHER_DRAFT,
            (("4910", 0, "17.40", "Porto Pakete"),)),
)  # fmt: skip


@dataclass(slots=True)
class Purchases:
    """The payments of the paid receipts and the id of the reverse-charge receipt."""

    payments: list[Payment]
    reverse_charge_id: int = 0


def _positions(voucher: Voucher, receipt: Receipt) -> list[VoucherPos]:
    positions: list[VoucherPos] = []
    for number, rate, net, comment in receipt.positions:
        pos = booked_position(voucher, number, Decimal(net), Decimal(rate), comment)
        pos.create = pos.update = voucher.create
        positions.append(pos)
    return positions


def _voucher(store: Store, contacts: DemoContacts, receipt: Receipt) -> Voucher:
    day = workday(date(YEAR, receipt.month, receipt.day))
    contact = contacts.orgs.get(receipt.supplier)
    name = contact.name if contact else receipt.supplier
    voucher = Voucher(
        voucherDate=at(day),
        deliveryDate=at(day),
        paymentDeadline=at(day + timedelta(days=14)),
        supplier=contact.ref() if contact else None,
        supplierName=name,
        supplierNameAtSave=name,
        description=receipt.number,
        creditDebit=receipt.credit_debit,
        taxRule=Ref("TaxRule", receipt.tax_rule),
        createUser=OWNER,
        status=receipt.status,
        create=at(day, 16),
        update=at(day, 16),
    )
    store.vouchers.insert(voucher)
    positions = [store.voucher_positions.insert(p) for p in _positions(voucher, receipt)]
    voucher.set_sums(positions)
    return voucher


def build_purchases(store: Store, contacts: DemoContacts) -> Purchases:
    """Create the receipts of :data:`RECEIPTS`.

    :returns: the payments of the paid ones and notable ids.
    """
    purchases = Purchases([])
    for receipt in sorted(RECEIPTS, key=lambda r: (r.month, r.day)):
        voucher = _voucher(store, contacts, receipt)
        if receipt.tax_rule == 14:
            purchases.reverse_charge_id = voucher.id
        if receipt.status != PAID:
            continue
        day = workday(voucher.voucherDate.date() + timedelta(days=receipt.pay_after_days))
        sign = Decimal(-1) if receipt.credit_debit == "C" else Decimal(1)
        voucher.paidAmount, voucher.payDate = voucher.sumGross, at(day, 12)
        voucher.update = at(day, 12)
        contact = contacts.orgs.get(receipt.supplier)
        purchases.payments.append(
            Payment(day, sign * voucher.sumGross, voucher.ref(), voucher.supplierName or "",
                    f"{receipt.number} {receipt.positions[0][3]}",
                    contact.bankAccount if contact else None, receipt.paid_by == REGISTER)
        )  # fmt: skip
    return purchases
