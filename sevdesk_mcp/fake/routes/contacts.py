"""Contacts (``docs/sevdesk-api.md`` §2.2, §5.1).

- GET /Contact returns organisations only unless ``depth=1`` (persons are contacts too, Q37);
  ``customerNumber`` is exact, ``name`` a case-insensitive substring, ``search`` is ignored
  (Q41) like every unknown filter (Q12); ``updateAfter`` takes Unix seconds.
- POST answers 201 with the bare object (Q1) and ``buyerReference: "-"`` when none was sent;
  with ``faults.parent_number_for_persons`` a person with ``parent`` gets the parent's customer
  number instead of the one sent (Q31).
- PUT is a partial update; DELETE answers ``[null]`` (Q7), or 409 code 159 while the contact
  is in use.
- checkCustomerNumberAvailability without ``customerNumber`` is an HTTP 500 (Q32, measured).
"""

from __future__ import annotations

import dataclasses

from sevdesk_mcp.fake.coerce import apply_body
from sevdesk_mcp.fake.listing import (
    Filter,
    after,
    by_text,
    containing,
    deleted_reply,
    filtered,
    list_reply,
    object_reply,
    one_reply,
)
from sevdesk_mcp.fake.models import Contact
from sevdesk_mcp.fake.reference import CONTACT_CATEGORY_IDS
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import CODE_NOT_DELETABLE, FakeError, to_wire
from sevdesk_mcp.jsontypes import JsonObject

router = Router()

CONTACT_STATUSES = frozenset({100, 500, 1000})
FIRST_CUSTOMER_NUMBER = 1001
_FILTERS: dict[str, Filter[Contact]] = {
    "customerNumber": by_text(lambda c: c.customerNumber),
    "name": containing(lambda c: c.name),
    "updateAfter": after(lambda c: c.update),
}


def contact_wire(store: Store, contact: Contact) -> JsonObject:
    """:returns: the wire object of ``contact``."""
    return to_wire(contact, store.client_ref)


def _validate(store: Store, contact: Contact) -> None:
    if contact.category is None:
        raise FakeError(400, "The field 'category' is required")
    if contact.category.id not in CONTACT_CATEGORY_IDS:
        raise FakeError(422, f"Invalid category {contact.category.id} for a contact")
    if not (contact.name or contact.surename or contact.familyname):
        raise FakeError(400, "An organisation needs 'name', a person 'surename' or 'familyname'")
    if contact.status not in CONTACT_STATUSES:
        raise FakeError(422, f"Invalid status {contact.status} for a contact")
    if contact.parent is not None:
        store.contacts.get(contact.parent.id)


@router.route("GET", "/Contact")
def list_contacts(ctx: Context) -> Reply:
    """:returns: the contacts; persons only with ``depth=1``."""
    rows = list(ctx.store.contacts)
    if ctx.query.get("depth", "0") != "1":
        rows = [c for c in rows if not c.is_person]
    rows = filtered(rows, ctx.query, _FILTERS)
    return list_reply(ctx, rows, lambda c: contact_wire(ctx.store, c))


@router.route("GET", "/Contact/{id}")
def get_contact(ctx: Context) -> Reply:
    """:returns: one contact as an array of one (Q2). :raises FakeError: 404 code 151."""
    contact = ctx.store.contacts.get(ctx.path_id("Contact"))
    return one_reply(contact_wire(ctx.store, contact))


@router.route("POST", "/Contact")
def create_contact(ctx: Context) -> Reply:
    """:returns: 201 with the new contact (Q1). :raises FakeError: 400/422 on invalid input."""
    contact = Contact()
    apply_body(contact, ctx.json())
    _validate(ctx.store, contact)
    if contact.buyerReference is None:
        contact.buyerReference = "-"
    if ctx.faults.parent_number_for_persons and contact.parent is not None:
        contact.customerNumber = ctx.store.contacts.get(contact.parent.id).customerNumber
    ctx.store.add(ctx.store.contacts, contact)
    return object_reply(contact_wire(ctx.store, contact), 201)


@router.route("PUT", "/Contact/{id}")
def update_contact(ctx: Context) -> Reply:
    """:returns: the updated contact (partial update). :raises FakeError: 404, 400, 422."""
    current = ctx.store.contacts.get(ctx.path_id("Contact"))
    changed = dataclasses.replace(current)
    apply_body(changed, ctx.json())
    _validate(ctx.store, changed)
    ctx.store.contacts.insert(changed)
    ctx.store.save(changed)
    return object_reply(contact_wire(ctx.store, changed))


@router.route("DELETE", "/Contact/{id}")
def delete_contact(ctx: Context) -> Reply:
    """Delete a contact with its addresses and communication ways.

    :returns: ``{"objects": [null]}`` (Q7).
    :raises FakeError: 404 code 151; 409 code 159 while documents or persons refer to it.
    """
    store = ctx.store
    contact = store.contacts.get(ctx.path_id("Contact"))
    if store.references(contact):
        raise FakeError(
            409, "The contact is still in use and cannot be deleted", code=CODE_NOT_DELETABLE
        )
    for address in store.addresses:
        if address.contact.id == contact.id:
            store.remove(store.addresses, address)
    for way in store.communication_ways:
        if way.contact.id == contact.id:
            store.remove(store.communication_ways, way)
    store.remove(store.contacts, contact)
    return deleted_reply()


def _numeric_customer_numbers(store: Store) -> list[int]:
    return [
        int(c.customerNumber)
        for c in store.contacts
        if c.customerNumber is not None and c.customerNumber.isdigit()
    ]


@router.route("GET", "/Contact/Factory/getNextCustomerNumber")
def next_customer_number(ctx: Context) -> Reply:
    """:returns: the next free customer number as a string, ``{"objects": "1042"}``."""
    numbers = _numeric_customer_numbers(ctx.store)
    return object_reply(str(max(numbers) + 1 if numbers else FIRST_CUSTOMER_NUMBER))


@router.route("GET", "/Contact/Mapper/checkCustomerNumberAvailability")
def customer_number_available(ctx: Context) -> Reply:
    """:returns: ``{"objects": true}`` when no contact has the number.

    :raises FakeError: HTTP 500 without ``customerNumber``, as measured (Q32).
    """
    number = ctx.query.get("customerNumber")
    if number is None:
        raise FakeError(500, "Internal Server Error")
    return object_reply(all(c.customerNumber != number for c in ctx.store.contacts))
