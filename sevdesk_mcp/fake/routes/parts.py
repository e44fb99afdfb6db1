"""Parts (articles) (``docs/sevdesk-api.md`` §2.3): ``getStock`` answers a numeric **string**
although the spec says integer (Q6).
"""

from __future__ import annotations

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
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import money, to_wire

router = Router()

_FILTERS: dict[str, Filter[Part]] = {
    "partNumber": by_text(lambda p: p.partNumber),
    "name": containing(lambda p: p.name),
}


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
