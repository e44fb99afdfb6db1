"""A tax year whose VAT figures are known by construction: :func:`build_tax_year`.

A small trading company (bookkeeping 2.0) with, in October 2026, at least one source for every
box of the advance VAT return sevDesk's tax rules can fill: sales at 19 %, 7 % and 16 %,
intra-EU supplies, exports, tax-free sales, services to EU businesses, sales not taxable in
Germany, §13b(5) sales, intra-EU acquisitions at 19 % and 7 %, reverse charge received from
the EU and from abroad (with and without input tax deduction), a machine transferred as
security (§13b(2) no. 2, boxes 73/74, named so in its position text), input tax; a credit note on a
September invoice, a September invoice paid in October (cash accounting), an unpaid October
invoice, a 0 % sale no box fits, a One-Stop-Shop sale and a draft. November and December add
sales for the EU sales list and the OSS figures. It is separate from the demo company, whose
documents other tests count.

Every document is listed in :data:`SPECS`; the expected figures are worked out by hand in
the tests and in docs/tax.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.documents import (
    DRAFT,
    OPEN,
    PAID,
    CreditNote,
    CreditNotePos,
    DocBase,
    Invoice,
    InvoicePos,
)
from sevdesk_mcp.fake.models import Contact
from sevdesk_mcp.fake.receipts import Voucher, booked_position
from sevdesk_mcp.fake.wire import Ref

TAX_YEAR_TOKEN: Final = "7a0c5e1f3b9d42c68e1f0a2b4c6d8e0f"  # noqa: S105 - a test token
TODAY: Final = date(2026, 12, 15)
COUNTRIES: Final = {"DE": 1, "AT": 2, "CH": 3, "FR": 4, "NL": 5, "IE": 9, "US": 8}

# key: (name, VAT id or None, country)
CONTACTS: Final = {
    "inland": ("Müller Möbel GmbH", None, "DE"),
    "bau": ("Bauunternehmung Kern GmbH", None, "DE"),
    "fr": ("Atelier Durand SARL", "FR12345678901", "FR"),
    "at": ("Wiener Design GmbH", "ATU12345678", "AT"),
    "eu_no_id": ("Studio Verde (no VAT id)", None, "NL"),
    "ch": ("Schreinerei Huber AG", None, "CH"),
    "us": ("Oak & Co. Inc.", None, "US"),
    "at_consumer": ("Anna Gruber", None, "AT"),
    "nl_consumer": ("Joost de Vries", None, "NL"),
}

Lines = tuple[tuple[str, int], ...]  # (net, rate) for documents
ReceiptLines = tuple[tuple[str, str, int], ...]  # (account, net, rate) for receipts


@dataclass(frozen=True, slots=True)
class Sale:
    """An invoice (or a credit note, ``note``) of the tax year."""

    number: str
    day: date
    contact: str
    rule: int
    lines: Lines
    paid_on: date | None = None
    status: int = OPEN
    note: bool = False


@dataclass(frozen=True, slots=True)
class Purchase:
    """A receipt (expense, creditDebit C) of the tax year."""

    number: str
    day: date
    supplier: str
    rule: int
    lines: ReceiptLines
    paid_on: date | None = None
    text: str | None = None  # the positions' text (``comment``)


SALES: Final = (
    Sale("RE-T-0901", date(2026, 9, 10), "inland", 1, (("500.00", 19),), date(2026, 9, 20)),
    Sale("RE-T-0902", date(2026, 9, 25), "inland", 1, (("800.00", 19),), date(2026, 10, 3)),
    Sale("RE-T-1001", date(2026, 10, 5), "inland", 1, (("1000.00", 19),), date(2026, 11, 4)),
    Sale("RE-T-1002", date(2026, 10, 20), "inland", 1, (("500.00", 19), ("200.00", 7)),
         date(2026, 10, 25)),
    Sale("RE-T-1003", date(2026, 10, 8), "inland", 1, (("300.00", 7),)),
    Sale("RE-T-1004", date(2026, 10, 9), "inland", 1, (("100.00", 16),)),
    Sale("RE-T-1005", date(2026, 10, 14), "fr", 3, (("2000.00", 0),)),
    Sale("RE-T-1006", date(2026, 10, 16), "ch", 2, (("1500.00", 0),)),
    Sale("RE-T-1007", date(2026, 10, 21), "inland", 4, (("400.00", 0),)),
    Sale("RE-T-1008", date(2026, 10, 22), "at", 21, (("800.00", 0),)),
    Sale("RE-T-1009", date(2026, 10, 23), "us", 17, (("600.00", 0),)),
    Sale("RE-T-1010", date(2026, 10, 26), "bau", 5, (("1200.00", 0),)),
    Sale("RE-T-1011", date(2026, 10, 28), "inland", 1, (("250.00", 0),)),
    Sale("RE-T-1012", date(2026, 10, 18), "at_consumer", 19, (("100.00", 20),)),
    Sale("RE-T-1013", date(2026, 10, 29), "inland", 1, (("999.00", 19),), status=DRAFT),
    Sale("GU-T-1001", date(2026, 10, 12), "inland", 1, (("100.00", 19),), date(2026, 10, 19),
         note=True),
    Sale("RE-T-1101", date(2026, 11, 5), "fr", 3, (("700.00", 0),)),
    Sale("RE-T-1102", date(2026, 11, 10), "eu_no_id", 3, (("250.00", 0),)),
    Sale("RE-T-1103", date(2026, 11, 12), "at", 21, (("300.00", 0),)),
    Sale("RE-T-1201", date(2026, 12, 1), "nl_consumer", 18, (("200.00", 21),)),
    Sale("GU-T-1101", date(2026, 11, 20), "fr", 3, (("100.00", 0),), note=True),
)  # fmt: skip

PURCHASES: Final = (
    Purchase("ER-T-1001", date(2026, 10, 2), "Holzhandel Schwarz KG", 9,
             (("3400", "1000.00", 19),), date(2026, 10, 10)),
    Purchase("ER-T-1002", date(2026, 10, 10), "Fachbuchhandlung Holz", 9,
             (("4940", "50.00", 7),)),
    Purchase("ER-T-1003", date(2026, 10, 6), "Bois du Nord SAS (FR)", 8,
             (("3400", "1000.00", 19),)),
    Purchase("ER-T-1004", date(2026, 10, 7), "Lesezirkel Europa BV (NL)", 8,
             (("4940", "200.00", 7),)),
    Purchase("ER-T-1005", date(2026, 10, 9), "Cloud CAD Ltd. (IE)", 14,
             (("4806", "100.00", 0),)),
    Purchase("ER-T-1006", date(2026, 10, 13), "Timber Consulting LLC (US)", 12,
             (("4950", "500.00", 0),)),
    Purchase("ER-T-1007", date(2026, 10, 15), "Dachdeckerei Roth", 13,
             (("4800", "300.00", 0),)),
    Purchase("ER-T-1008", date(2026, 10, 17), "Badische Versicherung", 10,
             (("4360", "120.00", 0),)),
    Purchase("ER-T-1009", date(2026, 10, 19), "Volksbank Kraichgau eG (Sicherungsgut)", 12,
             (("0210", "2000.00", 0),),
             text="Formatkreissäge, sicherungsübereignet; §13b Abs. 2 Nr. 2 UStG"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TaxYearFacts:
    """Ids of the tax year's documents and receipts by their numbers, and its contacts."""

    documents: dict[str, int]
    receipts: dict[str, int]
    contacts: dict[str, int]


def build_tax_year() -> tuple[FakeSevdesk, TaxYearFacts]:
    """:returns: a fresh fake holding the tax year, and the ids of what it holds."""
    fake = FakeSevdesk(TAX_YEAR_TOKEN, today=TODAY)
    store = fake.store
    store.client.name = "Tischlerei Beispiel GmbH"
    contacts = {key: _contact(fake, *spec) for key, spec in CONTACTS.items()}
    documents = {s.number: _sale(fake, s, contacts) for s in SALES}
    receipts = {p.number: _purchase(fake, p) for p in PURCHASES}
    return fake, TaxYearFacts(documents, receipts, {k: c.id for k, c in contacts.items()})


def _contact(fake: FakeSevdesk, name: str, vat_id: str | None, country: str) -> Contact:
    contact = Contact(name=name, vatNumber=vat_id, category=Ref("Category", 3))
    contact.description = f"country {country}"
    return fake.store.add(fake.store.contacts, contact)


def _sale(fake: FakeSevdesk, sale: Sale, contacts: dict[str, Contact]) -> int:
    store = fake.store
    country = Ref("StaticCountry", COUNTRIES[CONTACTS[sale.contact][2]])
    doc: Invoice | CreditNote
    if sale.note:
        doc = store.add(
            store.credit_notes,
            CreditNote(creditNoteDate=at(sale.day), header=f"Gutschrift {sale.number}"),
        )
    else:
        doc = store.add(
            store.invoices, Invoice(invoiceDate=at(sale.day), header=f"Rechnung {sale.number}")
        )
    doc.contact, doc.addressCountry = contacts[sale.contact].ref(), country
    doc.taxRule, doc.status = Ref("TaxRule", sale.rule), sale.status
    if sale.status != DRAFT:
        doc.set_number(sale.number)
        doc.mark_enshrined(at(sale.day, 11))
    doc.deliveryDate = at(sale.day)
    positions = [_position(fake, doc, net, rate, n) for n, (net, rate) in enumerate(sale.lines, 1)]
    doc.set_sums(positions)
    if sale.paid_on is not None:
        _pay(doc, sale.paid_on)
    return doc.id


def _position(
    fake: FakeSevdesk, doc: DocBase, net: str, rate: int, number: int
) -> InvoicePos | CreditNotePos:
    store = fake.store
    pos: InvoicePos | CreditNotePos
    if isinstance(doc, Invoice):
        pos = InvoicePos(invoice=doc.ref())
    else:
        pos = CreditNotePos(creditNote=doc.ref())
    pos.name, pos.price, pos.taxRate = "Leistung", Decimal(net), Decimal(rate)
    pos.positionNumber = number
    pos.compute()
    if isinstance(pos, InvoicePos):
        return store.add(store.invoice_positions, pos)
    return store.add(store.credit_note_positions, pos)


def _pay(doc: DocBase, day: date) -> None:
    assert isinstance(doc, Invoice | CreditNote)
    doc.status, doc.paidAmount, doc.payDate = PAID, doc.sumGross, at(day, 12)


def _purchase(fake: FakeSevdesk, purchase: Purchase) -> int:
    store = fake.store
    voucher = Voucher(
        voucherDate=at(purchase.day),
        supplierName=purchase.supplier,
        supplierNameAtSave=purchase.supplier,
        description=purchase.number,
        creditDebit="C",
        taxRule=Ref("TaxRule", purchase.rule),
        status=100,
    )
    store.add(store.vouchers, voucher)
    positions = []
    for number, net, rate in purchase.lines:
        pos = booked_position(voucher, number, Decimal(net), Decimal(rate), purchase.text)
        positions.append(store.add(store.voucher_positions, pos))
    voucher.set_sums(positions)
    if purchase.paid_on is not None:
        voucher.status, voucher.paidAmount = 1000, voucher.sumGross
        voucher.payDate = at(purchase.paid_on, 12)
    return voucher.id
