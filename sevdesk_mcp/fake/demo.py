"""The demo company: Holzwerk Sonnenberg GmbH, a joinery in Freiburg on bookkeeping system 2.0.

:func:`build_demo` returns a :class:`~sevdesk_mcp.fake.core.FakeSevdesk` holding one year
(2026-01 … 2026-11, today 2026-11-27) of contacts, articles, offers, invoices in every status,
credit notes, receipts, a bank account and a cash register with booked and unmatched
transactions. Everything is invented and deterministic (fixed tables and
``random.Random(2026)``); its token is :data:`DEMO_TOKEN`.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_bank import Bank, Unmatched, build_bank
from sevdesk_mcp.fake.demo_catalog import seed_parts
from sevdesk_mcp.fake.demo_common import BANK_ACCOUNT_ID, DEMO_TODAY, REGISTER_ID, workday
from sevdesk_mcp.fake.demo_contacts import CUSTOMERS, SUPPLIERS, DemoContacts, seed_contacts
from sevdesk_mcp.fake.demo_followups import build_recurring
from sevdesk_mcp.fake.demo_oss import build_oss_sale
from sevdesk_mcp.fake.demo_purchases import Purchases, build_purchases
from sevdesk_mcp.fake.demo_sales import EU_CUSTOMER, Sales, build_sales
from sevdesk_mcp.fake.demo_tags import seed_tags
from sevdesk_mcp.fake.documents import OPEN, PARTIALLY_PAID, Invoice
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.token import DEMO_TOKEN

COMPANY: Final = "Holzwerk Sonnenberg GmbH"
SEED: Final = 2026
SEV_CLIENT_ID: Final = 84210


@dataclass(frozen=True, slots=True)
class DemoFacts:
    """Key figures and ids of the demo company, for tests and documentation."""

    company: str
    token: str
    owner_id: int
    bank_account_id: int
    register_id: int
    customer_ids: tuple[int, ...]
    supplier_ids: tuple[int, ...]
    person_ids: tuple[int, ...]
    unused_contact_id: int
    invoice_ids_by_status: dict[int, tuple[int, ...]]
    overdue_invoice_ids: tuple[int, ...]
    cancelled_invoice_id: int
    cancellation_invoice_id: int
    eu_invoice_id: int
    voucher_ids_by_status: dict[int, tuple[int, ...]]
    reverse_charge_voucher_id: int
    unmatched_transaction_ids: tuple[int, ...]
    injection_transaction_id: int
    bidi_transaction_id: int
    matching_transaction_id: int
    matching_invoice_id: int


@dataclass(frozen=True, slots=True)
class _Built:
    sales: Sales
    purchases: Purchases
    bank: Bank
    matched_invoice_id: int


def _seed_company(fake: FakeSevdesk) -> None:
    store = fake.store
    store.client.id, store.client.name = SEV_CLIENT_ID, COMPANY
    owner = store.users.get(1)
    owner.username = owner.email = "lena.sonnenberg@example.com"
    owner.firstName, owner.lastName, owner.fullname = "Lena", "Sonnenberg", "Lena Sonnenberg"


def is_overdue(invoice: Invoice, store: Store) -> bool:
    """:returns: whether an open or partly paid invoice is past its due date."""
    due = invoice.invoiceDate.date() + timedelta(days=invoice.timeToPay or 0)
    return invoice.status in (OPEN, PARTIALLY_PAID) and due < store.today


def _matching_payment(store: Store, contacts: DemoContacts) -> tuple[Unmatched, Invoice]:
    vollmer = contacts.orgs["vollmer"]
    invoice = next(
        i
        for i in store.invoices
        if i.status == OPEN and i.contact is not None and i.contact.id == vollmer.id
    )
    day = workday(DEMO_TODAY - timedelta(days=3))
    payment = Unmatched(
        day, invoice.sumGross, vollmer.name or "", f"Rechnung {invoice.invoiceNumber}",
        vollmer.bankAccount,
    )  # fmt: skip
    return payment, invoice


def _by_status(rows: list[tuple[int, int]]) -> dict[int, tuple[int, ...]]:
    grouped: defaultdict[int, list[int]] = defaultdict(list)
    for status, ident in rows:
        grouped[status].append(ident)
    return {status: tuple(ids) for status, ids in sorted(grouped.items())}


def _facts(fake: FakeSevdesk, contacts: DemoContacts, built: _Built) -> DemoFacts:
    store, sales, bank = fake.store, built.sales, built.bank
    invoices = [i for i in store.invoices if i.invoiceType != "WKR"]  # listed apart
    eu_contact = contacts.orgs[EU_CUSTOMER].id
    return DemoFacts(
        company=COMPANY,
        token=fake.token,
        owner_id=1,
        bank_account_id=BANK_ACCOUNT_ID,
        register_id=REGISTER_ID,
        customer_ids=tuple(contacts.orgs[o.key].id for o in CUSTOMERS),
        supplier_ids=tuple(contacts.orgs[o.key].id for o in SUPPLIERS),
        person_ids=tuple(p.id for p in contacts.persons.values()),
        unused_contact_id=contacts.orgs["lichtblick"].id,
        invoice_ids_by_status=_by_status([(i.status, i.id) for i in invoices]),
        overdue_invoice_ids=tuple(i.id for i in invoices if is_overdue(i, store)),
        cancelled_invoice_id=sales.cancelled_id,
        cancellation_invoice_id=sales.cancellation_id,
        eu_invoice_id=next(i.id for i in invoices if i.contact and i.contact.id == eu_contact),
        voucher_ids_by_status=_by_status([(v.status, v.id) for v in store.vouchers]),
        reverse_charge_voucher_id=built.purchases.reverse_charge_id,
        unmatched_transaction_ids=tuple(bank.unmatched_ids),
        injection_transaction_id=bank.injection_id,
        bidi_transaction_id=bank.bidi_id,
        matching_transaction_id=bank.matching_id,
        matching_invoice_id=built.matched_invoice_id,
    )


def build_demo_with_facts() -> tuple[FakeSevdesk, DemoFacts]:
    """Build the demo company.

    :returns: the fake and its key figures.
    """
    fake = FakeSevdesk(DEMO_TOKEN, "2.0", today=DEMO_TODAY)
    _seed_company(fake)
    store = fake.store
    rng = random.Random(SEED)  # noqa: S311 - demo data, not security
    contacts = seed_contacts(store)
    parts = seed_parts(store)
    sales = build_sales(store, contacts, parts, rng)
    purchases = build_purchases(store, contacts)
    matching, matched_invoice = _matching_payment(store, contacts)
    bank = build_bank(store, [*sales.payments, *purchases.payments], matching)
    build_recurring(store, contacts)
    seed_tags(store)
    build_oss_sale(store, parts)  # last: no earlier record moves
    built = _Built(sales, purchases, bank, matched_invoice.id)
    return fake, _facts(fake, contacts, built)


def build_demo() -> FakeSevdesk:
    """:returns: a fresh fake sevDesk holding the demo company; its token is DEMO_TOKEN."""
    return build_demo_with_facts()[0]
