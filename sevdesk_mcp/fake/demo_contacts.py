"""The demo company's contacts: customers, suppliers, persons, addresses, e-mails and phones.

All names, addresses and numbers are invented. E-mail addresses use ``example.com``, IBANs start
with ``DE00`` (or ``AT00``/``IE00``), phone numbers the ranges reserved for fiction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Final

from sevdesk_mcp.fake.demo_common import AUSTRIA, GERMANY, IRELAND, at
from sevdesk_mcp.fake.models import CommunicationWay, Contact, ContactAddress
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import Ref

CUSTOMER: Final = Ref("Category", 3)
SUPPLIER: Final = Ref("Category", 2)
PROSPECT: Final = Ref("Category", 28)
WORK_ADDRESS: Final = Ref("Category", 43)
INVOICE_ADDRESS: Final = Ref("Category", 47)
WORK_KEY: Final = Ref("CommunicationWayKey", 2)
CREATED: Final = date(2026, 1, 2)


@dataclass(frozen=True, slots=True)
class Org:
    """One organisation of the demo.

    :param key: a short name the other builders use.
    :param profile: what it buys: ``F`` furniture projects, ``W`` firewood, ``S`` shop goods.
    """

    key: str
    name: str
    street: str
    zip: str
    city: str
    email: str
    phone: str | None
    iban: str
    profile: str = ""
    country: Ref = GERMANY
    vat: str | None = None
    time_to_pay: int = 14
    person: tuple[str, str, str] | None = None  # (gender, first name, family name)


# fmt: off
CUSTOMERS: Final = (
    Org("brandt", "Brandt Architekten PartG mbB", "Schwabentorring 12", "79098",
        "Freiburg im Breisgau", "buero.brandt@example.com", "+49 30 23125 101",
        "DE00680500000000101001", "F", person=("m", "Jonas", "Brandt")),
    Org("kastanie", "Café Kastanie GmbH", "Konviktstraße 41", "79098", "Freiburg im Breisgau",
        "hallo.kastanie@example.com", "+49 30 23125 102", "DE00680500000000101002", "FS"),
    Org("lindenblick", "Schwarzwaldhof Hotel Lindenblick GmbH", "Seestraße 7", "79822",
        "Titisee-Neustadt", "rezeption.lindenblick@example.com", "+49 30 23125 103",
        "DE00680500000000101003", "FW", time_to_pay=30, person=("w", "Miriam", "Keller")),
    Org("dreisamtal", "Physiotherapie Dreisamtal GbR", "Hauptstraße 88", "79199", "Kirchzarten",
        "praxis.dreisamtal@example.com", None, "DE00680500000000101004", "F"),
    Org("sonnenstrahl", "Kita Sonnenstrahl e.V.", "Am Mühlbach 3", "79312", "Emmendingen",
        "vorstand.sonnenstrahl@example.com", "+49 30 23125 105", "DE00680500000000101005", "S"),
    Org("rebhang", "Weingut Rebhang KG", "Bachenstraße 19", "79241", "Ihringen",
        "verkauf.rebhang@example.com", "+49 30 23125 106", "DE00680500000000101006", "FW",
        person=("m", "Tobias", "Rebmann")),
    Org("wiehre", "Bürogemeinschaft Wiehre GbR", "Günterstalstraße 22", "79100",
        "Freiburg im Breisgau", "kontakt.wiehre@example.com", None, "DE00680500000000101007",
        "F"),
    Org("vollmer", "Stadtbäckerei Vollmer GmbH", "Lange Straße 5", "79183", "Waldkirch",
        "buchhaltung.vollmer@example.com", "+49 30 23125 108", "DE00680500000000101008", "W"),
    Org("faller", "Immobilien Faller & Söhne GmbH", "Turmstraße 30", "79539", "Lörrach",
        "verwaltung.faller@example.com", "+49 30 23125 109", "DE00680500000000101009", "F",
        time_to_pay=30, person=("w", "Sabine", "Faller")),
    Org("hirschen", "Gasthaus Zum Hirschen GmbH", "Hauptstraße 41", "79219",
        "Staufen im Breisgau", "wirt.hirschen@example.com", "+49 30 23125 110",
        "DE00680500000000101010", "W"),
    Org("seitenwind", "Buchhandlung Seitenwind GmbH", "Bertoldstraße 9", "79098",
        "Freiburg im Breisgau", "laden.seitenwind@example.com", None, "DE00680500000000101011",
        "FS"),
    Org("moosbrugger", "Tischlerei Moosbrugger GmbH", "Marktstraße 14", "6850", "Dornbirn",
        "office.moosbrugger@example.com", None, "AT000000000000101012", "F", country=AUSTRIA,
        vat="ATU00000012"),
    Org("feldberg", "Ferienwohnungen Feldberg GmbH", "Dorfstraße 2", "79868", "Feldberg",
        "buchung.feldberg@example.com", "+49 30 23125 113", "DE00680500000000101013", "FW",
        person=("w", "Nina", "Hartmann")),
    Org("lichtblick", "Yoga-Studio Lichtblick UG (haftungsbeschränkt)", "Wilhelmstraße 15",
        "79098", "Freiburg im Breisgau", "namaste.lichtblick@example.com", None,
        "DE00680500000000101014"),
)

PROSPECTS: Final = (
    Org("kaiserstuhl", "Hausverwaltung Kaiserstuhl GmbH", "Marktplatz 1", "79346", "Endingen",
        "info.kaiserstuhl@example.com", "+49 30 23125 115", "DE00680500000000101015"),
)

SUPPLIERS: Final = (
    Org("saegewerk", "Sägewerk Kinzigtal GmbH", "Talstraße 60", "77716", "Haslach im Kinzigtal",
        "auftrag.saegewerk@example.com", "+49 69 90009 201", "DE00664500000000201001"),
    Org("beschlag", "Beschlag-Handel Rhein GmbH", "Hafenstraße 8", "77694", "Kehl",
        "bestellung.beschlag@example.com", "+49 69 90009 202", "DE00664500000000201002"),
    Org("gewerbehof", "Gewerbehof Dreisam GmbH & Co. KG", "Tullastraße 70", "79108",
        "Freiburg im Breisgau", "mieten.gewerbehof@example.com", "+49 69 90009 203",
        "DE00680500000000201003"),
    Org("energie", "Energieversorgung Breisgau AG", "Energieweg 1", "79111",
        "Freiburg im Breisgau", "kundenservice.energie@example.com", None,
        "DE00680500000000201004"),
    Org("telekom", "Netzwerk Südbaden Telekom GmbH", "Bahnhofstraße 3", "79576", "Weil am Rhein",
        "rechnung.netzwerk-suedbaden@example.com", None, "DE00683000000000201005"),
    Org("planwerk", "Planwerk Software Ltd.", "12 Harbour Road", "D02 X000", "Dublin",
        "billing.planwerk@example.com", None, "IE00000000000000201006", country=IRELAND,
        vat="IE0000006X"),
)
# fmt: on

_WORK_ADDRESSES: Final = (
    ("lindenblick", "Hinterzartener Straße 11"),
    ("faller", "Brombacher Straße 4"),
)


@dataclass(slots=True)
class DemoContacts:
    """Ids and rows of the seeded contacts, by key."""

    orgs: dict[str, Contact]
    persons: dict[str, Contact]
    addresses: dict[str, ContactAddress]


def _seed_org(store: Store, org: Org, category: Ref, number: int) -> Contact:
    contact = Contact(
        name=org.name,
        customerNumber=str(number),
        category=category,
        vatNumber=org.vat,
        defaultTimeToPay=org.time_to_pay,
        bankAccount=org.iban,
        buyerReference="-",
        create=at(CREATED, 9),
        update=at(CREATED, 9),
    )
    return store.contacts.insert(contact)


def _seed_address(store: Store, contact: Contact, org: Org, category: Ref) -> ContactAddress:
    address = ContactAddress(
        contact=contact.ref(),
        street=org.street,
        zip=org.zip,
        city=org.city,
        country=org.country,
        category=category,
        name=org.name,
        create=contact.create,
        update=contact.create,
    )
    return store.addresses.insert(address)


def _seed_way(store: Store, contact: Contact, kind: str, value: str) -> None:
    way = CommunicationWay(
        contact=contact.ref(),
        type=kind,
        value=value,
        key=WORK_KEY,
        main=kind == "EMAIL",
        create=contact.create,
        update=contact.create,
    )
    store.communication_ways.insert(way)


def _seed_person(store: Store, org: Contact, person: tuple[str, str, str]) -> Contact:
    gender, first, family = person
    contact = Contact(
        surename=first,
        familyname=family,
        gender=gender,
        parent=org.ref(),
        category=CUSTOMER,
        buyerReference="-",
        create=org.create,
        update=org.create,
    )
    store.contacts.insert(contact)
    local = f"{first}.{family}".lower()
    _seed_way(store, contact, "EMAIL", f"{local}@example.com")
    return contact


def seed_contacts(store: Store) -> DemoContacts:
    """Create every demo contact with addresses and communication ways.

    Customer numbers run 1001… in the order customers, prospects, suppliers.

    :returns: the seeded rows by key.
    """
    seeded = DemoContacts({}, {}, {})
    groups = ((CUSTOMERS, CUSTOMER), (PROSPECTS, PROSPECT), (SUPPLIERS, SUPPLIER))
    number = 1001
    for orgs, category in groups:
        for org in orgs:
            contact = _seed_org(store, org, category, number)
            number += 1
            address_category = WORK_ADDRESS if category == SUPPLIER else INVOICE_ADDRESS
            seeded.orgs[org.key] = contact
            seeded.addresses[org.key] = _seed_address(store, contact, org, address_category)
            _seed_way(store, contact, "EMAIL", org.email)
            if org.phone:
                _seed_way(store, contact, "PHONE", org.phone)
            if org.person:
                seeded.persons[org.key] = _seed_person(store, contact, org.person)
    for key, street in _WORK_ADDRESSES:
        org = next(o for o in CUSTOMERS if o.key == key)
        _seed_address(store, seeded.orgs[key], replace(org, street=street), WORK_ADDRESS)
    return seeded
