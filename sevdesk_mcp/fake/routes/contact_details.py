"""Addresses and communication ways of contacts (``docs/sevdesk-api.md`` §2.2).

GET /ContactAddress filters on ``contact[id]`` (measured to work); GET /CommunicationWay on
``contact[id]``, ``type`` and ``main``. Other filters are ignored (Q12).
"""

from __future__ import annotations

from sevdesk_mcp.fake.listing import Filter, by_ref, by_text, filtered, list_reply, one_reply
from sevdesk_mcp.fake.models import CommunicationWay, ContactAddress
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import to_wire

router = Router()

_ADDRESS_FILTERS: dict[str, Filter[ContactAddress]] = {"contact[id]": by_ref(lambda a: a.contact)}


def _main_filter(way: CommunicationWay, value: str) -> bool:
    wanted = value.strip().lower() in {"1", "true"}
    return way.main == wanted


_WAY_FILTERS: dict[str, Filter[CommunicationWay]] = {
    "contact[id]": by_ref(lambda w: w.contact),
    "type": by_text(lambda w: w.type),
    "main": _main_filter,
}


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
