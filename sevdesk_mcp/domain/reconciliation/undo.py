"""Undoing the bookings of a transaction, as far as sevDesk allows (Q29).

sevDesk has no request that removes one booking: only resetting a document to open
(``…/resetToOpen``) takes bookings back, and it takes back ALL of that document's bookings,
also those of other transactions. So the undo resets each document the transaction was booked
against, with the rules and refusals of :mod:`sevdesk_mcp.domain.documents.resets`
(cancelled invoices,
invoices with a credit note, enshrined receipts), and the preview names every other booking
that goes with it.
"""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.domain.banking.accounts import bookings_for
from sevdesk_mcp.domain.banking.payment_checks import read_transaction
from sevdesk_mcp.domain.documents.lifecycle import TargetKind, Written
from sevdesk_mcp.domain.documents.resets import ResetPlan, execute_reset, prepare_reset
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import Fact, Preview, Said, Words, say

KINDS: Final[dict[str, TargetKind]] = {
    "Invoice": "invoice",
    "CreditNote": "credit_note",
    "Voucher": "voucher",
}
CONSEQUENCE: Final = Said(
    "sevDesk cannot remove a single booking: each document below is reset to open, which "
    "removes ALL of its bookings, also those of other bank transactions listed below; they "
    "become unbooked and must be booked again.",
    "sevDesk kann keine einzelne Buchung entfernen: Jedes Dokument unten wird auf offen "
    "zurückgesetzt, und das entfernt ALLE seine Buchungen, auch die anderer Umsätze, die unten "
    "stehen; diese werden unverbucht und müssen neu verbucht werden.",
)

REBOOK: Final = Said(
    "Way back: book the transactions again on their documents (book a match).",
    "Rückweg: die Umsätze wieder auf ihre Dokumente verbuchen (Abgleich buchen).",
)


class UndoPlan(msgspec.Struct, frozen=True):
    """The documents to reset, in order."""

    transaction_id: int
    resets: tuple[ResetPlan, ...]


class Undone(msgspec.Struct, frozen=True, kw_only=True):
    """The documents as read back after the resets."""

    transaction_id: int
    documents: list[Written]


async def prepare_undo(client: SevdeskPort, transaction_id: int) -> Prepared[UndoPlan]:
    """:returns: the preview and the plan of undoing the transaction's bookings.

    :raises ToolError: if nothing is booked, a booking is on something else than a document,
        or a document cannot be reset.
    :raises PreconditionError: for an unknown transaction.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    tx = await read_transaction(client, transaction_id)
    logs, _ = await bookings_for(client, [tx.id])
    targets: dict[tuple[TargetKind, int], None] = {}
    for entry in logs[tx.id]:
        kind = KINDS.get(entry.object.objectName) if entry.object else None
        if kind is None or entry.object is None:
            raise ToolError(
                f"Transaction {tx.id} is booked on something that is not an invoice, credit "
                "note or receipt; undo that booking in sevDesk itself."
            )
        targets[kind, entry.object.id] = None
    if not targets:
        raise ToolError(
            f"Transaction {tx.id} has no bookings to undo. A private transaction is set back "
            "with private=false instead."
        )
    prepared = [await prepare_reset(client, kind, ident, "open") for kind, ident in targets]
    facts = [_of(p.plan.target.named, f) for p in prepared for f in p.preview.facts]
    warnings = [CONSEQUENCE, *dict.fromkeys(w for p in prepared for w in p.preview.warnings[1:])]
    preview = Preview(
        action=say(
            "Undo the bookings of bank transaction {0}.",
            "Die Buchungen des Umsatzes {0} zurücknehmen.",
            tx.id,
        ),
        facts=facts,
        warnings=warnings,
        undo=REBOOK,
    )
    return Prepared(preview, UndoPlan(tx.id, tuple(p.plan for p in prepared)))


def _of(document: Said, item: Fact) -> Fact:
    """:returns: ``item`` of a document's reset, its label led by the document (each label
    its own words, so that the basis tells the documents' facts apart)."""
    led = say("{0} — {1}", "{0} — {1}", document, item.label)
    label = Said(Words("en", "model").text(led), Words("de").text(led))
    return Fact(label, item.value)


async def execute_undo(client: SevdeskPort, plan: UndoPlan, progress: Progress) -> Undone:
    """Reset each document once, in order, reading each back.

    :returns: the documents now.
    :raises ToolError: for a known refusal (170).
    :raises OutcomeUnknownError: if a reset was sent and no answer arrived.
    :raises UpstreamError: if a write or a read-back fails.
    """
    done = [await execute_reset(client, reset, progress) for reset in plan.resets]
    return Undone(transaction_id=plan.transaction_id, documents=done)
