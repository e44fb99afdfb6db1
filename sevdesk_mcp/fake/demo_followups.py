"""The demo company's recurring invoices (``WKR``): a quarterly care contract for the Café
Kastanie, active, and a monthly one for the Hotel Lindenblick, deactivated (status 50).

A recurring invoice has no number; ``accountIntervall`` is an ISO 8601 duration and
``accountNextInvoice`` the Unix seconds of the day it next makes an invoice (§3.1, §3.2). The
list leaves them out unless ``showWkr=all``, so they change no figure of the other demo books.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.demo_common import OWNER, PIECE, TAX_RULE_DOMESTIC, TRANSFER, at
from sevdesk_mcp.fake.demo_contacts import DemoContacts
from sevdesk_mcp.fake.documents import DRAFT, Invoice, InvoicePos
from sevdesk_mcp.fake.store import Store

DEACTIVATED: Final = 50

# (customer, start, interval, next invoice or None, status, position name, net price)
RECURRING: Final = (
    ("kastanie", date(2026, 1, 1), "P0Y3M", date(2027, 1, 1), DRAFT,
     "Pflegevertrag Holzmobiliar Gastraum (quartalsweise)", Decimal("240.00")),
    ("lindenblick", date(2026, 2, 1), "P0Y1M", None, DEACTIVATED,
     "Wartung Saunabänke (monatlich)", Decimal("95.00")),
)  # fmt: skip


def build_recurring(store: Store, contacts: DemoContacts) -> list[int]:
    """Create the recurring invoices of :data:`RECURRING`, each with one position at 19 %.

    :returns: their ids.
    """
    made: list[int] = []
    for key, start, interval, upcoming, status, text, net in RECURRING:
        org, address = contacts.orgs[key], contacts.addresses[key]
        invoice = Invoice(
            invoiceDate=at(start),
            invoiceType="WKR",
            status=status,
            header="Rechnung",
            taxRule=TAX_RULE_DOMESTIC,
            taxText="Umsatzsteuer",
            paymentMethod=TRANSFER,
            sendType="0",
            accountIntervall=interval,
            accountNextInvoice=int(at(upcoming).timestamp()) if upcoming else None,
            contact=org.ref(),
            addressCountry=address.country,
            address=f"{address.name}\n{address.street}\n{address.zip} {address.city}",
            createUser=OWNER,
            contactPerson=OWNER,
        )
        invoice.create = invoice.update = at(start, 10)
        store.invoices.insert(invoice)
        pos = InvoicePos(invoice=invoice.ref(), name=text, price=net, unity=PIECE)
        pos.taxRate, pos.positionNumber = Decimal(19), 1
        pos.create = pos.update = invoice.create
        pos.compute()
        store.invoice_positions.insert(pos)
        invoice.set_sums([pos])
        made.append(invoice.id)
    return made
