"""Vouchers (receipts) and their positions (``docs/sevdesk-api.md`` §2.7, §5.3).

Filters: ``status``, ``creditDebit``, ``descriptionLike`` (substring), ``startDate``/``endDate``
in Unix seconds on ``voucherDate`` (ISO gives an empty list, Q19), ``contact[id]`` (the
supplier) and ``updateAfter`` (Unix seconds, strictly later). ``embed=voucherPos`` is ignored (Q15).
"""

from __future__ import annotations

from sevdesk_mcp.fake.listing import (
    Filter,
    after,
    by_int,
    by_ref,
    by_text,
    containing,
    filtered,
    list_reply,
    one_reply,
    since,
    until,
)
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import to_wire

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
