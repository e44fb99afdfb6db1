"""Invoice actions that make new documents, and the number sequences
(``docs/sevdesk-api.md`` §2.1, §2.4, §2.5, Q35).

- ``POST /Invoice/{id}/cancelInvoice`` → **201** ``{"objects": <SR invoice>}``; refusals per
  :func:`~sevdesk_mcp.fake.lifecycle.ensure_cancellable` (code 390 inside HTTP 200).
- ``POST /CreditNote/Factory/createFromInvoice`` ``{"invoice": {id, objectName}}`` → **201**
  ``{"objects": {"creditNote", "creditNotePos", "discount": []}}``.
- ``GET /SevSequence/Factory/getByType?objectType=…&type=…`` → ``{"objects": {"id",
  "objectName": "SevSequence", "format": "RE-%NUMBER", "nextSequence": "1043", "type",
  "objectType", …}}``; reading takes the number unless ``useNextNumber=false``.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.fake.cancellation import cancel_invoice, credit_note_from_invoice
from sevdesk_mcp.fake.coerce import parse_ref
from sevdesk_mcp.fake.factory_wire import factory_payload
from sevdesk_mcp.fake.lifecycle import (
    ensure_cancellable,
    ensure_credit_within,
    ensure_source_invoice,
)
from sevdesk_mcp.fake.listing import object_reply
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import FakeError, to_wire
from sevdesk_mcp.jsontypes import JsonObject

router = Router()

# (objectType, type) -> number prefix; every invoice type shares the RE sequence
SEQUENCES: Final = {
    **{("Invoice", t): "RE-" for t in ("RE", "SR", "MA", "TR", "AR", "ER", "WKR")},
    ("CreditNote", "CN"): "GU-",
    **{("Order", t): "AN-" for t in ("AN", "AB", "LI")},
}
_SEQUENCE_IDS: Final = {"RE-": 1, "GU-": 2, "AN-": 3}


@router.route("POST", "/Invoice/{id}/cancelInvoice")
def post_cancel_invoice(ctx: Context) -> Reply:
    """:returns: 201 with the cancellation invoice (SR).

    :raises FakeError: 404 code 151; the refusals of ``ensure_cancellable``.
    """
    original = ctx.store.invoices.get(ctx.path_id("Invoice"))
    ensure_cancellable(ctx.store, original)
    cancellation, _ = cancel_invoice(ctx.store, original)
    return object_reply(to_wire(cancellation, ctx.store.client_ref), 201)


@router.route("POST", "/CreditNote/Factory/createFromInvoice")
def post_credit_note_from_invoice(ctx: Context) -> Reply:
    """:returns: 201 with a credit-note draft for the whole invoice.

    :raises FakeError: 400 without ``invoice``; 404 code 151 for an unknown invoice; 422 for a
        draft, SR, AR or TR invoice; 422 code 455 when credit notes already cover it.
    """
    body = ctx.json()
    if body.get("invoice") is None:
        raise FakeError(400, "The field 'invoice' is required")
    invoice = ctx.store.invoices.get(parse_ref(body["invoice"], "invoice").id)
    ensure_source_invoice(invoice)
    ensure_credit_within(ctx.store, invoice, 0, invoice.sumGross)
    note, positions = credit_note_from_invoice(ctx.store, invoice)
    client = ctx.store.client_ref
    payload = factory_payload("creditNote", note, positions, client, {"discount": []})
    return object_reply(payload, 201)


@router.route("GET", "/SevSequence/Factory/getByType")
def get_sequence(ctx: Context) -> Reply:
    """:returns: the next number of a sequence; it is taken unless ``useNextNumber=false``.

    :raises FakeError: 400 for a missing or unknown ``objectType``/``type`` pair.
    """
    object_type, kind = ctx.query.get("objectType", ""), ctx.query.get("type", "")
    prefix = SEQUENCES.get((object_type, kind))
    if prefix is None:
        raise FakeError(400, f"Unknown sequence objectType={object_type!r} type={kind!r}")
    value = ctx.store.peek_number(prefix)
    if ctx.query.get("useNextNumber", "").lower() not in ("false", "0"):
        ctx.store.next_number(prefix)
        ctx.store.touch()  # reserving a number is a write: the request counts as applied
    return object_reply(_sequence_wire(ctx, prefix, value, object_type, kind))


def _sequence_wire(
    ctx: Context, prefix: str, value: int, object_type: str, kind: str
) -> JsonObject:
    pattern, width = ctx.store.number_format(prefix)
    return {
        "id": str(_SEQUENCE_IDS[prefix]),
        "objectName": "SevSequence",
        "additionalInformation": None,
        "format": pattern,
        "nextSequence": str(value).zfill(width),
        "type": kind,
        "objectType": object_type,
        "sevClient": ctx.store.client_ref.wire(),
    }
