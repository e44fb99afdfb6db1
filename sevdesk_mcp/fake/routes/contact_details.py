"""Addresses and communication ways of contacts (``docs/sevdesk-api.md`` §2.2).

GET /ContactAddress filters on ``contact[id]`` (measured to work); GET /CommunicationWay on
``contact[id]``, ``type`` and ``main``. Other filters are ignored (Q12).

Writes: POST /ContactAddress needs ``contact``, ``country`` and ``category`` and answers 201
with the contact **embedded in full** (measured); PUT /ContactAddress/{id} is a partial update
documented as 201. POST /CommunicationWay needs ``type``, ``value`` and ``key`` (the fake also
``contact``) and answers 201 with ``main`` as ``"0"``/``"1"``; PUT is a partial update (200).
A missing field is a 400, an unknown country, category, key or type a 422 (our choice).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Final

from sevdesk_mcp.fake.coerce import apply_body
from sevdesk_mcp.fake.listing import (
    Filter,
    by_ref,
    by_text,
    filtered,
    list_reply,
    object_reply,
    one_reply,
)
from sevdesk_mcp.fake.models import CommunicationWay, ContactAddress
from sevdesk_mcp.fake.reference import ADDRESS_CATEGORY_IDS, COUNTRY_IDS
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.routes.contacts import contact_wire
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, Ref, to_wire
from sevdesk_mcp.jsontypes import JsonObject

router = Router()

WAY_TYPES: Final = frozenset({"EMAIL", "PHONE", "WEB", "MOBILE", "FAX"})
WAY_KEY_IDS: Final = frozenset(range(1, 9))
_PLACEHOLDER: Final = Ref("Contact", 0)

_ADDRESS_FILTERS: dict[str, Filter[ContactAddress]] = {"contact[id]": by_ref(lambda a: a.contact)}


def _main_filter(way: CommunicationWay, value: str) -> bool:
    wanted = value.strip().lower() in {"1", "true"}
    return way.main == wanted


_WAY_FILTERS: dict[str, Filter[CommunicationWay]] = {
    "contact[id]": by_ref(lambda w: w.contact),
    "type": by_text(lambda w: w.type),
    "main": _main_filter,
}


def _require(body: Mapping[str, object], names: Iterable[str]) -> None:
    for name in names:
        if body.get(name) in (None, ""):
            raise FakeError(400, f"The field '{name}' is required")


def _validate_address(store: Store, address: ContactAddress) -> None:
    store.contacts.get(address.contact.id)
    if address.country is None or address.country.id not in COUNTRY_IDS:
        raise FakeError(422, "Invalid country for a contact address")
    if address.category is None or address.category.id not in ADDRESS_CATEGORY_IDS:
        raise FakeError(422, "Invalid category for a contact address")


def _validate_way(store: Store, way: CommunicationWay) -> None:
    store.contacts.get(way.contact.id)
    if way.type not in WAY_TYPES:
        raise FakeError(422, f"Invalid type {way.type} for a communication way")
    if not way.value.strip():
        raise FakeError(400, "The field 'value' is required")
    if way.key is None or way.key.id not in WAY_KEY_IDS:
        raise FakeError(422, "Invalid key for a communication way")


def _address_with_contact(store: Store, address: ContactAddress) -> JsonObject:
    out = to_wire(address, store.client_ref)
    out["contact"] = contact_wire(store, store.contacts.get(address.contact.id))
    return out


@router.route("GET", "/ContactAddress")
def list_addresses(ctx: Context) -> Reply:
    """:returns: the addresses, by ``contact[id]`` when given."""
    rows: list[ContactAddress] = filtered(list(ctx.store.addresses), ctx.query, _ADDRESS_FILTERS)
    return list_reply(ctx, rows, lambda a: to_wire(a, ctx.store.client_ref))


@router.route("GET", "/ContactAddress/{id}")
def get_address(ctx: Context) -> Reply:
    """:returns: one address as an array of one (Q2). :raises FakeError: 404 code 151."""
    address = ctx.store.addresses.get(ctx.path_id("ContactAddress"))
    return one_reply(to_wire(address, ctx.store.client_ref))


@router.route("POST", "/ContactAddress")
def create_address(ctx: Context) -> Reply:
    """:returns: 201 with the new address, its contact embedded in full (§2.2, measured).

    :raises FakeError: 400 for a missing field, 404 for an unknown contact, 422 for an unknown
        country or category.
    """
    body = ctx.json()
    _require(body, ("contact", "country", "category"))
    address = ContactAddress(contact=_PLACEHOLDER)
    apply_body(address, body)
    _validate_address(ctx.store, address)
    ctx.store.add(ctx.store.addresses, address)
    return object_reply(_address_with_contact(ctx.store, address), 201)


@router.route("PUT", "/ContactAddress/{id}")
def update_address(ctx: Context) -> Reply:
    """:returns: 201 (as documented) with the updated address (partial update).

    :raises FakeError: 404 for an unknown address or contact, 400/422 as for POST.
    """
    current = ctx.store.addresses.get(ctx.path_id("ContactAddress"))
    changed = dataclasses.replace(current)
    apply_body(changed, ctx.json())
    _validate_address(ctx.store, changed)
    ctx.store.addresses.insert(changed)
    ctx.store.save(changed)
    return object_reply(to_wire(changed, ctx.store.client_ref), 201)


@router.route("GET", "/CommunicationWay")
def list_communication_ways(ctx: Context) -> Reply:
    """:returns: the communication ways, by ``contact[id]``, ``type`` and ``main``."""
    rows = filtered(list(ctx.store.communication_ways), ctx.query, _WAY_FILTERS)
    return list_reply(ctx, rows, lambda w: to_wire(w, ctx.store.client_ref))


@router.route("GET", "/CommunicationWay/{id}")
def get_communication_way(ctx: Context) -> Reply:
    """:returns: one communication way as an array of one (Q2). :raises FakeError: 404."""
    way = ctx.store.communication_ways.get(ctx.path_id("CommunicationWay"))
    return one_reply(to_wire(way, ctx.store.client_ref))


@router.route("POST", "/CommunicationWay")
def create_communication_way(ctx: Context) -> Reply:
    """:returns: 201 with the new communication way (bare object, Q1).

    :raises FakeError: 400 for a missing field, 404 for an unknown contact, 422 for an unknown
        type or key.
    """
    body = ctx.json()
    _require(body, ("contact", "type", "value", "key"))
    way = CommunicationWay(contact=_PLACEHOLDER, type="", value="")
    apply_body(way, body)
    _validate_way(ctx.store, way)
    ctx.store.add(ctx.store.communication_ways, way)
    return object_reply(to_wire(way, ctx.store.client_ref), 201)


@router.route("PUT", "/CommunicationWay/{id}")
def update_communication_way(ctx: Context) -> Reply:
    """:returns: the updated communication way (partial update).

    :raises FakeError: 404 for an unknown id or contact, 400/422 as for POST.
    """
    current = ctx.store.communication_ways.get(ctx.path_id("CommunicationWay"))
    changed = dataclasses.replace(current)
    apply_body(changed, ctx.json())
    _validate_way(ctx.store, changed)
    ctx.store.communication_ways.insert(changed)
    ctx.store.save(changed)
    return object_reply(to_wire(changed, ctx.store.client_ref))
