"""Parts (articles) (``docs/sevdesk-api.md`` §2.3): ``getStock`` answers a numeric **string**
although the spec says integer (Q6).

POST /Part needs ``name``, ``partNumber``, ``stock``, ``unity`` and ``taxRate`` (400 when one is
missing) and answers 201 with the bare object (Q1); PUT /Part/{id} is a partial update (200).
On bookkeeping 2.0 a tax rate other than 0, 7 or 19 is a validation error (422); an unknown
unit or a status other than 50/100 is a 422 too (our choice).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.coerce import apply_body
from sevdesk_mcp.fake.listing import (
    Filter,
    by_text,
    containing,
    filtered,
    list_reply,
    object_reply,
    one_reply,
)
from sevdesk_mcp.fake.models import Part
from sevdesk_mcp.fake.reference import UNITY_IDS
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, Ref, money, to_wire

router = Router()

REQUIRED: Final = ("name", "partNumber", "stock", "unity", "taxRate")
TAX_RATES_2_0: Final = frozenset({Decimal(0), Decimal(7), Decimal(19)})
PART_STATUSES: Final = frozenset({50, 100})

_FILTERS: dict[str, Filter[Part]] = {
    "partNumber": by_text(lambda p: p.partNumber),
    "name": containing(lambda p: p.name),
}


def _validate(store: Store, part: Part) -> None:
    for name in ("name", "partNumber"):
        if not str(getattr(part, name)).strip():
            raise FakeError(400, f"The field '{name}' is required")
    if store.version == "2.0" and part.taxRate not in TAX_RATES_2_0:
        raise FakeError(422, f"Invalid taxRate {money(part.taxRate)}: only 0, 7 or 19 are allowed")
    if part.unity.id not in UNITY_IDS:
        raise FakeError(422, f"Invalid unity {part.unity.id} for a part")
    if part.status not in PART_STATUSES:
        raise FakeError(422, f"Invalid status {part.status} for a part")


@router.route("GET", "/Part")
def list_parts(ctx: Context) -> Reply:
    """:returns: the parts, by ``partNumber`` (exact) and ``name`` (substring)."""
    rows = filtered(list(ctx.store.parts), ctx.query, _FILTERS)
    return list_reply(ctx, rows, lambda p: to_wire(p, ctx.store.client_ref))


@router.route("GET", "/Part/{id}")
def get_part(ctx: Context) -> Reply:
    """:returns: one part as an array of one (Q2). :raises FakeError: 404 code 151."""
    part = ctx.store.parts.get(ctx.path_id("Part"))
    return one_reply(to_wire(part, ctx.store.client_ref))


@router.route("GET", "/Part/{id}/getStock")
def get_stock(ctx: Context) -> Reply:
    """:returns: ``{"objects": "12"}``, the stock as a string (Q6). :raises FakeError: 404."""
    part = ctx.store.parts.get(ctx.path_id("Part"))
    return object_reply(money(part.stock))


@router.route("POST", "/Part")
def create_part(ctx: Context) -> Reply:
    """:returns: 201 with the new part (bare object, Q1).

    :raises FakeError: 400 for a missing field, 422 for a tax rate outside 0/7/19 (2.0), an
        unknown unit or status.
    """
    body = ctx.json()
    for name in REQUIRED:
        if body.get(name) in (None, ""):
            raise FakeError(400, f"The field '{name}' is required")
    part = Part(name="", partNumber="", unity=Ref("Unity", 0))
    apply_body(part, body)
    _validate(ctx.store, part)
    ctx.store.add(ctx.store.parts, part)
    return object_reply(to_wire(part, ctx.store.client_ref), 201)


@router.route("PUT", "/Part/{id}")
def update_part(ctx: Context) -> Reply:
    """:returns: the updated part (partial update).

    :raises FakeError: 404 for an unknown id, 400/422 as for POST.
    """
    current = ctx.store.parts.get(ctx.path_id("Part"))
    changed = dataclasses.replace(current)
    apply_body(changed, ctx.json())
    _validate(ctx.store, changed)
    ctx.store.parts.insert(changed)
    ctx.store.save(changed)
    return object_reply(to_wire(changed, ctx.store.client_ref))
