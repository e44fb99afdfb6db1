"""The demo's One-Stop-Shop sale (§18j UStG): a bench sold to a consumer in Bregenz, Austria,
under tax rule 18 (OSS goods) at the Austrian 20 %, finalized and open (not yet due).

Built last, so no earlier record moves: the contact, its address and e-mail, the invoice and
its position take the next ids, the invoice the next number (RE-1041). It adds to the OSS
figures of 2026-Q4 (AT 20 %: 690.00 net, 138.00 tax), to the open items (828.00) and to the
sales of November; it is in no box of the German VAT return.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.demo_common import AUSTRIA, OWNER, PIECE, TRANSFER, at
from sevdesk_mcp.fake.demo_contacts import CUSTOMER, INVOICE_ADDRESS, WORK_KEY
from sevdesk_mcp.fake.documents import OPEN, Invoice, InvoicePos
from sevdesk_mcp.fake.models import CommunicationWay, Contact, ContactAddress, Part
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import Ref

SALE_DAY: Final = date(2026, 11, 24)
DELIVERY_DAY: Final = date(2026, 11, 23)
OSS_GOODS: Final = Ref("TaxRule", 18)
AUSTRIAN_RATE: Final = Decimal(20)
BENCH: Final = "HS-1002"  # Sitzbank Eiche geölt 180 cm, 690.00 net
CUSTOMER_NUMBER: Final = "1022"  # after the 21 organisations of demo_contacts


def build_oss_sale(store: Store, parts: dict[str, Part]) -> Invoice:
    """Create the Austrian consumer and the OSS invoice to her.

    :returns: the invoice (open, numbered, enshrined as sendBy VPDF leaves it).
    """
    buyer = _consumer(store)
    invoice = Invoice(
        invoiceDate=at(SALE_DAY),
        deliveryDate=at(DELIVERY_DAY),
        header="Rechnung",
        taxRule=OSS_GOODS,
        taxText="One Stop Shop (goods)",
        timeToPay=14,
        paymentMethod=TRANSFER,
        contact=buyer.ref(),
        contactPerson=OWNER,
        createUser=OWNER,
        addressCountry=AUSTRIA,
        address="Katharina Hofer\nKirchstraße 5\n6900 Bregenz",
        addressName="Katharina Hofer",
        addressStreet="Kirchstraße 5",
        addressZip="6900",
        addressCity="Bregenz",
        create=at(SALE_DAY, 10),
        update=at(SALE_DAY, 10),
    )
    store.invoices.insert(invoice)
    part = parts[BENCH]
    assert part.price is not None  # a catalogue article has its price
    pos = InvoicePos(invoice=invoice.ref(), part=part.ref(), name=part.name, unity=PIECE)
    pos.quantity, pos.price, pos.taxRate = Decimal(1), part.price, AUSTRIAN_RATE
    pos.positionNumber = 1
    pos.create = pos.update = invoice.create
    pos.compute()
    store.invoice_positions.insert(pos)
    invoice.set_sums([pos])
    invoice.set_number(store.next_number(invoice.NUMBER_PREFIX))
    invoice.status, invoice.header = OPEN, f"Rechnung Nr. {invoice.number}"
    invoice.sendType, invoice.sendDate = "VPDF", at(SALE_DAY, 11)
    invoice.mark_enshrined(at(SALE_DAY, 11))
    assert invoice.invoiceDate.date() + timedelta(days=14) > store.today  # open, not overdue
    return invoice


def _consumer(store: Store) -> Contact:
    created = at(SALE_DAY, 9)
    contact = Contact(
        surename="Katharina",
        familyname="Hofer",
        gender="w",
        customerNumber=CUSTOMER_NUMBER,
        category=CUSTOMER,
        buyerReference="-",
        create=created,
        update=created,
    )
    store.contacts.insert(contact)
    address = ContactAddress(
        contact=contact.ref(),
        street="Kirchstraße 5",
        zip="6900",
        city="Bregenz",
        country=AUSTRIA,
        category=INVOICE_ADDRESS,
        create=created,
        update=created,
    )
    store.addresses.insert(address)
    way = CommunicationWay(
        contact=contact.ref(),
        type="EMAIL",
        value="katharina.hofer@example.com",
        key=WORK_KEY,
        main=True,
        create=created,
        update=created,
    )
    store.communication_ways.insert(way)
    return contact
