"""Tags and their relations (``docs/sevdesk-api.md`` §2.9; spec tag ``Tag``).

- GET /Tag lists the tags (filters ``id`` and ``name``, exact); GET /Tag/{id} is an array of one
  (Q2). PUT renames (``name``); DELETE removes the tag with every relation it has (Q7 answer).
- POST /Tag/Factory/create takes ``name`` and ``object`` (an Invoice, Order, Voucher or
  CreditNote; the spec's enum) and answers **200** (spec) with the new ``TagRelation`` inside
  ``objects`` (D-001). A tag of the same name is reused and a relation that exists already is
  answered again (both UNVERIFIED); another ``objectName`` (such as ``Contact``) is a 400.
- GET /TagRelation lists every relation; the spec documents no filter, so every query key but
  the paging ones is ignored (Q12). Relations carry ``tag`` and ``object`` as refs.
- The API documents no way to remove one relation: only the whole tag goes (DELETE /Tag/{id}).
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.fake.coerce import parse_ref, parse_text
from sevdesk_mcp.fake.listing import (
    Filter,
    by_int,
    by_text,
    deleted_reply,
    filtered,
    list_reply,
    object_reply,
    one_reply,
)
from sevdesk_mcp.fake.models import Tag, TagRelation
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, Ref, Row, to_wire

router = Router()

TAGGABLE: Final = ("Invoice", "Voucher", "Order", "CreditNote")  # the spec's enum
MAX_TAG_NAME: Final = 255  # UNVERIFIED: the spec gives no length


def tagged_object(store: Store, ref: Ref) -> Row:
    """:returns: the invoice, order, voucher or credit note ``ref`` names.

    :raises FakeError: 400 for another kind of object, 404 code 151 for an unknown id.
    """
    if ref.objectName == "Invoice":
        return store.invoices.get(ref.id)
    if ref.objectName == "CreditNote":
        return store.credit_notes.get(ref.id)
    if ref.objectName == "Order":
        return store.orders.get(ref.id)
    if ref.objectName == "Voucher":
        return store.vouchers.get(ref.id)
    raise FakeError(400, f"object.objectName must be one of {', '.join(TAGGABLE)}")


def _tag_name(value: object) -> str:
    name = parse_text(value, "name").strip() if value is not None else ""
    if not name or len(name) > MAX_TAG_NAME:
        raise FakeError(400, f"The field 'name' must hold 1 to {MAX_TAG_NAME} characters")
    return name


@router.route("GET", "/Tag")
def list_tags(ctx: Context) -> Reply:
    """:returns: the tags, filtered by ``id`` and ``name`` (exact)."""
    filters: dict[str, Filter[Tag]] = {
        "id": by_int(lambda t: t.id),
        "name": by_text(lambda t: t.name),
    }
    rows = filtered(list(ctx.store.tags), ctx.query, filters)
    return list_reply(ctx, rows, lambda t: to_wire(t, ctx.store.client_ref))


@router.route("GET", "/Tag/{id}")
def get_tag(ctx: Context) -> Reply:
    """:returns: one tag as an array of one (Q2). :raises FakeError: 404 code 151."""
    return one_reply(to_wire(ctx.store.tags.get(ctx.path_id("Tag")), ctx.store.client_ref))


@router.route("PUT", "/Tag/{id}")
def rename_tag(ctx: Context) -> Reply:
    """:returns: the renamed tag. :raises FakeError: 404 code 151, 400 for a bad name."""
    tag = ctx.store.tags.get(ctx.path_id("Tag"))
    body = ctx.json()
    if "name" in body:
        tag.name = _tag_name(body["name"])
        ctx.store.save(tag)
    return object_reply(to_wire(tag, ctx.store.client_ref))


@router.route("DELETE", "/Tag/{id}")
def delete_tag(ctx: Context) -> Reply:
    """Delete a tag with all its relations.

    :returns: ``{"objects": [null]}`` (Q7). :raises FakeError: 404 code 151.
    """
    store = ctx.store
    tag = store.tags.get(ctx.path_id("Tag"))
    for relation in store.tag_relations:
        if relation.tag.id == tag.id:
            store.remove(store.tag_relations, relation)
    store.remove(store.tags, tag)
    return deleted_reply()


@router.route("POST", "/Tag/Factory/create")
def create_tag(ctx: Context) -> Reply:
    """Tag one object, creating the tag when none of that name exists.

    :returns: 200 with the relation inside ``objects``.
    :raises FakeError: 400 without ``object``, for an untaggable kind or a bad name; 404 code
        151 for an unknown object.
    """
    store = ctx.store
    body = ctx.json()
    if "object" not in body:
        raise FakeError(400, "The field 'object' is required")
    target = parse_ref(body["object"], "object")
    tagged_object(store, target)
    name = _tag_name(body.get("name"))
    tag = next((t for t in store.tags if t.name == name), None)
    if tag is None:
        tag = store.add(store.tags, Tag(name=name))
    for relation in store.tag_relations:
        if relation.tag.id == tag.id and relation.object == target:
            return object_reply(to_wire(relation, store.client_ref))
    relation = store.add(store.tag_relations, TagRelation(tag=tag.ref(), object=target))
    return object_reply(to_wire(relation, store.client_ref))


@router.route("GET", "/TagRelation")
def list_tag_relations(ctx: Context) -> Reply:
    """:returns: every tag relation, paged; no filter (none is documented, Q12)."""
    rows = list(ctx.store.tag_relations)
    return list_reply(ctx, rows, lambda r: to_wire(r, ctx.store.client_ref))
