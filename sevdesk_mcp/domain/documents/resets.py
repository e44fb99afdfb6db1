"""Resetting an invoice, credit note or receipt to open (``…/resetToOpen``) or to draft
(``…/resetToDraft``), ``docs/sevdesk-api.md`` §2.4, §2.5, §2.7, Q25, Q29, Q30.

- To open takes back ALL payment bookings of the document: its paid amount goes to 0 and the
  bank transactions return to open (unbooked). The preview lists the bookings the transaction
  log shows (it filters on the transaction only, so it is read whole, Q17). A paid receipt in a
  foreign currency is recalculated at today's exchange rate (Q30).
- To draft makes the document editable again; it is refused up front for documents that are
  festgeschrieben (enshrined, GoBD), which can never change, and for documents with payments.
- An invoice with a credit note cannot be reset (code 170); a cancelled one is refused.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.documents.lifecycle import (
    Target,
    TargetKind,
    Written,
    read_back_target,
    read_target,
    send_once,
)
from sevdesk_mcp.domain.documents.reversals import (
    CREDIT_NOTE_HINT,
    cancellations_of,
    credit_notes_of,
)
from sevdesk_mcp.domain.lifecycle_table import Refused, Step, Why, after, decide, word
from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import Fact, Preview
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_finance import CheckAccountTransactionLog

ResetTo = Literal["open", "draft"]
MAX_LOG: Final = 20_000
RESETS: Final = {"open": Step.RESET_TO_OPEN, "draft": Step.RESET_TO_DRAFT}
ACTIONS: Final = {"open": "resetToOpen", "draft": "resetToDraft"}
WORDS: Final = {
    "open": "Zurücksetzen auf offen (reset to open)",
    "draft": "Zurücksetzen auf Entwurf (reset to draft)",
}
RESET_CODES: Final = {
    170: f"a credit note (Gutschrift) exists for this invoice. {CREDIT_NOTE_HINT}.",
}
ALL_BOOKINGS: Final = (
    "Zurücksetzen auf offen removes ALL payment bookings of this document, not only the last "
    "one: its paid amount goes back to 0 and the bank transactions become unbooked (offen) and "
    "must be booked again."
)
EDITABLE: Final = (
    "As a draft (Entwurf) the document is editable again and no longer counts as open in the "
    "books until it is finalized again."
)


class Booking(msgspec.Struct, frozen=True):
    """One entry of the transaction log against a document (signed like the transaction)."""

    transaction_id: int
    amount: Decimal
    date: dt.date | None


class ResetPlan(msgspec.Struct, frozen=True):
    """The document and the reset to send."""

    target: Target
    to: ResetTo

    def summary(self) -> str:
        """:returns: the completed write in words."""
        return f"reset {self.target.where()} to {self.to}"


async def prepare_reset(
    client: SevdeskPort, kind: TargetKind, document_id: int, to: ResetTo
) -> Prepared[ResetPlan]:
    """Check the reset against the document and preview its consequences (reads only).

    :returns: the preview and the plan.
    :raises ToolError: if the document is already there, is a draft (to open), is enshrined or
        has payments (to draft), is cancelled, or has a credit note.
    :raises NotFoundError: for an unknown document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    target = await read_target(client, kind, document_id)
    await _refuse_for_invoices(client, target)
    if to == "open":
        _refuse_open(target)
        bookings, cut = await bookings_of(client, target)
        preview = _open_preview(target, bookings, cut)
    else:
        _refuse_draft(target)
        preview = Preview(
            action=f"{WORDS['draft']}: {target.label}",
            facts=[*_facts(target), Fact("Status", _status_after(target, "draft"))],
            warnings=[EDITABLE],
        )
    return Prepared(preview, ResetPlan(target, to))


async def execute_reset(client: SevdeskPort, plan: ResetPlan, progress: Progress) -> Written:
    """Send the reset once and read the document back.

    :returns: the document as sevDesk now holds it.
    :raises ToolError: for a known refusal (170).
    :raises OutcomeUnknownError: if it was sent and no answer arrived (names what to check).
    :raises UpstreamError: if the write or the read-back fails.
    """
    target = plan.target
    path = api_path(target.model, target.id, ACTIONS[plan.to])
    where = f"{target.where()} (its status and payments)"
    await send_once(client, "PUT", path, codes=RESET_CODES, where=where)
    progress.done(plan.summary())
    return await read_back_target(client, target.kind, target.id, [plan.summary()])


async def bookings_of(client: SevdeskPort, target: Target) -> tuple[list[Booking], bool]:
    """:returns: the transaction-log entries booked against ``target``, and whether the log
        was cut short. The log filters on nothing but the transaction (Q17), so it is read
        whole and matched here.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    page = await client.get_all("/CheckAccountTransactionLog", max_items=MAX_LOG)
    entries = wire.parse_all(page.items, CheckAccountTransactionLog)
    found = [
        Booking(
            e.checkAccountTransaction.id, e.amountPaid or ZERO, dates.berlin_date(e.bookingDate)
        )
        for e in entries
        if e.object is not None
        and e.object.id == target.id
        and e.object.objectName == target.model
        and e.checkAccountTransaction is not None
    ]
    return found, page.truncated


async def _refuse_for_invoices(client: SevdeskPort, target: Target) -> None:
    if target.kind != "invoice":
        return
    where = target.where()
    if target.type == "SR":
        raise ToolError(f"{where} is a cancellation invoice (Stornorechnung); it cannot be reset.")
    if await cancellations_of(client, target.id):
        raise ToolError(
            f"{where} is cancelled (storniert); a cancelled invoice cannot be reset. Write a new "
            "invoice if it is needed again."
        )
    notes = await credit_notes_of(client, target.id)
    if notes:
        named = ", ".join(f"{n.number() or 'draft'} (id {n.id})" for n in notes)
        raise ToolError(
            f"{where} has the credit note {named}; sevDesk refuses to reset it (code 170). "
            f"{CREDIT_NOTE_HINT}."
        )


def _refuse_open(target: Target) -> None:
    where = target.where()
    opened = decide(target.kind, target.status, Step.RESET_TO_OPEN, where)
    if isinstance(opened, Refused):  # a draft
        raise ToolError(
            f"{where} is a draft (Entwurf); only finalized documents are reset to open. "
            "Finalize it instead."
        )
    if target.status == opened and target.paid == ZERO:
        raise ToolError(f"{where} is already open (offen) without payments; nothing to reset.")
    if target.kind == "voucher" and target.enshrined:
        raise ToolError(
            f"{where} is festgeschrieben (enshrined, GoBD); its bookings can no longer change."
        )


def _refuse_draft(target: Target) -> None:
    where = target.where()
    drafted = decide(target.kind, target.status, Step.RESET_TO_DRAFT, where)
    if isinstance(drafted, Refused) and drafted.why is Why.IS_DRAFT:
        raise ToolError(f"{where} is already a draft (Entwurf); nothing to reset.")
    if target.enshrined:
        raise ToolError(
            f"{where} is festgeschrieben (enshrined, GoBD): it can never be changed again, so "
            "it cannot become a draft. Correct it with a cancellation (Storno) or a credit note."
        )
    if isinstance(drafted, Refused) or target.paid != ZERO:
        raise ToolError(
            f"{where} is {target.status_word} with {target.euros(target.paid)} paid; only open "
            "documents without payments go back to draft. Reset it to open first (to=open), "
            "which removes its payment bookings."
        )


def _status_after(target: Target, to: ResetTo) -> str:
    then = after(target.kind, target.status, RESETS[to], target.where())
    return f"{target.status_word} → {word(target.kind, then)}"


def _open_preview(target: Target, bookings: list[Booking], cut: bool) -> Preview:
    facts = [
        *_facts(target),
        Fact("Status", _status_after(target, "open")),
        Fact("Bezahlt (paid)", f"{target.euros(target.paid)} → {target.euros(ZERO)}"),
        Fact("Zahlungen, die entfernt werden (bookings removed)", _bookings(target, bookings)),
    ]
    warnings = [ALL_BOOKINGS]
    if cut:
        warnings.append("The transaction log was too long to read whole; bookings may be missing.")
    if target.kind == "voucher" and target.currency != "EUR":
        warnings.append(
            f"This receipt is in {target.currency}: sevDesk recalculates its EUR amounts at "
            "today's exchange rate when it is reset, so they may change."
        )
    return Preview(action=f"{WORDS['open']}: {target.label}", facts=facts, warnings=warnings)


def _bookings(target: Target, bookings: list[Booking]) -> str:
    if not bookings:
        return "none in the transaction log (bookings without a bank transaction are removed too)"
    lines = [
        f"transaction {b.transaction_id}: {target.euros(b.amount)}"
        + (f" on {b.date.isoformat()}" if b.date else "")
        + " → the transaction becomes unbooked (offen)"
        for b in bookings
    ]
    return "\n".join(lines)


def _facts(target: Target) -> list[Fact]:
    party = "Lieferant (supplier)" if target.credit_debit == "C" else "Kunde (customer)"
    return [
        Fact("Dokument (document)", f"{target.where()}, {target.status_word}"),
        Fact(party, target.contact or "(none)"),
        Fact("Betrag (gross amount)", target.euros(target.gross)),
    ]
