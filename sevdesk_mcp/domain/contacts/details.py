"""The invoice address, email address and phone number of a contact (``docs/sevdesk-api.md``
§2.2): the bodies a new contact gets, and the writes that change them on an existing one.

A contact's email address or phone number is its main communication way of that type (the first
of that type by id when none is marked main); a change sends the new ``value`` with PUT
/CommunicationWay/{id}, and a contact without one gets a new main one with POST, as a new
contact does. The invoice address is the contact's first address of category 47
(Rechnungsanschrift); a change sends the changed fields with PUT /ContactAddress/{id} (answered
201, as documented), and a contact without one gets a new one with POST. An address always has
a city. Both lists are read filtered by the contact and checked again here, since sevDesk
ignores a filter it does not know and then answers everything (Q12).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Progress, change_fact, post, ref, was
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.safety.preview import Fact, Piece, Said, quoted, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import QueryValue, api_path

WayType = Literal["EMAIL", "PHONE"]

INVOICE_ADDRESS: Final = 47
WORK_KEY: Final = 2
GERMANY: Final = 1
MAX_ROWS: Final = 100
WAY_LABELS: Final[dict[WayType, str]] = {"EMAIL": "email", "PHONE": "phone"}
WAY_SAID: Final[dict[WayType, Said]] = {
    "EMAIL": Said("Email", "E-Mail"),
    "PHONE": Said("Phone", "Telefon"),
}
INVOICE_ADDRESS_SAID: Final = Said("Invoice address", "Rechnungsadresse")
ADDRESS_FIELDS: Final[dict[str, Said]] = {
    "street": Said("Invoice address: street", "Rechnungsadresse: Straße"),
    "zip": Said("Invoice address: postcode", "Rechnungsadresse: PLZ"),
    "city": Said("Invoice address: city", "Rechnungsadresse: Ort"),
    "country": Said("Invoice address: country", "Rechnungsadresse: Land"),
}


class AddressChange(msgspec.Struct, frozen=True):
    """Invoice address fields to set; ``None`` leaves a field of an existing address as it is."""

    street: str | None = None
    zip: str | None = None
    city: str | None = None
    country_id: int | None = None

    def given(self) -> bool:
        """:returns: whether any field is to be set."""
        return any(v is not None for v in (self.street, self.zip, self.city, self.country_id))


class DetailChanges(msgspec.Struct, frozen=True):
    """The email address, phone number and invoice address wanted for a contact."""

    email: str | None = None
    phone: str | None = None
    address: AddressChange = msgspec.field(default_factory=AddressChange)


class DetailWrite(msgspec.Struct, frozen=True):
    """One planned request: ``POST /<word>`` when ``ident`` is ``None``, else
    ``PUT /<word>/<ident>``, with the exact body; ``label`` says what it writes."""

    word: str
    ident: int | None
    body: JsonObject
    label: str


def way_body(kind: WayType, value: str) -> JsonObject:
    """:returns: the body of a new main communication way (without its ``contact``)."""
    key = ref(WORK_KEY, "CommunicationWayKey")
    return {"type": kind, "value": value, "key": key, "main": True}


def address_body(
    name: str, street: str | None, zip_code: str | None, city: str, country_id: int
) -> JsonObject:
    """:returns: the body of a new invoice address (without its ``contact``)."""
    body: JsonObject = {
        "name": name,
        "city": city,
        "country": ref(country_id, "StaticCountry"),
        "category": ref(INVOICE_ADDRESS, "Category"),
    }
    body.update({k: v for k, v in (("street", street), ("zip", zip_code)) if v})
    return body


async def plan_details(
    client: SevdeskPort, contact_id: int, name: str, changes: DetailChanges
) -> tuple[list[DetailWrite], list[Fact]]:
    """Compare the wanted details with the contact's (reads only) and plan the writes.

    :param name: the contact's name, for a new invoice address.
    :returns: the writes for what differs, in order (address, email, phone), and their facts.
    :raises PreconditionError: for an unknown country.
    :raises ToolError: if a new or stored address would have no city.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    writes: list[DetailWrite] = []
    facts: list[Fact] = []
    if changes.address.given():
        planned = await _plan_address(client, contact_id, name, changes.address)
        if planned is not None:
            writes.append(planned[0])
            facts += planned[1]
    wanted: list[tuple[WayType, str | None]] = [("EMAIL", changes.email), ("PHONE", changes.phone)]
    ways = await _ways(client, contact_id) if changes.email or changes.phone else []
    for kind, value in wanted:
        if value is None:
            continue
        found = _main_way(ways, kind)
        if found is not None and found.value.strip() == value:
            continue
        writes.append(_way_write(contact_id, kind, value, found))
        old = was(found.value) if found else None
        facts.append(change_fact(WAY_SAID[kind], old, quoted(value)))
    return writes, facts


async def send_detail(
    client: SevdeskPort, contact_id: int, write: DetailWrite, progress: Progress
) -> str:
    """Send one planned write, once (Q33).

    :returns: what was written, for the result.
    :raises UpstreamError: if sevDesk refuses it or cannot be reached.
    """
    if write.ident is None:
        ident = await post(client, write.word, write.body)
        progress.done(f"created {write.label} {ident} of contact {contact_id}")
        return f"created {write.label} {ident}"
    await client.send("PUT", api_path(write.word, write.ident), json=write.body)
    progress.done(f"changed {write.label} {write.ident} of contact {contact_id}")
    return f"changed {write.label} {write.ident}"


def _way_write(
    contact_id: int, kind: WayType, value: str, found: wire.CommunicationWay | None
) -> DetailWrite:
    label = WAY_LABELS[kind]
    if found is None:
        body = {"contact": ref(contact_id, "Contact"), **way_body(kind, value)}
        return DetailWrite("CommunicationWay", None, body, label)
    return DetailWrite("CommunicationWay", found.id, {"value": value}, label)


async def _plan_address(
    client: SevdeskPort, contact_id: int, name: str, change: AddressChange
) -> tuple[DetailWrite, list[Fact]] | None:
    current = await _invoice_address(client, contact_id)
    named = change.country_id is not None or current is None
    countries = await _countries(client) if named else {}
    if change.country_id is not None and change.country_id not in countries:
        raise PreconditionError(
            f"There is no country {change.country_id}; ",
            Action.LIST_COUNTRIES,
            " lists them (Germany is 1).",
            record=f"country {change.country_id}",
            field="country_id",
        )
    if current is None:
        return _new_address(contact_id, name, change, countries)
    return _changed_address(current, change, countries)


def _new_address(
    contact_id: int, name: str, change: AddressChange, countries: dict[int, str]
) -> tuple[DetailWrite, list[Fact]]:
    if change.city is None:
        raise ToolError(
            f"Contact {contact_id} has no invoice address yet; a new one needs city (street, "
            "zip and country_id are optional, country_id 1 is Germany)."
        )
    country = change.country_id or GERMANY
    body = address_body(name, change.street, change.zip, change.city, country)
    body = {"contact": ref(contact_id, "Contact"), **body}
    place = " ".join(p for p in (change.zip, change.city) if p)
    parts = [quoted(p) for p in (change.street, place) if p]
    parts.append(
        quoted(countries[country])
        if country in countries
        else say("country {0}", "Land {0}", country)
    )
    slots = ", ".join(f"{{{i}}}" for i in range(len(parts)))
    write = DetailWrite("ContactAddress", None, body, "invoice address")
    return write, [change_fact(INVOICE_ADDRESS_SAID, None, Said(slots, slots, tuple(parts)))]


def _changed_address(
    current: wire.ContactAddress, change: AddressChange, countries: dict[int, str]
) -> tuple[DetailWrite, list[Fact]] | None:
    if change.city is None and not (current.city or "").strip():
        raise ToolError(
            f"The invoice address {current.id} has no city; give city as well, since an "
            "address needs one."
        )
    body: JsonObject = {}
    facts: list[Fact] = []
    for key, old, new in (
        ("street", current.street, change.street),
        ("zip", current.zip, change.zip),
        ("city", current.city, change.city),
    ):
        if new is not None and new != (old or ""):
            body[key] = new
            facts.append(change_fact(ADDRESS_FIELDS[key], was(old), quoted(new)))
    old_country = current.country.id if current.country else None
    if change.country_id is not None and change.country_id != old_country:
        body["country"] = ref(change.country_id, "StaticCountry")
        old_name = _country(countries, old_country) if old_country else None
        new_name = _country(countries, change.country_id)
        facts.append(change_fact(ADDRESS_FIELDS["country"], old_name, new_name))
    if not body:
        return None
    return DetailWrite("ContactAddress", current.id, body, "invoice address"), facts


def _country(countries: dict[int, str], ident: int) -> Piece:
    name = countries.get(ident)
    return quoted(name) if name else say("country {0}", "Land {0}", ident)


def _by_contact(contact_id: int) -> dict[str, QueryValue]:
    return {"contact[id]": contact_id, "contact[objectName]": "Contact"}


async def _invoice_address(client: SevdeskPort, contact_id: int) -> wire.ContactAddress | None:
    page = await client.get_all("/ContactAddress", _by_contact(contact_id), max_items=MAX_ROWS)
    invoice = [
        a
        for a in wire.parse_all(page.items, wire.ContactAddress)
        if _owned(a.contact, contact_id) and a.category and a.category.id == INVOICE_ADDRESS
    ]
    return min(invoice, key=lambda a: a.id) if invoice else None


async def _ways(client: SevdeskPort, contact_id: int) -> list[wire.CommunicationWay]:
    page = await client.get_all("/CommunicationWay", _by_contact(contact_id), max_items=MAX_ROWS)
    ways = wire.parse_all(page.items, wire.CommunicationWay)
    return [w for w in ways if _owned(w.contact, contact_id)]


def _main_way(ways: list[wire.CommunicationWay], kind: WayType) -> wire.CommunicationWay | None:
    of_kind = sorted((w for w in ways if w.type.upper() == kind), key=lambda w: (not w.main, w.id))
    return of_kind[0] if of_kind else None


def _owned(relation: wire.Ref | None, contact_id: int) -> bool:
    return relation is not None and relation.id == contact_id  # Q12: re-checked here


async def _countries(client: SevdeskPort) -> dict[int, str]:
    page = await client.get_all(api_path("StaticCountry"), max_items=1000)
    entries = wire.parse_all(page.items, wire.Named)
    return {e.id: clean(e.name or e.nameEn or "") or f"country {e.id}" for e in entries}
