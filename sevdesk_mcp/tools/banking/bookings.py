"""Toolset ``banking``, tier ``commit``: book a planned match, mark a transaction private or
not, undo a transaction's bookings (ADR 0003 write flow; a human approves each preview)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.documents.lifecycle import TargetKind
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reconciliation.book import (
    Asked,
    MatchBooked,
    MatchPlan,
    execute_match,
    prepare_match,
)
from sevdesk_mcp.domain.reconciliation.plan import Settle
from sevdesk_mcp.domain.reconciliation.private import (
    Marked,
    PrivatePlan,
    execute_private,
    prepare_private,
)
from sevdesk_mcp.domain.reconciliation.undo import Undone, UndoPlan, execute_undo, prepare_undo
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.vocabulary import BINDING_ANNOTATIONS, DocumentId, DryRun, SevdeskId
from sevdesk_mcp.tools.write_flow import define_write_tool, plan_only

TransactionId = SevdeskId


class BookingRow(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One booking of a match."""

    kind: TargetKind
    document_id: DocumentId
    amount: Annotated[Decimal, msgspec.Meta(description="Positive; default: what fits")] | None = (
        None
    )
    settle: Annotated[
        Settle, msgspec.Meta(description="cash_discount/fees: the rest is written off")
    ] = "auto"


class BookMatchInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_book_match``."""

    transaction_id: TransactionId
    bookings: Annotated[list[BookingRow], msgspec.Meta(min_length=1, max_length=20)]
    date: Annotated[dt.date, msgspec.Meta(description="Default: the value date")] | None = None
    dryRun: DryRun = False


class PrivateInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_mark_transaction_private``."""

    transaction_id: TransactionId
    private: Annotated[bool, msgspec.Meta(description="false: back to unbooked")] = True
    dryRun: DryRun = False


class UndoInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_undo_booking``."""

    transaction_id: TransactionId
    dryRun: DryRun = False


async def _prepare_match(args: BookMatchInput, client: SevdeskPort) -> Prepared[MatchPlan]:
    asked = [Asked(r.kind, r.document_id, r.amount, r.settle) for r in args.bookings]
    return await prepare_match(client, args.transaction_id, asked, args.date)


async def _prepare_private(args: PrivateInput, client: SevdeskPort) -> Prepared[PrivatePlan]:
    return await prepare_private(client, args.transaction_id, args.private)


async def _prepare_undo(args: UndoInput, client: SevdeskPort) -> Prepared[UndoPlan]:
    return await prepare_undo(client, args.transaction_id)


def _match_locks(args: BookMatchInput) -> tuple[str, ...]:
    return (
        f"transaction/{args.transaction_id}",
        *(f"{r.kind}/{r.document_id}" for r in args.bookings),
    )


BOOK_MATCH = define_write_tool(
    name="sevdesk_book_match",
    title="Book a bank match (Abgleich buchen)",
    description=(
        "Books one bank transaction on one or more documents (a plan from "
        "sevdesk_suggest_matches) with one approval; one document without a plan: "
        "sevdesk_book_payment. Undo: sevdesk_undo_booking."
    ),
    toolset="banking",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=BookMatchInput,
    output=MatchBooked,
    prepare=_prepare_match,
    execute=plan_only(execute_match),
    locks=_match_locks,
)

MARK_PRIVATE = define_write_tool(
    name="sevdesk_mark_transaction_private",
    title="Mark a transaction private (Privat)",
    description=(
        "Marks an unbooked bank transaction private (owner's withdrawal or deposit), or with "
        "private=false unbooked again."
    ),
    toolset="banking",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=PrivateInput,
    output=Marked,
    prepare=_prepare_private,
    execute=plan_only(execute_private),
    locks=lambda a: (f"transaction/{a.transaction_id}",),
)

UNDO_BOOKING = define_write_tool(
    name="sevdesk_undo_booking",
    title="Undo a transaction's bookings",
    description=(
        "Takes back a bank transaction's bookings, starting from the transaction: each document "
        "it paid is reset to open, which removes ALL that document's bookings (the preview lists "
        "them)."
    ),
    toolset="banking",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=UndoInput,
    output=Undone,
    prepare=_prepare_undo,
    execute=plan_only(execute_undo),
    locks=lambda a: (f"transaction/{a.transaction_id}",),
)

TOOLS = (BOOK_MATCH, MARK_PRIVATE, UNDO_BOOKING)
