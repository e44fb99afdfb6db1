"""A company whose VAT return must follow the law where the invoice date misleads:
:func:`build_vat_cases`.

March and April 2026, monthly returns, bookkeeping 2.0. Each case of german-tax-rules §1 that
the invoice date alone gets wrong: a delivery in the month before the invoice, a service period
across the month end, a service priced per month, an advance payment before the delivery, a
cash discount within the invoice's terms (booked CB, as ``sevdesk_book_match`` books it), a
shortfall without terms (booked O), an intra-EU supply with and without the buyer's VAT id,
receipts from foreign suppliers entered wrongly (at 0 % as ordinary expenses) and rightly
(reverse charge), a purchase discount, a receipt whose supply follows its invoice, a hotel
abroad; and, apart, a small business with a reverse-charge receipt (:func:`build_small_business`).

The expected figures are worked out by hand in ``tests/tax/test_vat_law.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.bookings import Booking, book
from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.documents import OPEN, Invoice, InvoicePos
from sevdesk_mcp.fake.models import CheckAccount, Contact
from sevdesk_mcp.fake.receipts import Voucher, booked_position
from sevdesk_mcp.fake.wire import Ref

VAT_CASES_TOKEN: Final = "5b1d9e3f7a2c46e08d1b3f5a7c9e1b3d"  # noqa: S105 - a test token
SMALL_TOKEN: Final = "9c3e1a5b7d2f48a6b0c2e4f6a8b0c2e4"  # noqa: S105 - a test token
TODAY: Final = date(2026, 5, 20)
COUNTRIES: Final = {"DE": 1, "FR": 4, "NL": 5, "IE": 9, "US": 8, "AT": 2}
CONTACTS: Final = {  # key: (name, VAT id, country)
    "inland": ("Müller Möbel GmbH", None, "DE"),
    "fr": ("Atelier Durand SARL", "FR12345678901", "FR"),
    "nl_no_id": ("Studio Verde BV", None, "NL"),
    "ie": ("Adobe Systems Software Ireland Ltd", "IE6364992H", "IE"),
    "us": ("Timber Consulting LLC", None, "US"),
    "at_hotel": ("Hotel Sacher Wien", "ATU15014804", "AT"),
}


@dataclass(frozen=True, slots=True)
class Sale:
    """An invoice: delivery ``delivered`` (to ``until``), one position at ``rate``."""

    number: str
    day: date
    contact: str
    rule: int
    net: str
    rate: int
    delivered: date | None
    until: date | None = None
    text: str = "Leistung"
    skonto: tuple[str, int] | None = None  # percent, days


@dataclass(frozen=True, slots=True)
class Purchase:
    """A receipt (an expense) with one position."""

    number: str
    day: date
    supplier: str
    rule: int
    account: str
    net: str
    rate: int
    text: str
    delivered: date | None = None


SALES: Final = (
    Sale("RE-L-01", date(2026, 4, 2), "inland", 1, "1000.00", 19, date(2026, 3, 30)),
    Sale("RE-L-02", date(2026, 4, 15), "inland", 1, "2000.00", 19, date(2026, 3, 15),
         date(2026, 4, 14), text="Beratung Umbau Werkstatt"),
    Sale("RE-L-03", date(2026, 3, 1), "inland", 1, "300.00", 19, date(2026, 3, 1),
         date(2026, 5, 31), text="Software-Abonnement, monatlich 100,00 EUR"),
    Sale("RE-L-04", date(2026, 3, 10), "inland", 1, "5000.00", 19, date(2026, 4, 20)),
    Sale("RE-L-05", date(2026, 3, 25), "inland", 1, "1000.00", 19, date(2026, 3, 25),
         skonto=("3", 10)),
    Sale("RE-L-06", date(2026, 3, 26), "inland", 1, "500.00", 19, date(2026, 3, 26)),
    Sale("RE-L-07", date(2026, 5, 5), "fr", 3, "1500.00", 0, date(2026, 3, 31)),
    Sale("RE-L-08", date(2026, 3, 12), "nl_no_id", 3, "1190.00", 0, date(2026, 3, 12)),
)  # fmt: skip
# key: (invoice, day, amount, bookAmount type)
PAYMENTS: Final = (
    ("RE-L-04", date(2026, 3, 20), "1190.00", "N"),
    ("RE-L-04", date(2026, 4, 25), "4760.00", "FULL_PAYMENT"),
    ("RE-L-05", date(2026, 4, 2), "1154.30", "CB"),
    ("RE-L-06", date(2026, 4, 10), "580.00", "O"),
    ("ER-L-03", date(2026, 3, 10), "-2332.40", "CB"),
)
PURCHASES: Final = (
    Purchase("ER-L-01", date(2026, 3, 31), "ie", 9, "4806", "250.00", 0,
             "Creative Cloud Teams, March 2026. Reverse charge: VAT to be accounted for by "
             "the recipient (Art. 196 Directive 2006/112/EC)"),
    Purchase("ER-L-02", date(2026, 3, 15), "ie", 14, "4806", "400.00", 0,
             "Creative Cloud Teams, annual add-on"),
    Purchase("ER-L-03", date(2026, 3, 3), "inland", 9, "3400", "2000.00", 19, "Massivholz"),
    Purchase("ER-L-04", date(2026, 3, 28), "inland", 9, "4930", "100.00", 19, "Ordner",
             delivered=date(2026, 4, 3)),
    Purchase("ER-L-05", date(2026, 3, 18), "at_hotel", 9, "4660", "180.00", 0,
             "Übernachtung Messe Wien"),
    Purchase("ER-L-06", date(2026, 4, 8), "us", 9, "4950", "600.00", 0,
             "Consulting services, reverse charge"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class VatCases:
    """Ids of the cases' documents and receipts by number."""

    documents: dict[str, int]
    receipts: dict[str, int]


def build_vat_cases() -> tuple[FakeSevdesk, VatCases]:
    """:returns: a fresh fake holding the cases, and the ids of what it holds."""
    fake = FakeSevdesk(VAT_CASES_TOKEN, today=TODAY)
    fake.store.client.name = "Schreinerei Fallbeispiel GmbH"
    contacts = {key: _contact(fake, *spec) for key, spec in CONTACTS.items()}
    documents = {s.number: _sale(fake, s, contacts) for s in SALES}
    receipts = {p.number: _purchase(fake, p, contacts) for p in PURCHASES}
    bank = fake.store.add(
        fake.store.check_accounts,
        CheckAccount(name="Bankkonto", type="offline", accountingNumber="1200"),
    )
    for number, day, amount, kind in PAYMENTS:
        table = fake.store.invoices if number.startswith("RE") else fake.store.vouchers
        ident = documents.get(number) or receipts[number]
        doc = table.get(ident)
        book(fake.store, doc, Booking(Decimal(amount), at(day, 12), kind, bank, None))
    return fake, VatCases(documents, receipts)


def build_small_business() -> FakeSevdesk:
    """:returns: a small business (§19 UStG) with a sale under rule 11 in March, a
    reverse-charge receipt from Ireland in March and an ordinary receipt in April."""
    fake = FakeSevdesk(SMALL_TOKEN, today=TODAY)
    fake.store.client.name = "Grafikbüro Klein"
    contacts = {key: _contact(fake, *spec) for key, spec in CONTACTS.items()}
    sale = Sale("RE-K-01", date(2026, 3, 9), "inland", 11, "800.00", 0, date(2026, 3, 9))
    invoice = fake.store.invoices.get(_sale(fake, sale, contacts))
    invoice.smallSettlement = True
    _purchase(fake, Purchase("ER-K-01", date(2026, 3, 20), "ie", 14, "4806", "100.00", 0,
                             "Creative Cloud"), contacts)  # fmt: skip
    _purchase(fake, Purchase("ER-K-02", date(2026, 4, 6), "inland", 9, "4930", "50.00", 19,
                             "Papier"), contacts)  # fmt: skip
    return fake


def _contact(fake: FakeSevdesk, name: str, vat_id: str | None, country: str) -> Contact:
    contact = Contact(name=name, vatNumber=vat_id, category=Ref("Category", 3))
    contact.description = f"country {country}"
    return fake.store.add(fake.store.contacts, contact)


def _sale(fake: FakeSevdesk, sale: Sale, contacts: dict[str, Contact]) -> int:
    store = fake.store
    doc = store.add(
        store.invoices, Invoice(invoiceDate=at(sale.day), header=f"Rechnung {sale.number}")
    )
    doc.contact = contacts[sale.contact].ref()
    doc.addressCountry = Ref("StaticCountry", COUNTRIES[CONTACTS[sale.contact][2]])
    doc.taxRule, doc.status = Ref("TaxRule", sale.rule), OPEN
    doc.set_number(sale.number)
    doc.deliveryDate = at(sale.delivered) if sale.delivered else None
    doc.deliveryDateUntil = at(sale.until) if sale.until else None
    if sale.skonto:
        doc.discount, doc.discountTime = Decimal(sale.skonto[0]), sale.skonto[1]
    pos = InvoicePos(invoice=doc.ref())
    pos.name, pos.text = sale.text, None
    pos.price, pos.taxRate, pos.positionNumber = Decimal(sale.net), Decimal(sale.rate), 1
    pos.compute()
    doc.set_sums([store.add(store.invoice_positions, pos)])
    doc.mark_enshrined(at(sale.day, 11))
    return doc.id


def _purchase(fake: FakeSevdesk, purchase: Purchase, contacts: dict[str, Contact]) -> int:
    store = fake.store
    supplier = contacts[purchase.supplier]
    voucher = Voucher(
        voucherDate=at(purchase.day),
        supplier=supplier.ref(),
        supplierName=supplier.name,
        supplierNameAtSave=supplier.name,
        description=purchase.number,
        creditDebit="C",
        taxRule=Ref("TaxRule", purchase.rule),
        status=100,
    )
    voucher.deliveryDate = at(purchase.delivered) if purchase.delivered else None
    store.add(store.vouchers, voucher)
    net, rate = Decimal(purchase.net), Decimal(purchase.rate)
    pos = booked_position(voucher, purchase.account, net, rate, purchase.text)
    voucher.set_sums([store.add(store.voucher_positions, pos)])
    return voucher.id
