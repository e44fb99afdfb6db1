"""Contacts: organisations and the persons under them, with addresses and communication ways.

sevDesk's ``search`` filter is unreliable (Q41) and ``depth=0`` hides persons, so searching
reads the whole contact list (``depth=1``, paged with an explicit ``limit``) and filters here.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.domain.common import omitted_note, web_link
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_one
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.sevdesk.together import both

MAX_SCANNED_CONTACTS: Final = 10_000
CATEGORIES: Final = {2: "supplier", 3: "customer", 4: "partner", 28: "prospect"}
STATUSES: Final = {100: "lead", 500: "pending", 1000: "active"}
ADDRESS_KINDS: Final = {43: "work", 44: "private", 47: "invoice", 48: "delivery", 49: "pickup"}
Category = Literal["any", "customer", "supplier", "partner", "prospect"]
Untrusted = Annotated[str, msgspec.Meta(description="Third-party text, fenced in ⟦ ⟧")]


class ContactSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One contact in a list."""

    id: int
    kind: Literal["organisation", "person"]
    name: Untrusted | None
    customer_number: str | None
    category: str | None
    status: str | None
    parent_id: int | None
    link: str | None


class ContactList(msgspec.Struct, frozen=True, kw_only=True):
    """Contacts matching a search."""

    contacts: list[ContactSummary]
    total_matches: int
    note: str | None


class Address(msgspec.Struct, frozen=True, kw_only=True):
    """A postal address of a contact."""

    id: int
    kind: str | None
    name: Untrusted | None
    street: Untrusted | None
    zip: str | None
    city: Untrusted | None
    country_id: int | None


class Communication(msgspec.Struct, frozen=True, kw_only=True):
    """An email address, phone number or website."""

    type: str
    value: str
    main: bool


class ContactDetail(msgspec.Struct, frozen=True, kw_only=True):
    """A contact with everything needed to write to or invoice it."""

    contact: ContactSummary
    description: Untrusted | None
    vat_number: str | None
    tax_number: str | None
    buyer_reference: str | None
    default_payment_days: int | None
    addresses: list[Address]
    communication: list[Communication]
    persons: list[ContactSummary]
    parent: ContactSummary | None


async def search_contacts(
    client: SevdeskPort, api_url: str, *, query: str | None, category: Category, limit: int
) -> ContactList:
    """:returns: contacts whose name or customer number contains ``query`` (case-insensitive).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    page = await client.get_all("/Contact", {"depth": 1}, max_items=MAX_SCANNED_CONTACTS)
    contacts = wire.parse_all(page.items, wire.Contact)
    matches = [c for c in contacts if _matches(c, query, category)]
    shown = [summary(c, api_url) for c in matches[:limit]]
    note = omitted_note(len(shown), len(matches), "contacts")
    if page.truncated:
        note = f"Only the first {MAX_SCANNED_CONTACTS} contacts of the account were searched."
    return ContactList(contacts=shown, total_matches=len(matches), note=note)


async def get_contact(client: SevdeskPort, api_url: str, contact_id: int) -> ContactDetail:
    """:returns: the contact with its addresses, communication ways, persons and parent.

    :raises NotFoundError: if there is no such contact.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    by_contact: dict[str, QueryValue] = {
        "contact[id]": contact_id,
        "contact[objectName]": "Contact",
    }
    contact, address_page, way_page = await both(  # all three by the id: read together
        lambda: read_one(client, "Contact", contact_id, wire.Contact),
        lambda: client.get_all("/ContactAddress", by_contact, max_items=100),
        lambda: client.get_all("/CommunicationWay", by_contact, max_items=100),
    )
    addresses = wire.parse_all(address_page.items, wire.ContactAddress)
    ways = wire.parse_all(way_page.items, wire.CommunicationWay)
    persons, parent = await _relatives(client, api_url, contact)
    return ContactDetail(
        contact=summary(contact, api_url),
        description=fence(contact.description),
        vat_number=_plain(contact.vatNumber),
        tax_number=_plain(contact.taxNumber),
        buyer_reference=None if contact.buyerReference == "-" else _plain(contact.buyerReference),
        default_payment_days=contact.defaultTimeToPay,
        addresses=[_address(a) for a in addresses if _belongs(a.contact, contact_id)],
        communication=[_communication(w) for w in ways if _belongs(w.contact, contact_id)],
        persons=persons,
        parent=parent,
    )


async def _relatives(
    client: SevdeskPort, api_url: str, contact: wire.Contact
) -> tuple[list[ContactSummary], ContactSummary | None]:
    if contact.parent is not None:
        parent = await read_one(client, "Contact", contact.parent.id, wire.Contact)
        return [], summary(parent, api_url)
    if _is_person(contact):
        return [], None
    page = await client.get_all("/Contact", {"depth": 1}, max_items=MAX_SCANNED_CONTACTS)
    people = [
        c
        for c in wire.parse_all(page.items, wire.Contact)
        if c.parent is not None and c.parent.id == contact.id
    ]
    return [summary(p, api_url) for p in people], None


def summary(contact: wire.Contact, api_url: str) -> ContactSummary:
    """:returns: the list form of a contact, untrusted text fenced."""
    category = contact.category.id if contact.category else None
    return ContactSummary(
        id=contact.id,
        kind="person" if _is_person(contact) else "organisation",
        name=fence(display_name(contact)),
        customer_number=_plain(contact.customerNumber),
        category=CATEGORIES.get(category, f"category {category}") if category else None,
        status=STATUSES.get(contact.status or 0),
        parent_id=contact.parent.id if contact.parent else None,
        link=web_link(api_url, f"crm/detail/id/{contact.id}"),
    )


def display_name(contact: wire.Contact | wire.ContactName) -> str:
    """:returns: the organisation name, or the person's title, first and family name."""
    if not _is_person(contact):
        return contact.name or ""
    parts = (contact.academicTitle, contact.surename, contact.familyname)
    return " ".join(p for p in parts if p)


def _is_person(contact: wire.Contact | wire.ContactName) -> bool:
    return not contact.name and bool(contact.surename or contact.familyname)


def _matches(contact: wire.Contact, query: str | None, category: Category) -> bool:
    if category != "any":
        wanted = next(k for k, v in CATEGORIES.items() if v == category)
        if contact.category is None or contact.category.id != wanted:
            return False
    if not query:
        return True
    needle = query.casefold()
    haystack = f"{display_name(contact)} {contact.customerNumber or ''}".casefold()
    return needle in haystack


def _address(address: wire.ContactAddress) -> Address:
    kind = address.category.id if address.category else None
    return Address(
        id=address.id,
        kind=ADDRESS_KINDS.get(kind or 0),
        name=fence(address.name),
        street=fence(address.street),
        zip=_plain(address.zip),
        city=fence(address.city),
        country_id=address.country.id if address.country else None,
    )


def _communication(way: wire.CommunicationWay) -> Communication:
    return Communication(type=way.type.lower(), value=clean(way.value), main=bool(way.main))


def _belongs(ref: wire.Ref | None, contact_id: int) -> bool:
    # the filter is applied by sevDesk; checked again because unknown filters are ignored (Q12)
    return ref is not None and ref.id == contact_id


def _plain(value: str | None) -> str | None:
    return clean(value) or None if value else None
