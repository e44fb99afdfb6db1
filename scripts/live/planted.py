"""Personal data planted into the fake sevDesk's demo company, to prove the sanitizer.

:func:`planted_demo` is the demo company whose first contact, address, e-mail and phone
number, first invoice and first bank transaction carry the values of :data:`PLANTED`
(realistic shapes: a checksum-valid IBAN, a German VAT id, a phone number, an e-mail inside a
free text). The sample recordings in ``tests/contract/recordings`` were recorded from it, and
the tests check that none of these values survives sanitizing.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from sevdesk_mcp.fake import FakeSevdesk, build_demo

PLANTED: Final = {
    "company": "Annegret Vogelsang Möbelmanufaktur GmbH",
    "person_first": "Annegret",
    "person_last": "Vogelsang",
    "street": "Lindenallee 17",
    "zip": "79104",
    "city": "Freiburg-Herdern",
    "email": "annegret.vogelsang@vogelsang-moebel.example",
    "phone": "+49 761 4711 0815",
    "iban": "DE89370400440532013000",
    "bic": "COBADEFFXXX",
    "vat": "DE287654321",
    "tax_number": "06/123/45678",
    "note": "Rückruf an annegret.vogelsang@vogelsang-moebel.example, Konto DE89370400440532013000",
    "payee": "Vogelsang, Annegret",
    "purpose": "Rechnung RE-1001 Vogelsang IBAN DE89370400440532013000",
}
FIRST_CONTACT: Final = 410001
FIRST_PERSON: Final = 410002
FIRST_ADDRESS: Final = 520001
FIRST_EMAIL: Final = 530001
FIRST_PHONE: Final = 530002
FIRST_INVOICE: Final = 700001
FIRST_TRANSACTION: Final = 900001


def planted_demo() -> FakeSevdesk:
    """:returns: the demo company with :data:`PLANTED` in its first records."""
    fake = build_demo()
    store = fake.store
    contact = store.contacts.get(FIRST_CONTACT)
    contact.name, contact.vatNumber = PLANTED["company"], PLANTED["vat"]
    contact.taxNumber, contact.bankAccount = PLANTED["tax_number"], PLANTED["iban"]
    contact.description = PLANTED["note"]
    person = store.contacts.get(FIRST_PERSON)
    person.surename, person.familyname = PLANTED["person_first"], PLANTED["person_last"]
    person.birthday = dt.date(1971, 3, 14)
    address = store.addresses.get(FIRST_ADDRESS)
    address.street, address.zip, address.city = PLANTED["street"], PLANTED["zip"], PLANTED["city"]
    address.name = PLANTED["company"]
    store.communication_ways.get(FIRST_EMAIL).value = PLANTED["email"]
    store.communication_ways.get(FIRST_PHONE).value = PLANTED["phone"]
    invoice = store.invoices.get(FIRST_INVOICE)
    invoice.headText = f"Guten Tag Frau {PLANTED['person_last']}, {PLANTED['note']}"
    invoice.addressName = PLANTED["company"]
    invoice.addressStreet, invoice.addressZip = PLANTED["street"], PLANTED["zip"]
    invoice.addressCity = PLANTED["city"]
    invoice.address = f"{PLANTED['company']}\n{PLANTED['street']}\n{PLANTED['zip']} Freiburg"
    transaction = store.transactions.get(FIRST_TRANSACTION)
    transaction.payeePayerName = PLANTED["payee"]
    transaction.payeePayerAcctNo = PLANTED["iban"]
    transaction.payeePayerBankCode = PLANTED["bic"]
    transaction.paymtPurpose = PLANTED["purpose"]
    return fake
