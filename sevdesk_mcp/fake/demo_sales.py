"""The demo company's sales: orders, invoices in every status, a cancellation, credit notes.

Invoices follow :data:`PLAN` in date order: ``P`` paid at once, ``P2`` paid in two instalments,
``H`` partly paid (750), ``O`` open (200), ``D`` draft (100, no number, Q22), ``C`` cancelled
with its SR cancellation invoice (negative sums, ``origin`` → the original). Every payment is
returned as a :class:`~sevdesk_mcp.fake.demo_common.Payment` for the bank builder.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.cancellation import cancellation_header
from sevdesk_mcp.fake.demo_catalog import Line, draw_lines
from sevdesk_mcp.fake.demo_common import (
    DEMO_TODAY,
    OWNER,
    PIECE,
    TAX_RULE_DOMESTIC,
    TAX_RULE_EU_DELIVERY,
    TRANSFER,
    Payment,
    at,
    workday,
)
from sevdesk_mcp.fake.demo_contacts import CUSTOMERS, DemoContacts
from sevdesk_mcp.fake.documents import (
    DRAFT,
    OPEN,
    PAID,
    PARTIALLY_PAID,
    CreditNote,
    CreditNotePos,
    DocBase,
    Invoice,
    InvoicePos,
    Order,
    OrderPos,
    PosBase,
)
from sevdesk_mcp.fake.models import Part
from sevdesk_mcp.fake.store import Store

YEAR: Final = 2026
EU_CUSTOMER: Final = "moosbrugger"
HEAD_TEXT: Final = "Vielen Dank für Ihren Auftrag. Wir berechnen Ihnen folgende Leistungen:"
FOOT_TEXT: Final = "Bitte überweisen Sie den Betrag innerhalb von {days} Tagen ohne Abzug."
EU_TAX_TEXT: Final = "Steuerfreie innergemeinschaftliche Lieferung (§ 4 Nr. 1b UStG)"

# (month, day, code, customer or "" for a seeded random choice)
PLAN: Final = (
    (1, 7, "P", ""), (1, 14, "P", ""), (1, 22, "P2", ""), (1, 29, "P", ""),
    (2, 5, "P", ""), (2, 12, "C", "wiehre"), (2, 19, "P", ""), (2, 26, "P2", ""),
    (3, 5, "P", ""), (3, 12, "P", "brandt"), (3, 19, "P", ""), (3, 26, "P2", ""),
    (4, 9, "P", ""), (4, 16, "P", "kastanie"), (4, 23, "P", EU_CUSTOMER), (4, 30, "P2", ""),
    (5, 7, "P", ""), (5, 21, "P", ""), (5, 28, "P2", ""),
    (6, 11, "P", ""), (6, 18, "P", ""), (6, 25, "H", ""),
    (7, 2, "P", ""), (7, 9, "P2", ""), (7, 23, "P", ""),
    (8, 6, "P", ""), (8, 20, "O", "hirschen"),
    (9, 3, "P", ""), (9, 17, "H", ""), (9, 24, "P2", "rebhang"),
    (10, 1, "P", ""), (10, 15, "H", ""), (10, 22, "O", ""), (10, 29, "P", ""),
    (11, 5, "O", ""), (11, 10, "O", "vollmer"), (11, 12, "O", ""), (11, 17, "O", ""),
    (11, 20, "O", "feldberg"), (11, 24, "D", ""), (11, 25, "D", ""), (11, 26, "D", ""),
)  # fmt: skip
FROM_ORDER: Final = (3, 12)
_BUYERS: Final = tuple(o.key for o in CUSTOMERS if o.profile and o.key != EU_CUSTOMER)

ORDER_REJECTED: Final = 300
ORDER_ACCEPTED: Final = 500

# (month, day, customer, status, optional last position)
ORDERS: Final = (
    (2, 20, "brandt", PAID, False),
    (6, 3, "faller", ORDER_REJECTED, False),
    (9, 8, "lindenblick", ORDER_ACCEPTED, False),
    (11, 9, "feldberg", OPEN, True),
    (11, 25, "seitenwind", DRAFT, False),
)


@dataclass(slots=True)
class Sales:
    """What the sales builder made: payments for the bank and notable ids."""

    payments: list[Payment] = field(default_factory=list)
    invoices: list[Invoice] = field(default_factory=list)
    cancelled_id: int = 0
    cancellation_id: int = 0


class SalesBuilder:
    """Builds orders, invoices and credit notes into a store.

    :param rng: the seeded random source for customers, positions and payment delays.
    """

    def __init__(
        self, store: Store, contacts: DemoContacts, parts: dict[str, Part], rng: random.Random
    ) -> None:
        self.store = store
        self.contacts = contacts
        self.parts = parts
        self.rng = rng
        self.sales = Sales()
        self._keys: dict[int, str] = {}
        self._lines: dict[int, list[Line]] = {}

    def _address(self, doc: DocBase, key: str) -> None:
        address = self.contacts.addresses[key]
        doc.contact = self.contacts.orgs[key].ref()
        doc.addressCountry = address.country
        doc.address = f"{address.name}\n{address.street}\n{address.zip} {address.city}"
        doc.createUser = doc.contactPerson = OWNER

    def _positions(
        self, doc: Invoice | Order, lines: list[Line], rate: Decimal | None
    ) -> list[PosBase]:
        positions: list[PosBase] = []
        for number, (spec, quantity) in enumerate(lines, start=1):
            pos: PosBase
            if isinstance(doc, Invoice):
                pos = InvoicePos(invoice=doc.ref())
            else:
                pos = OrderPos(order=doc.ref())
            pos.part, pos.name, pos.unity = self.parts[spec.number].ref(), spec.name, spec.unity
            pos.quantity, pos.price, pos.positionNumber = quantity, spec.price, number
            pos.taxRate = spec.rate if rate is None else rate
            pos.create = pos.update = doc.create
            pos.compute()
            positions.append(pos)
        return positions

    def _store_positions(self, doc: DocBase, positions: list[PosBase]) -> None:
        for pos in positions:
            if isinstance(pos, InvoicePos):
                self.store.invoice_positions.insert(pos)
            elif isinstance(pos, CreditNotePos):
                self.store.credit_note_positions.insert(pos)
            else:
                assert isinstance(pos, OrderPos)
                self.store.order_positions.insert(pos)
        doc.set_sums(positions)

    def send(self, doc: DocBase, day: date, title: str) -> None:
        """Number, enshrine and mark ``doc`` as sent on ``day``, as sendBy VPDF does."""
        if doc.number is None:
            doc.set_number(self.store.next_number(doc.NUMBER_PREFIX))
        doc.status = OPEN
        doc.header = f"{title} Nr. {doc.number}"
        doc.sendType, doc.sendDate = "VPDF", at(day, 11)
        doc.mark_enshrined(at(day, 11))

    def order(self, day: date, key: str, status: int, optional_last: bool) -> list[Line]:
        """Create one offer (AN).

        :returns: its position lines.
        """
        order = Order(orderDate=at(day), header="Angebot", taxRule=TAX_RULE_DOMESTIC)
        order.create = order.update = at(day, 10)
        order.set_number(self.store.next_number(order.NUMBER_PREFIX))
        self._address(order, key)
        self.store.orders.insert(order)
        lines = draw_lines(self.rng, "F")
        positions = self._positions(order, lines, None)
        positions[-1].optional = optional_last
        self._store_positions(order, positions)
        if status != DRAFT:
            self.send(order, day, "Angebot")
            order.status = status
        return lines

    def invoice(self, day: date, key: str, lines: list[Line]) -> Invoice:
        """Create one invoice draft for customer ``key`` with ``lines``.

        :returns: the invoice (status 100, no number).
        """
        eu = key == EU_CUSTOMER
        contact = self.contacts.orgs[key]
        address = self.contacts.addresses[key]
        days = contact.defaultTimeToPay or 14
        invoice = Invoice(
            invoiceDate=at(day),
            deliveryDate=at(day - timedelta(days=2)),
            header="Rechnung",
            headText=HEAD_TEXT,
            footText=FOOT_TEXT.format(days=days),
            taxRule=TAX_RULE_EU_DELIVERY if eu else TAX_RULE_DOMESTIC,
            taxText=EU_TAX_TEXT if eu else "Umsatzsteuer",
            timeToPay=days,
            paymentMethod=TRANSFER,
            sendType="0",  # Q10: unsent drafts carry "0"
            addressName=address.name,
            addressStreet=address.street,
            addressZip=address.zip,
            addressCity=address.city,
        )
        invoice.create = invoice.update = at(day, 10)
        self._address(invoice, key)
        self.store.invoices.insert(invoice)
        self._keys[invoice.id], self._lines[invoice.id] = key, lines
        rate = Decimal(0) if eu else None
        self._store_positions(invoice, self._positions(invoice, lines, rate))
        self.sales.invoices.append(invoice)
        return invoice

    def pay(self, invoice: Invoice, day: date, amount: Decimal, purpose: str) -> None:
        """Record an incoming payment of ``amount`` on ``day`` against ``invoice``."""
        contact = self.contacts.orgs[self._keys[invoice.id]]
        self.sales.payments.append(
            Payment(day, amount, invoice.ref(), contact.name or "", purpose, contact.bankAccount)
        )
        invoice.paidAmount += amount
        invoice.payDate = invoice.update = at(day, 12)
        invoice.status = PAID if invoice.paidAmount == invoice.sumGross else PARTIALLY_PAID

    def settle(self, invoice: Invoice, code: str) -> None:
        """Apply the plan code ``code`` (``P``, ``P2``, ``H``, ``O``) to a sent invoice."""
        start = invoice.invoiceDate.date()
        number = invoice.invoiceNumber
        days = invoice.timeToPay or 14
        if code == "P":
            day = self._payday(start, 4, days)
            self.pay(invoice, day, invoice.sumGross, f"{number} vielen Dank")
        elif code == "P2":
            first = (invoice.sumGross * Decimal("0.4")).quantize(Decimal(1))
            self.pay(invoice, self._payday(start, 3, 6), first, f"Abschlag {number}")
            rest = invoice.sumGross - first
            self.pay(invoice, self._payday(start, 9, days + 5), rest, f"Restzahlung {number}")
        elif code == "H":
            part = (invoice.sumGross / 2).quantize(Decimal(1))
            self.pay(invoice, self._payday(start, 5, 10), part, f"Teilzahlung {number}")

    def _payday(self, start: date, low: int, high: int) -> date:
        day = workday(start + timedelta(days=self.rng.randint(low, high)))
        return day if day < DEMO_TODAY else workday(start + timedelta(days=low))

    def cancel(self, original: Invoice, day: date) -> Invoice:
        """Cancel ``original`` with an SR invoice on ``day`` (status 1000, negative sums).

        :returns: the cancellation invoice.
        """
        lines = [(spec, -quantity) for spec, quantity in self._lines[original.id]]
        cancellation = self.invoice(day, self._keys[original.id], lines)
        self.send(cancellation, day, "Stornorechnung")
        cancellation.header = cancellation_header(
            cancellation.invoiceNumber, original.invoiceNumber
        )
        cancellation.invoiceType, cancellation.origin = "SR", original.ref()
        cancellation.status = original.status = PAID  # UNVERIFIED: "cancelled" is 1000
        original.update = at(day, 11)
        self.sales.cancelled_id, self.sales.cancellation_id = original.id, cancellation.id
        return cancellation

    def credit_note(
        self, day: date, invoice: Invoice, status: int, text: str, net: Decimal
    ) -> None:
        """Create a credit note (UNDERACHIEVEMENT) on ``invoice`` with one position.

        It carries the invoice's tax rate (Q35) and its number even as a draft; a paid one is
        refunded with a negative payment (Q26).
        """
        note = CreditNote(creditNoteDate=at(day), refSrcInvoice=invoice.ref(), header="Gutschrift")
        note.taxRule, note.taxText = invoice.taxRule, invoice.taxText
        note.create = note.update = at(day, 10)
        note.set_number(self.store.next_number(note.NUMBER_PREFIX))
        key = self._keys[invoice.id]
        self._address(note, key)
        self.store.credit_notes.insert(note)
        pos = CreditNotePos(creditNote=note.ref(), name=text, price=net, unity=PIECE)
        pos.taxRate = self.store.positions_of(invoice)[0].taxRate
        pos.positionNumber, pos.create, pos.update = 1, note.create, note.create
        pos.compute()
        self._store_positions(note, [pos])
        if status == DRAFT:
            return
        self.send(note, day, "Gutschrift")
        if status == PAID:
            contact = self.contacts.orgs[key]
            refund = workday(day + timedelta(days=4))
            self.sales.payments.append(
                Payment(refund, -note.sumGross, note.ref(), contact.name or "",
                        f"Erstattung {note.creditNoteNumber}", contact.bankAccount)
            )  # fmt: skip
            note.status, note.paidAmount, note.payDate = PAID, note.sumGross, at(refund, 12)


# (month, day, index into PLAN of the invoice, status, text, net amount)
CREDIT_NOTES: Final = (
    (5, 4, 13, PAID, "Preisnachlass wegen Lieferverzug", Decimal("150.00")),
    (9, 29, 27, OPEN, "Gutschrift Reklamation Kratzer Tischplatte", Decimal("80.00")),
    (11, 23, 35, DRAFT, "Gutschrift Restmenge Brennholz", Decimal("119.00")),
)


def build_sales(
    store: Store, contacts: DemoContacts, parts: dict[str, Part], rng: random.Random
) -> Sales:
    """Create the orders, the invoices of :data:`PLAN` and the credit notes.

    :returns: the payments and notable ids.
    """
    builder = SalesBuilder(store, contacts, parts, rng)
    order_lines = [
        builder.order(workday(date(YEAR, m, d)), key, status, optional)
        for m, d, key, status, optional in ORDERS
    ]
    profiles = {o.key: o.profile for o in CUSTOMERS}
    for month, day, code, chosen in PLAN:
        when = workday(date(YEAR, month, day))
        key = chosen or rng.choice(_BUYERS)
        from_order = (month, day) == FROM_ORDER
        lines = order_lines[0] if from_order else draw_lines(rng, profiles[key])
        invoice = builder.invoice(when, key, lines)
        if from_order:
            invoice.origin = next(iter(store.orders)).ref()
            invoice.customerInternalNote = "Aus Angebot AN-1001"
        if code == "D":
            continue
        builder.send(invoice, when, "Rechnung")
        if code == "C":
            builder.cancel(invoice, workday(when + timedelta(days=4)))
        builder.settle(invoice, code)
    invoices = builder.sales.invoices
    regular = [i for i in invoices if i.invoiceType == "RE"]
    for month, day, index, status, text, net in CREDIT_NOTES:
        builder.credit_note(date(YEAR, month, day), regular[index], status, text, net)
    return builder.sales
