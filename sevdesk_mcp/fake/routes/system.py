"""System and lookup endpoints (``docs/sevdesk-api.md`` §2.1): version, users, account,
tax rules, countries, units, payment methods, categories and communication-way keys.
"""

from __future__ import annotations

from sevdesk_mcp.fake import reference
from sevdesk_mcp.fake.listing import by_text, filtered, list_reply, object_reply
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import to_wire
from sevdesk_mcp.jsontypes import JsonObject, JsonValue

router = Router()


def _same(obj: JsonObject) -> JsonValue:
    return obj


@router.route("GET", "/Tools/bookkeepingSystemVersion")
def bookkeeping_version(ctx: Context) -> Reply:
    """:returns: ``{"objects": {"version": "2.0"}}`` (§5.8)."""
    return object_reply({"version": ctx.store.version})


@router.route("GET", "/SevUser")
def list_users(ctx: Context) -> Reply:
    """:returns: the users of the account."""
    client = ctx.store.client_ref
    return list_reply(ctx, list(ctx.store.users), lambda u: to_wire(u, client))


@router.route("GET", "/SevClient")
def list_clients(ctx: Context) -> Reply:
    """:returns: the account itself as an array of one (shape UNVERIFIED)."""
    return list_reply(ctx, [ctx.store.client], lambda c: to_wire(c, ctx.store.client_ref))


@router.route("GET", "/TaxRule")
def list_tax_rules(ctx: Context) -> Reply:
    """:returns: the tax rules of §3.4 in the shape of §5.5."""
    return list_reply(ctx, reference.tax_rules(), _same)


@router.route("GET", "/StaticCountry")
def list_countries(ctx: Context) -> Reply:
    """:returns: the countries (Germany is 1)."""
    return list_reply(ctx, reference.countries(), _same)


@router.route("GET", "/Unity")
def list_unities(ctx: Context) -> Reply:
    """:returns: the units (1 is "Stk", UNITY_PIECE, C62)."""
    return list_reply(ctx, reference.unities(), _same)


@router.route("GET", "/PaymentMethod")
def list_payment_methods(ctx: Context) -> Reply:
    """:returns: the payment methods of the account."""
    return list_reply(ctx, reference.payment_methods(ctx.store.client_ref.wire()), _same)


@router.route("GET", "/Category")
def list_categories(ctx: Context) -> Reply:
    """:returns: the categories, filtered by ``objectType`` (Contact, ContactAddress, Part)."""
    rows = filtered(
        reference.categories(),
        ctx.query,
        {"objectType": by_text(lambda c: str(c["objectType"]))},
    )
    return list_reply(ctx, rows, _same)


@router.route("GET", "/CommunicationWayKey")
def list_communication_way_keys(ctx: Context) -> Reply:
    """:returns: the communication-way keys (1 private … 8 invoice address)."""
    return list_reply(ctx, reference.communication_way_keys(), _same)
