"""Creating contacts, with an invoice address and communication ways (§2.2), and what
creating and updating (:mod:`sevdesk_mcp.domain.contacts.updates`) share.

``prepare_create`` only reads; ``execute_create`` sends the planned bodies, each once (Q33), and
reads the contact back. Only documented fields are sent, since others are dropped silently
(Q16), spelled as sevDesk spells them (``surename``, Q37), relations with ``objectName`` (Q38).
A person under an organisation may get its customer number (Q31): it is read back and fixed
with a PUT.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.contacts.details import WayType, address_body, way_body
from sevdesk_mcp.domain.contacts.read import CATEGORIES, STATUSES, Untrusted
from sevdesk_mcp.domain.contacts.read import display_name as contact_name
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import Missing, read_one
from sevdesk_mcp.domain.whole_lists import read_whole
from sevdesk_mcp.domain.writes import Prepared, Progress, post, ref, reference_name
from sevdesk_mcp.errors import MalformedResponseError, ToolError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.safety.preview import Fact, Lines, Plain, Preview, Said, fact, quoted, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import api_path

ContactKind = Literal["organisation", "person"]
ContactCategory = Literal["customer", "supplier", "partner", "prospect"]

CATEGORY_IDS: Final = {name: ident for ident, name in CATEGORIES.items()}
ACTIVE: Final = 1000
MAX_NAMED_MATCHES: Final = 5
SAME_NUMBER: Final = "the same customer number"
KIND_SAID: Final[dict[str, Said]] = {
    "organisation": Said("organisation", "Organisation"),
    "person": Said("person", "Person"),
}
CATEGORY_SAID: Final[dict[str, Said]] = {
    "customer": Said("customer", "Kunde"),
    "supplier": Said("supplier", "Lieferant"),
    "partner": Said("partner", "Partner"),
    "prospect": Said("prospect", "Interessent"),
}


class NewContact(msgspec.Struct, frozen=True):
    """An organisation (``name``) or a person (first and family name) with an optional invoice
    address (given when ``city`` is) and email address and phone number."""

    kind: ContactKind
    category: ContactCategory
    name: str | None = None
    first_name: str | None = None
    family_name: str | None = None
    customer_number: str | None = None
    parent_id: int | None = None
    vat_number: str | None = None
    tax_number: str | None = None
    street: str | None = None
    zip: str | None = None
    city: str | None = None
    country_id: int = 1
    email: str | None = None
    phone: str | None = None
    allow_duplicate: bool = False


def full_name(new: NewContact) -> str:
    """:returns: the organisation name, or the first and family name of a person."""
    if new.kind == "organisation":
        return new.name or ""
    return " ".join(p for p in (new.first_name, new.family_name) if p)


class CreatePlan(msgspec.Struct, frozen=True):
    """The exact bodies ``execute_create`` sends, in order."""

    contact: JsonObject
    customer_number: str
    address: JsonObject | None
    ways: tuple[tuple[str, JsonObject], ...]


class ContactWritten(msgspec.Struct, frozen=True, kw_only=True):
    """A contact as sevDesk holds it after the write (read back), and what was written."""

    id: int
    kind: ContactKind
    name: Untrusted | None
    customer_number: str | None
    category: str | None
    status: str | None
    parent_id: int | None
    written: list[str]
    note: str | None = None


async def read_contact(
    client: SevdeskPort, contact_id: int, field: str | None = None
) -> wire.Contact:
    """:returns: the contact with id ``contact_id``.

    :param field: the argument that named the contact; a missing contact is then refused
        saying it takes the sevDesk id, not the customer number, and where to find it.
    :raises PreconditionError: if there is none and ``field`` is given.
    :raises NotFoundError: if there is none otherwise.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    missing = None if field is None else _missing_contact(field)
    return await read_one(client, "Contact", contact_id, wire.Contact, missing=missing)


def _missing_contact(field: str) -> Missing:
    return Missing(
        "contact",
        Action.FIND_CONTACT,
        f" finds the contact by name or customer number and gives its id: {field} is the "
        "sevDesk id of the contact, not its customer number.",
        field,
    )


async def prepare_create(client: SevdeskPort, new: NewContact) -> Prepared[CreatePlan]:
    """Check a new contact against sevDesk and plan its creation (reads only).

    :returns: the preview and the plan.
    :raises PreconditionError: for an unknown country, or a duplicate without
        ``allow_duplicate`` (naming the existing contact's id).
    :raises ToolError: for a parent that is not an organisation.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    parent = await read_contact(client, new.parent_id, "parent_id") if new.parent_id else None
    if parent is not None and is_person(parent):
        raise ToolError(f"Contact {new.parent_id} is a person; a parent must be an organisation.")
    country = await reference_name(client, "StaticCountry", new.country_id) if new.city else ""
    if country is None:
        raise PreconditionError(
            f"There is no country {new.country_id}; ",
            Action.LIST_COUNTRIES,
            " lists them (Germany is 1).",
            record=f"country {new.country_id}",
            field="country_id",
        )
    number = new.customer_number or await _next_number(client)
    matches = await _duplicates(client, new, number)
    if matches and not new.allow_duplicate:
        raise PreconditionError(
            f"A contact like this already exists: {_listed(matches)}. Use that contact (",
            Action.READ_CONTACT,
            " reads it), or set allow_duplicate to true to create another one anyway.",
            field="allow_duplicate",
        )
    plan = _create_plan(new, number)
    found = say(
        "Already in sevDesk: {0}. allow_duplicate creates another one.",
        "Schon in sevDesk: {0}. allow_duplicate legt trotzdem einen weiteren an.",
        _listed_said(matches, new.category),
    )
    warnings = [found] if matches else []
    facts = _create_facts(new, number, parent, country)
    action = say(
        "Create a new contact in sevDesk: {0}, {1}",
        "Neuen Kontakt in sevDesk anlegen: {0}, {1}",
        KIND_SAID[new.kind],
        CATEGORY_SAID[new.category],
    )
    return Prepared(Preview(action=action, facts=facts, warnings=warnings), plan)


async def execute_create(
    client: SevdeskPort, plan: CreatePlan, progress: Progress
) -> ContactWritten:
    """Create the contact, then its address and communication ways; read it back.

    :returns: the contact as sevDesk holds it, and what was created.
    :raises UpstreamError: if a write fails (``progress`` names the writes already made).
    """
    contact_id = await post(client, "Contact", plan.contact)
    progress.done(f"created contact {contact_id}")
    written = [f"contact {contact_id}"]
    if plan.address is not None:
        body = {"contact": ref(contact_id, "Contact"), **plan.address}
        address_id = await post(client, "ContactAddress", body)
        progress.done(f"created invoice address {address_id} of contact {contact_id}")
        written.append(f"invoice address {address_id}")
    for label, way in plan.ways:
        body = {"contact": ref(contact_id, "Contact"), **way}
        way_id = await post(client, "CommunicationWay", body)
        progress.done(f"created {label} {way_id} of contact {contact_id}")
        written.append(f"{label} {way_id}")
    contact, note = await _settle_number(client, contact_id, plan.customer_number, progress)
    return written_contact(contact, written, note)


async def _next_number(client: SevdeskPort) -> str:
    value = await client.get("/Contact/Factory/getNextCustomerNumber")  # a plain read
    if isinstance(value, bool) or not isinstance(value, str | int) or not clean(str(value)):
        raise MalformedResponseError("sevDesk sent no next customer number.")
    return clean(str(value))


def is_person(contact: wire.Contact) -> bool:
    """:returns: whether ``contact`` is a person (no organisation name, Q37)."""
    return not contact.name and bool(contact.surename or contact.familyname)


def written_contact(contact: wire.Contact, written: list[str], note: str | None) -> ContactWritten:
    """:returns: the result DTO of a contact write, untrusted text fenced."""
    category = _category(contact)
    return ContactWritten(
        id=contact.id,
        kind="person" if is_person(contact) else "organisation",
        name=fence(contact_name(contact)),
        customer_number=clean(contact.customerNumber) or None if contact.customerNumber else None,
        category=CATEGORIES.get(category, f"category {category}") if category else None,
        status=STATUSES.get(contact.status or 0),
        parent_id=contact.parent.id if contact.parent else None,
        written=written,
        note=note,
    )


async def all_contacts(client: SevdeskPort) -> list[wire.Contact]:
    entries = await read_whole(client, "/Contact", {"depth": 1}, what="contacts")
    return wire.parse_all(entries, wire.Contact)


async def _duplicates(client: SevdeskPort, new: NewContact, number: str) -> list[tuple[int, str]]:
    contacts = await all_contacts(client)
    wanted = CATEGORY_IDS[new.category]
    matches = []
    for contact in contacts:
        if same_text(contact.customerNumber, number):
            matches.append((contact.id, SAME_NUMBER))
        elif same_text(_plain_name(contact), full_name(new)) and _category(contact) == wanted:
            matches.append((contact.id, f"the same name, also a {new.category}"))
    return matches


def _category(contact: wire.Contact) -> int | None:
    return contact.category.id if contact.category else None


def _plain_name(contact: wire.Contact) -> str:
    if is_person(contact):
        return f"{contact.surename or ''} {contact.familyname or ''}"
    return contact.name or ""


def same_text(text: str | None, other: str) -> bool:
    return bool(text) and clean(text or "").casefold() == clean(other).casefold()


def _listed(matches: list[tuple[int, str]]) -> str:
    shown = [f"contact {ident} ({why})" for ident, why in matches[:MAX_NAMED_MATCHES]]
    more = len(matches) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _listed_said(matches: list[tuple[int, str]], category: ContactCategory) -> Said:
    shown = [_match_said(ident, why, category) for ident, why in matches[:MAX_NAMED_MATCHES]]
    more = len(matches) - len(shown)
    if more > 0:
        shown.append(say("and {0} more", "und {0} weitere", more))
    slots = "; ".join(f"{{{i}}}" for i in range(len(shown)))
    return Said(slots, slots, tuple(shown))


def _match_said(ident: int, why: str, category: ContactCategory) -> Said:
    if why == SAME_NUMBER:
        return say(
            "contact {0} (the same customer number)", "Kontakt {0} (dieselbe Kundennummer)", ident
        )
    return say(
        "contact {0} (the same name, also a {1})",
        "Kontakt {0} (derselbe Name, ebenfalls {1})",
        ident,
        CATEGORY_SAID[category],
    )


def _create_plan(new: NewContact, number: str) -> CreatePlan:
    contact: JsonObject = {
        "category": ref(CATEGORY_IDS[new.category], "Category"),
        "status": ACTIVE,
        "customerNumber": number,
    }
    if new.kind == "organisation":
        contact["name"] = new.name
    else:
        contact.update(surename=new.first_name, familyname=new.family_name)
        if new.parent_id is not None:
            contact["parent"] = ref(new.parent_id, "Contact")
    optional = {"vatNumber": new.vat_number, "taxNumber": new.tax_number}
    contact.update({k: v for k, v in optional.items() if v})
    wanted: tuple[tuple[str, WayType, str | None], ...] = (
        ("email", "EMAIL", new.email),
        ("phone", "PHONE", new.phone),
    )
    ways = tuple((label, way_body(kind, value)) for label, kind, value in wanted if value)
    address = (
        address_body(full_name(new), new.street, new.zip, new.city, new.country_id)
        if new.city
        else None
    )
    return CreatePlan(contact, number, address, ways)


def _create_facts(
    new: NewContact, number: str, parent: wire.Contact | None, country: str
) -> list[Fact]:
    shown_number = (
        Plain(number)
        if new.customer_number
        else say(
            "{0} (the next free number in sevDesk)",
            "{0} (die nächste freie Nummer in sevDesk)",
            number,
        )
    )
    facts = [
        fact("Name", "Name", quoted(full_name(new))),
        fact("Category", "Kategorie", CATEGORY_SAID[new.category]),
        fact("Customer number", "Kundennummer", shown_number),
        fact("Status", "Status", Said("active", "aktiv")),
    ]
    if parent is not None:
        named = say("{0} (id {1})", "{0} (ID {1})", quoted(contact_name(parent)), parent.id)
        facts.append(fact("In organisation", "In Organisation", named))
    optional = (
        ("VAT number", "USt-IdNr.", new.vat_number),
        ("Tax number", "Steuernummer", new.tax_number),
    )
    facts += [fact(en, de, quoted(value)) for en, de, value in optional if value]
    if new.city:
        town = " ".join(p for p in (new.zip, new.city) if p)
        lines = tuple(quoted(line) for line in (new.street, town, country) if line)
        facts.append(fact("Invoice address", "Rechnungsadresse", Lines(lines)))
    ways = (("Email", "E-Mail", new.email), ("Phone", "Telefon", new.phone))
    facts += [fact(en, de, quoted(value)) for en, de, value in ways if value]
    return facts


async def _settle_number(
    client: SevdeskPort, contact_id: int, planned: str, progress: Progress
) -> tuple[wire.Contact, str | None]:
    contact = await read_contact(client, contact_id)
    if same_text(contact.customerNumber, planned):
        return contact, None
    # Q31: a person under an organisation may get the organisation's number
    await client.send("PUT", api_path("Contact", contact_id), json={"customerNumber": planned})
    progress.done(f"corrected the customer number of contact {contact_id}")
    contact = await read_contact(client, contact_id)
    fixed = same_text(contact.customerNumber, planned)
    outcome = "corrected it" if fixed else "did not hold; check the contact in sevDesk"
    return contact, (
        f"sevDesk stored another customer number than {planned} (a known sevDesk quirk for "
        f"persons under an organisation); a second request {outcome}."
    )
