"""Lenient schemas of sevDesk's tags (``Tag``, ``TagRelation``) and of what names a tagged
object; parsed with :func:`sevdesk_mcp.sevdesk.wire.parse` like every other answer."""

from __future__ import annotations

import msgspec

from sevdesk_mcp.sevdesk.wire import Ref


class Tag(msgspec.Struct, frozen=True):
    """``Tag``: a name of the account's own choosing (third-party text)."""

    id: int
    name: str | None = None


class TagRelation(msgspec.Struct, frozen=True):
    """``TagRelation``: one tag on one object (an Invoice, Order, Voucher or CreditNote)."""

    id: int
    tag: Ref | None = None
    object: Ref | None = None


class Tagged(msgspec.Struct, frozen=True):
    """What names an invoice, credit note, order or voucher: its number (a voucher's is its
    ``description``) and status."""

    id: int
    invoiceNumber: str | None = None
    creditNoteNumber: str | None = None
    orderNumber: str | None = None
    description: str | None = None
    status: int | None = None
