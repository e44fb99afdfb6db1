"""A fake account per chart holding the set's history: :func:`build_labelled_fake`.

The history receipts (``history.py``) are finalized (status 100, enshrined) receipts of their
suppliers, each supplier a contact with its VAT id, IBAN (``bankAccount``) and address country,
as the engine would find them through GET /Voucher, /VoucherPos and /Contact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Final

from sevdesk_mcp.fake.accounts import account_by_number
from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.models import Contact, ContactAddress
from sevdesk_mcp.fake.receipts import Voucher, position_on
from sevdesk_mcp.fake.wire import Ref
from tests.receipts.labelled.history import HISTORY_RECEIPTS
from tests.receipts.labelled.model import BookedReceipt, Chart

LABELLED_TOKEN: Final = "4f6a8c0e2b4d46f8a0c2e4b6d8f0a2c4"  # a test token
TODAY: Final = date(2026, 6, 30)
FINALIZED: Final = 100  # sevDesk: an open (finalized, unpaid) receipt
SUPPLIER_CATEGORY: Final = 2
# the StaticCountry ids of the fake's reference data
COUNTRY_IDS: Final = {
    "DE": 1,
    "AT": 2,
    "CH": 3,
    "FR": 4,
    "NL": 5,
    "IT": 6,
    "GB": 7,
    "US": 8,
    "IE": 9,
}


@dataclass(frozen=True, slots=True)
class LabelledBooks:
    """A fake holding the history of one chart.

    :ivar fake: the fake account (its chart is ``chart``).
    :ivar chart: the chart of accounts.
    :ivar contacts: the supplier contacts' ids by supplier name.
    :ivar history: the booked receipts' voucher ids by :attr:`BookedReceipt.key`.
    """

    fake: FakeSevdesk
    chart: Chart
    contacts: dict[str, int]
    history: dict[str, int]


def build_labelled_fake(chart: Chart, token: str = LABELLED_TOKEN) -> LabelledBooks:
    """:returns: a fresh fake on ``chart`` holding that chart's history receipts.

    :raises KeyError: if a history receipt names an account the chart lacks.
    """
    fake = FakeSevdesk(token, today=TODAY, chart=chart)
    fake.store.client.name = "Labelled Receipts GmbH"
    contacts: dict[str, int] = {}
    history: dict[str, int] = {}
    for booked in (b for b in HISTORY_RECEIPTS if b.chart == chart):
        if booked.supplier not in contacts:
            contacts[booked.supplier] = _contact(fake, booked)
        history[booked.key] = _booked(fake, booked, contacts[booked.supplier])
    return LabelledBooks(fake, chart, contacts, history)


def _contact(fake: FakeSevdesk, booked: BookedReceipt) -> int:
    store = fake.store
    contact = Contact(name=booked.supplier, category=Ref("Category", SUPPLIER_CATEGORY))
    contact.vatNumber, contact.bankAccount = booked.vat_id, booked.iban
    store.add(store.contacts, contact)
    country = COUNTRY_IDS.get(booked.country or "DE", 1)
    address = ContactAddress(contact=contact.ref(), country=Ref("StaticCountry", country))
    store.add(store.addresses, address)
    return contact.id


def _booked(fake: FakeSevdesk, booked: BookedReceipt, contact: int) -> int:
    store = fake.store
    voucher = Voucher(
        voucherDate=at(booked.day),
        supplier=Ref("Contact", contact),
        supplierName=booked.supplier,
        supplierNameAtSave=booked.supplier,
        description=booked.key,
        creditDebit="C",
        taxRule=Ref("TaxRule", booked.rule),
        status=FINALIZED,
    )
    store.add(store.vouchers, voucher)
    account = account_by_number(booked.account, booked.chart)
    if account is None:
        raise KeyError(booked.account)
    pos = position_on(voucher, account, booked.net, booked.rate, booked.text)
    voucher.set_sums([store.add(store.voucher_positions, pos)])
    voucher.enshrined = at(booked.day, 10)
    return voucher.id
