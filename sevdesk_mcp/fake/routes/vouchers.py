"""Vouchers (receipts) and their positions (``docs/sevdesk-api.md`` §2.7, §5.3).

Filters: ``status``, ``creditDebit``, ``descriptionLike`` (substring), ``startDate``/``endDate``
in Unix seconds on ``voucherDate`` (ISO gives an empty list, Q19), ``contact[id]`` (the
supplier) and ``updateAfter`` (Unix seconds, strictly later). ``embed=voucherPos`` is ignored (Q15).
Writes (upload, ``saveVoucher``, DELETE) follow the rules of :mod:`sevdesk_mcp.fake.voucher_saves`.
A voucher's file is its ``document``: ``GET /Document/{id}`` and ``GET /Document/{id}/download``
(both undocumented; the shape follows what clients read, ``spec/DEVIATIONS.md`` D-083).
"""

from __future__ import annotations

import base64

from sevdesk_mcp.fake import voucher_saves
from sevdesk_mcp.fake.listing import (
    Filter,
    after,
    by_int,
    by_ref,
    by_text,
    containing,
    deleted_reply,
    filtered,
    list_reply,
    object_reply,
    one_reply,
    since,
    until,
)
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import iso, to_wire
from sevdesk_mcp.jsontypes import JsonObject

router = Router()

_FILTERS: dict[str, Filter[Voucher]] = {
    "status": by_int(lambda v: v.status),
    "creditDebit": by_text(lambda v: v.creditDebit),
    "descriptionLike": containing(lambda v: v.description),
    "startDate": since(lambda v: v.voucherDate),
    "endDate": until(lambda v: v.voucherDate),
    "contact[id]": by_ref(lambda v: v.supplier),
    "updateAfter": after(lambda v: v.update),
}
_POS_FILTERS: dict[str, Filter[VoucherPos]] = {"voucher[id]": by_ref(lambda p: p.voucher)}


@router.route("GET", "/Voucher")
def list_vouchers(ctx: Context) -> Reply:
    """:returns: the vouchers, filtered; ``embed`` is ignored (Q15)."""
    rows = filtered(list(ctx.store.vouchers), ctx.query, _FILTERS)
    return list_reply(ctx, rows, lambda v: to_wire(v, ctx.store.client_ref))


@router.route("GET", "/Voucher/{id}")
def get_voucher(ctx: Context) -> Reply:
    """:returns: one voucher as an array of one (Q2). :raises FakeError: 404 code 151."""
    voucher = ctx.store.vouchers.get(ctx.path_id("Voucher"))
    return one_reply(to_wire(voucher, ctx.store.client_ref))


@router.route("GET", "/VoucherPos")
def list_voucher_positions(ctx: Context) -> Reply:
    """:returns: the voucher positions, by ``voucher[id]``; accounts are refs (Q43)."""
    rows = filtered(list(ctx.store.voucher_positions), ctx.query, _POS_FILTERS)
    return list_reply(ctx, rows, lambda p: to_wire(p, ctx.store.client_ref))


@router.route("POST", "/Voucher/Factory/uploadTempFile")
def upload_temp_file(ctx: Context) -> Reply:
    """:returns: 201 with the temp file's ``filename`` (§5.3). :raises FakeError: 400."""
    return object_reply(voucher_saves.upload(ctx.store, ctx.body, ctx.content_type), 201)


@router.route("POST", "/Voucher/Factory/saveVoucher")
def save_voucher(ctx: Context) -> Reply:
    """:returns: 201 ``{"voucher", "voucherPos", "filename"}`` (Q1).

    :raises FakeError: 400 (code 90400 for a non-draft), 404 code 151, 422.
    """
    saved = voucher_saves.save_voucher(ctx.store, ctx.json())
    client = ctx.store.client_ref
    payload: JsonObject = {
        "voucher": to_wire(saved.voucher, client),
        "voucherPos": [to_wire(p, client) for p in saved.positions],
        "filename": saved.filename,
    }
    return object_reply(payload, 201)


@router.route("DELETE", "/Voucher/{id}")
def delete_voucher(ctx: Context) -> Reply:
    """:returns: ``{"objects": [null]}`` (Q7). :raises FakeError: 404 code 151, 409 code 159."""
    voucher_saves.delete_voucher(ctx.store, ctx.path_id("Voucher"))
    return deleted_reply()


@router.route("GET", "/Document/{id}")
def get_document(ctx: Context) -> Reply:
    """:returns: a voucher's file as an array of one: its name, extension, size and type.

    :raises FakeError: 404 code 151.
    """
    ident = ctx.path_id("Document")
    file = voucher_saves.document_file(ctx.store, ident)
    row: JsonObject = {
        "id": str(ident),
        "objectName": "Document",
        "create": iso(file.stored),
        "update": iso(file.stored),
        "sevClient": ctx.store.client_ref.wire(),
        "filename": file.name,
        "extension": file.filename.rsplit(".", 1)[-1],
        "mimeType": file.media_type,
        "filesize": str(file.size),
    }
    return one_reply(row)


@router.route("GET", "/Document/{id}/download")
def download_document(ctx: Context) -> Reply:
    """:returns: the file's bytes in base64, as a bare object. :raises FakeError: 404 code 151."""
    file = voucher_saves.document_file(ctx.store, ctx.path_id("Document"))
    payload: JsonObject = {
        "filename": file.name,
        "mimeType": file.media_type,
        "base64Encoded": True,
        "content": base64.b64encode(file.data).decode("ascii"),
    }
    return object_reply(payload)
