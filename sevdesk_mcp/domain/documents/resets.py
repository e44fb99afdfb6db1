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
from sevdesk_mcp.domain.lifecycle_table import Refused, Step, Why, after, decide, said
from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import Change, Day, Fact, Lines, Preview, Said, amount, fact, say
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_finance import CheckAccountTransactionLog

ResetTo = Literal["open", "draft"]
MAX_LOG: Final = 20_000
RESETS: Final = {"open": Step.RESET_TO_OPEN, "draft": Step.RESET_TO_DRAFT}
ACTIONS: Final = {"open": "resetToOpen", "draft": "resetToDraft"}
RESET_CODES: Final = {
    170: f"a credit note (Gutschrift) exists for this invoice. {CREDIT_NOTE_HINT}.",
}
ALL_BOOKINGS: Final = Said(
    "Resetting to open removes ALL payment bookings of this document, not only the last one: "
    "its paid amount goes back to 0 and the bank transactions become unbooked and must be "
    "booked again.",
    "Das Zurücksetzen auf offen entfernt ALLE Zahlungen dieses Dokuments, nicht nur die "
    "letzte: Der bezahlte Betrag geht auf 0 zurück, und die Bankumsätze werden wieder offen "
    "und müssen neu zugeordnet werden.",
)
EDITABLE: Final = Said(
    "As a draft the document is editable again and no longer counts as open in the books "
    "until it is finalized again.",
    "Als Entwurf ist das Dokument wieder bearbeitbar und zählt in der Buchhaltung nicht mehr "
    "als offen, bis es erneut abgeschlossen wird.",
)
DRAFT_UNDO: Final = Said(
    "Finalizing the draft again makes it open again.",
    "Erneutes Abschließen des Entwurfs macht das Dokument wieder offen.",
)
OPEN_UNDO: Final = Said(
    "The payments can be booked again on the bank transactions afterwards.",
    "Die Zahlungen lassen sich danach erneut auf die Bankumsätze buchen.",
)
LOG_CUT: Final = Said(
    "The transaction log was too long to read whole; bookings may be missing.",
    "Das Zahlungsprotokoll war zu lang, um es ganz zu lesen; Buchungen können fehlen.",
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
            action=say(
                "Reset {0} to draft: it becomes editable again",
                "{0} auf Entwurf zurücksetzen: danach ist das Dokument wieder bearbeitbar",
                target.named,
            ),
            facts=[*_facts(target), fact("Status", "Status", _status_after(target, "draft"))],
            warnings=[EDITABLE],
            undo=DRAFT_UNDO,
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


def _status_after(target: Target, to: ResetTo) -> Change:
    then = after(target.kind, target.status, RESETS[to], target.where())
    return Change(said(target.kind, target.status), said(target.kind, then))


def _open_preview(target: Target, bookings: list[Booking], cut: bool) -> Preview:
    money = target.currency
    facts = [
        *_facts(target),
        fact("Status", "Status", _status_after(target, "open")),
        fact("Paid", "Bezahlt", Change(amount(target.paid, money), amount(ZERO, money))),
        fact("Bookings removed", "Zahlungen, die entfernt werden", _bookings(target, bookings)),
    ]
    warnings = [ALL_BOOKINGS]
    if cut:
        warnings.append(LOG_CUT)
    if target.kind == "voucher" and target.currency != "EUR":
        warnings.append(
            say(
                "This receipt is in {0}: sevDesk recalculates its EUR amounts at today's "
                "exchange rate when it is reset, so they may change.",
                "Dieser Beleg ist in {0}: sevDesk rechnet seine EUR-Beträge beim Zurücksetzen "
                "zum heutigen Wechselkurs neu, sie können sich also ändern.",
                target.currency,
            )
        )
    action = say(
        "Reset {0} to open: all its payment bookings are removed",
        "{0} auf offen zurücksetzen: alle Zahlungen werden entfernt",
        target.named,
    )
    return Preview(action=action, facts=facts, warnings=warnings, undo=OPEN_UNDO)


def _bookings(target: Target, bookings: list[Booking]) -> Lines:
    if not bookings:
        return Lines(
            (
                Said(
                    "none in the transaction log (bookings without a bank transaction are "
                    "removed too)",
                    "keine im Zahlungsprotokoll (Zahlungen ohne Bankumsatz werden ebenfalls "
                    "entfernt)",
                ),
            )
        )
    return Lines(tuple(_booking(target, b) for b in bookings))


def _booking(target: Target, booking: Booking) -> Said:
    paid = amount(booking.amount, target.currency)
    if booking.date is None:
        return say(
            "transaction {0}: {1} → the transaction becomes unbooked",
            "Bankumsatz {0}: {1} → der Umsatz wird wieder offen",
            booking.transaction_id,
            paid,
        )
    return say(
        "transaction {0}: {1} on {2} → the transaction becomes unbooked",
        "Bankumsatz {0}: {1} am {2} → der Umsatz wird wieder offen",
        booking.transaction_id,
        paid,
        Day(booking.date),
    )


def _facts(target: Target) -> list[Fact]:
    party = (
        Said("Supplier", "Lieferant") if target.credit_debit == "C" else Said("Customer", "Kunde")
    )
    return [
        fact("Document", "Dokument", say("{0} (id {1})", "{0} (ID {1})", target.named, target.id)),
        fact("Status now", "Status jetzt", said(target.kind, target.status)),
        Fact(party, target.party),
        fact("Gross amount", "Bruttobetrag", amount(target.gross, target.currency)),
    ]
