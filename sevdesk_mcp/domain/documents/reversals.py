"""Taking back a finalized invoice: cancel it (Storno, ``POST /Invoice/{id}/cancelInvoice``) or
draft a credit note from it (``POST /CreditNote/Factory/createFromInvoice``),
``docs/sevdesk-api.md`` §2.4, §2.5, Q29, Q35, §5.7.

``prepare_*`` reads the invoice and refuses, before anything is sent, what sevDesk would refuse
(a draft, a cancellation invoice, an invoice already cancelled, with payments (390, sent inside
HTTP 200) or with a credit note (170), credit notes over the invoice (455)). ``execute_*`` sends
the one request once and reads back what it made.
"""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.kinds import KINDS
from sevdesk_mcp.domain.documents.lifecycle import Target, read_target, send_once
from sevdesk_mcp.domain.documents.search import list_documents
from sevdesk_mcp.domain.documents.writes import DocumentWritten, read_back
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.errors import Said as Message
from sevdesk_mcp.domain.lifecycle_table import Step, Why, refusal, said
from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Created, Prepared, Progress, ref
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import Day, Fact, Preview, Said, amount, fact, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document

RESET_HINT: Final[Message] = (
    "Reset it to open first (Zurücksetzen auf offen, ",
    Action.RESET_TO_OPEN,
    "), which removes all its payment bookings",
)
CREDIT_NOTE_HINT: Final = (
    "Delete the credit note (Gutschrift) first if it is a draft; otherwise correct the invoice "
    "with credit notes only"
)
CANCEL_CODES: Final[dict[int, str | Message]] = {
    390: ("the invoice has payments booked (teilbezahlt). ", *RESET_HINT, ", then cancel it."),
    421: "the invoice is already cancelled (storniert); its Stornorechnung exists. Nothing "
    "was changed.",
    170: f"a credit note (Gutschrift) exists for this invoice. {CREDIT_NOTE_HINT}.",
}
CREDIT_CODES: Final = {
    455: "the credit notes of this invoice would exceed its amount. A credit note over the "
    "whole invoice is not possible while other credit notes exist; change or delete those "
    "first.",
}
IRREVERSIBLE_STORNO: Final = Said(
    "Cancelling creates a cancellation invoice (Stornorechnung) with negative amounts. It is "
    "numbered with the next invoice number and enshrined (festgeschrieben, GoBD): it can never "
    "be changed or deleted, and the cancellation cannot be undone.",
    "Das Stornieren erzeugt eine Stornorechnung mit negativen Beträgen. Sie erhält die nächste "
    "Rechnungsnummer und wird festgeschrieben (GoBD): Sie lässt sich nie ändern oder löschen, "
    "und das Storno lässt sich nicht rückgängig machen.",
)
CREDIT_NOTE_LOCK: Final = Said(
    "While the credit note exists, the invoice cannot be reset to open or cancelled: sevDesk "
    "refuses both with code 170 until the credit note is deleted.",
    "Solange die Gutschrift existiert, lässt sich die Rechnung weder auf offen zurücksetzen "
    "noch stornieren: sevDesk lehnt beides mit Code 170 ab, bis die Gutschrift gelöscht ist.",
)
CREDIT_NOTE_UNDO: Final = Said(
    "While the credit note is a draft it can be deleted again, which lifts the lock on the "
    "invoice.",
    "Solange die Gutschrift ein Entwurf ist, lässt sie sich wieder löschen; damit ist die "
    "Rechnung wieder frei.",
)


class InvoicePlan(msgspec.Struct, frozen=True):
    """The invoice to cancel or to draft a credit note from."""

    invoice: Target


class Cancelled(msgspec.Struct, frozen=True, kw_only=True):
    """The cancelled invoice and its new cancellation invoice (``SR``), both read back."""

    original: DocumentWritten
    cancellation: DocumentWritten


class _FromInvoice(msgspec.Struct, frozen=True):
    creditNote: Created


async def prepare_cancel(client: SevdeskPort, invoice_id: int) -> Prepared[InvoicePlan]:
    """Check that the invoice can be cancelled and preview the Storno (reads only).

    :returns: the preview (irreversible) and the plan.
    :raises ToolError: for a draft, a cancellation invoice, an invoice already cancelled, with
        payments or with a credit note.
    :raises NotFoundError: for an unknown invoice.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    invoice = await _finalized_invoice(client, invoice_id, Step.CANCEL, "cancel")
    where = invoice.where()
    notes = await credit_notes_of(client, invoice.id)
    if notes:  # checked first: it also blocks the reset to open that a payment would need
        raise ToolError(
            f"{where} has the credit note {_numbers(notes)}; sevDesk refuses to cancel it "
            f"(code 170). {CREDIT_NOTE_HINT}."
        )
    paid = refusal("invoice", invoice.status, Step.CANCEL, where)  # teilbezahlt or bezahlt
    if paid is not None or invoice.paid != ZERO:
        raise PreconditionError(
            f"{where} has {invoice.euros(invoice.paid)} paid; sevDesk cancels only invoices "
            "without payments (code 390). ",
            *RESET_HINT,
            ", then cancel it.",
            record=where,
        )
    made = fact(
        "Cancellation invoice",
        "Stornorechnung",
        say(
            "new invoice of type SR over {0}, numbered, enshrined (festgeschrieben)",
            "neue Rechnung vom Typ SR über {0}, nummeriert, festgeschrieben",
            amount(-invoice.gross, invoice.currency),
        ),
    )
    after = Said("cancelled", "storniert")
    action = say(
        "Cancel {0}: a cancellation invoice with negative amounts is created and enshrined",
        "{0} stornieren: eine Stornorechnung mit negativen Beträgen wird erzeugt und "
        "festgeschrieben",
        invoice.named,
    )
    preview = _preview(invoice, made, after, action, IRREVERSIBLE_STORNO)
    preview = msgspec.structs.replace(preview, irreversible=True)
    return Prepared(preview, InvoicePlan(invoice))


async def execute_cancel(client: SevdeskPort, plan: InvoicePlan, progress: Progress) -> Cancelled:
    """Cancel the invoice once and read back it and its cancellation invoice.

    :returns: both invoices as sevDesk now holds them.
    :raises ToolError: for a known refusal (390, 421, 170).
    :raises OutcomeUnknownError: if it was sent and no answer arrived (names what to check).
    :raises UpstreamError: if the write or the read-back fails.
    """
    invoice = plan.invoice
    where = f"{invoice.where()} and the invoices of type SR that refer to it"
    path = api_path("Invoice", invoice.id, "cancelInvoice")
    answer = await send_once(client, "POST", path, codes=CANCEL_CODES, where=where)
    progress.done(f"cancelled {invoice.where()}")
    storno = wire.parse(one(answer), Document)
    number = f"{storno.number()} " if storno.number() else ""
    made = f"Stornorechnung {number}(id {storno.id})"
    original = await read_back(client, "invoice", invoice.id, [f"cancelled with {made}"])
    cancellation = await read_back(client, "invoice", storno.id, [f"created {made}"])
    return Cancelled(original=original, cancellation=cancellation)


async def prepare_credit_note(client: SevdeskPort, invoice_id: int) -> Prepared[InvoicePlan]:
    """Check that a credit note can be drafted from the invoice and preview it (reads only).

    :returns: the preview and the plan.
    :raises ToolError: for a draft, a cancellation invoice, a cancelled invoice, or one whose
        credit notes leave no room for a full one (455).
    :raises NotFoundError: for an unknown invoice.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    invoice = await _finalized_invoice(
        client, invoice_id, Step.CREDIT_NOTE, "draft a credit note from"
    )
    notes = await credit_notes_of(client, invoice.id)
    if notes:
        raise ToolError(
            f"{invoice.where()} already has the credit note {_numbers(notes)}; a credit note over "
            "the whole invoice would exceed it (code 455). Change that credit note instead."
        )
    made = fact(
        "Credit note",
        "Gutschrift/Rechnungskorrektur",
        say(
            "new draft against {0} over {1}, with the invoice's positions",
            "neuer Entwurf zu {0} über {1}, mit den Positionen der Rechnung",
            invoice.named,
            amount(invoice.gross, invoice.currency),
        ),
    )
    after = Said("credit note draft", "Gutschrift als Entwurf")
    action = say(
        "Create a credit note draft over the whole of {0}",
        "Gutschrift als Entwurf über die ganze {0} erstellen",
        invoice.named,
    )
    preview = _preview(invoice, made, after, action, CREDIT_NOTE_LOCK)
    preview = msgspec.structs.replace(preview, undo=CREDIT_NOTE_UNDO)
    return Prepared(preview, InvoicePlan(invoice))


async def execute_credit_note(
    client: SevdeskPort, plan: InvoicePlan, progress: Progress
) -> DocumentWritten:
    """Draft the credit note once and read it back.

    :returns: the new credit note (a draft) as sevDesk holds it.
    :raises ToolError: for a known refusal (455).
    :raises OutcomeUnknownError: if it was sent and no answer arrived (names what to check).
    :raises UpstreamError: if the write or the read-back fails.
    """
    invoice = plan.invoice
    where = f"the credit notes (Gutschriften) of {invoice.where()}"
    body: JsonObject = {"invoice": ref(invoice.id, "Invoice")}
    path = api_path("CreditNote", "Factory", "createFromInvoice")
    answer = await send_once(client, "POST", path, codes=CREDIT_CODES, where=where, json=body)
    progress.done(f"drafted a credit note from {invoice.where()}")
    note = wire.parse(answer, _FromInvoice).creditNote.id
    written = [f"credit note draft {note} from {invoice.where()}"]
    return await read_back(client, "credit_note", note, written)


async def credit_notes_of(client: SevdeskPort, invoice_id: int) -> list[Document]:
    """:returns: the credit notes that refer to the invoice (``refSrcInvoice``).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    notes = await list_documents(client, KINDS["credit_note"], {}, whole=True)
    return [n for n in notes if n.refSrcInvoice is not None and n.refSrcInvoice.id == invoice_id]


async def _finalized_invoice(client: SevdeskPort, invoice_id: int, step: Step, verb: str) -> Target:
    invoice = await read_target(client, "invoice", invoice_id)
    where = invoice.where()
    refused = refusal("invoice", invoice.status, step, where)
    if refused is not None and refused.why is Why.IS_DRAFT:
        raise ToolError(
            f"{where} is a draft (Entwurf) and has no number: nothing to {verb}. Delete or "
            "change the draft instead."
        )
    if invoice.type == "SR":
        raise ToolError(
            f"{where} is itself a cancellation invoice (Stornorechnung); you cannot {verb} it."
        )
    storno = await cancellations_of(client, invoice.id)
    if storno:
        raise ToolError(
            f"{where} is already cancelled (storniert) by the Stornorechnung {_numbers(storno)}"
            f"; you cannot {verb} it."
        )
    return invoice


async def cancellations_of(client: SevdeskPort, invoice_id: int) -> list[Document]:
    """:returns: the cancellation invoices (``SR``) whose ``origin`` is the invoice.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    storno = await list_documents(client, KINDS["invoice"], {"invoiceType": "SR"}, whole=True)
    return [
        d for d in storno if d.type() == "SR" and d.origin is not None and d.origin.id == invoice_id
    ]


def _preview(invoice: Target, made: Fact, after: Said, action: Said, warning: Said) -> Preview:
    """:returns: the preview of a reversal: the invoice, what is made, the status after."""
    day = Day(invoice.date) if invoice.date else Said("no date", "ohne Datum")
    shown = say(
        "{0} (id {1}), {2}, dated {3}",
        "{0} (ID {1}), {2}, vom {3}",
        invoice.named,
        invoice.id,
        said("invoice", invoice.status),
        day,
    )
    facts = [
        fact("Invoice", "Rechnung", shown),
        fact("Customer", "Kunde", invoice.party),
        fact("Gross amount", "Bruttobetrag", amount(invoice.gross, invoice.currency)),
        made,
        fact("Status after", "Status danach", after),
    ]
    return Preview(action=action, facts=facts, warnings=[warning])


def _numbers(documents: list[Document]) -> str:
    return ", ".join(f"{d.number() or 'draft'} (id {d.id})" for d in documents)
