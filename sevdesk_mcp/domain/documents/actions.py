"""Binding steps of a sales document (``docs/sevdesk-api.md`` §2.4-2.6, Q21-Q23, Q25):
finalize (``sendBy`` with ``VPDF`` and ``sendDraft: false``: number, status open, locked),
enshrine (``enshrine``: festgeschrieben for GoBD, irreversible) and send by email
(``sendViaEmail``: reaches the customer; drafts are refused, because sevDesk would finalize them
on the way, a ``commit`` action that an ``external`` tool must not take).

Each ``prepare_*`` reads the document and refuses what sevDesk would refuse or what would
surprise a bookkeeper; its preview names the irreversible consequence in sevDesk's German terms
with their English meaning. Each ``execute_*`` sends one request, once, and reads back.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.documents.email_address import recipient
from sevdesk_mcp.domain.documents.facts import document_facts
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.domain.documents.lifecycle import send_once
from sevdesk_mcp.domain.documents.search import cancelled_ids
from sevdesk_mcp.domain.documents.writes import (
    DocumentWritten,
    label,
    read_back,
    read_document,
    where,
)
from sevdesk_mcp.domain.einvoice import outgoing
from sevdesk_mcp.domain.errors import Action, PreconditionError, Said
from sevdesk_mcp.domain.lifecycle_table import Step, Why, after, refusal, word
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import Fact, Preview
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document

GOBD: Final = (
    "Festschreiben (enshrine) is irreversible (GoBD): the document can never again be "
    "changed, reset to draft or deleted; mistakes can then only be corrected with a "
    "cancellation invoice (Stornorechnung) or a credit note (Gutschrift)."
)
NEGATIVE_SUM: Final[Said] = (
    "sevDesk does not enshrine (festschreiben) a document whose sum would be negative (code "
    "7100). Correct the positions of the draft (",
    Action.UPDATE_DRAFT,
    "), or issue a credit note instead.",
)
ACTION_CODES: Final[dict[int, str | Said]] = {7100: NEGATIVE_SUM}
FLAG_CODES: Final[dict[int, str | Said]] = {outgoing.MISSING_CODE: outgoing.MISSING}
INTERNATIONAL: Final = (
    "A recipient's domain has letters beyond plain ASCII; compare it letter by letter with the "
    "address you expect (the mail goes to the ASCII form shown)."
)


SentWay = Literal["post", "printed"]
SEND_TYPES: Final[dict[SentWay, str]] = {"post": "VP", "printed": "VPR"}
LETTER: Final = (
    "sevDesk sends no letter: this only records in sevDesk how the document was sent. Printing "
    "and posting the letter is the user's to do."
)
RECORDED: Final = (
    "Recording the sending is binding: sevDesk keeps it in the document's history as sent "
    "(versendet)."
)


class ActionPlan(msgspec.Struct, frozen=True):
    """One request about one document; ``flag`` is the ``saveInvoice`` body sent before it
    that marks a draft invoice as e-invoice (:mod:`sevdesk_mcp.domain.einvoice.outgoing`)."""

    kind: KindName
    document_id: int
    method: str
    action: str
    body: JsonObject | None
    done: str
    flag: JsonObject | None = None
    kept: JsonObject | None = None  # what the marking save must leave unchanged


class Email(msgspec.Struct, frozen=True):
    """An email sevDesk sends with the document's PDF attached."""

    to: str
    subject: str
    text: str
    copy_to_self: bool = False
    cc: str | None = None


async def prepare_finalize(
    client: SevdeskPort, kind_name: KindName, document_id: int, *, e_invoice: bool = False
) -> Prepared[ActionPlan]:
    """Plan finalizing a draft without sending it (reads only); an invoice that is to be, or
    is marked as, an e-invoice must pass the outgoing XRechnung preflight first.

    :returns: the preview and the plan.
    :raises ToolInputError: for ``e_invoice`` on a credit note or order.
    :raises ToolError: if the document is no draft or has no positions.
    :raises PreconditionError: naming the failing rules, if an e-invoice breaks one.
    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if e_invoice and kind_name != "invoice":
        raise ToolInputError("e_invoice applies to invoices only; leave it out.")
    doc = await _draft(client, kind_name, document_id, "finalized")
    then = word(kind_name, after(kind_name, doc.status, Step.FINALIZE, label(kind_name, doc)))
    warnings = [_finalize_warning(kind_name)]
    facts = await document_facts(client, kind_name, doc)
    facts.append(Fact("Sent to the customer", "no (nothing is sent; download the PDF later)"))
    step = await _e_invoice_step(client, kind_name, doc, wanted=e_invoice)
    action = f"Finalize {label(kind_name, doc)} (abschließen: number, status {then})"
    if step is not None:
        facts += step.facts
        warnings += step.warnings
        action = (
            f"Finalize {label(kind_name, doc)} as e-invoice (abschließen: number, status {then})"
        )
    preview = Preview(
        action=action, facts=facts, warnings=warnings, irreversible=kind_name != "order"
    )
    body: JsonObject = {"sendType": "VPDF", "sendDraft": False}
    flag = step.flag_body if step is not None else None
    kept = step.kept if step is not None else None
    plan = ActionPlan(kind_name, document_id, "PUT", "sendBy", body, "finalized", flag, kept)
    return Prepared(preview, plan)


async def _e_invoice_step(
    client: SevdeskPort, kind_name: KindName, doc: Document, *, wanted: bool
) -> outgoing.EInvoiceStep | None:
    """:returns: the e-invoice part of finalizing an invoice that is to be, or is marked as,
    an e-invoice; ``None`` for any other document.

    :raises PreconditionError: naming the failing rules, if it breaks one.
    """
    if kind_name != "invoice":
        return None
    if not wanted and not await outgoing.marked(client, doc.id):
        return None
    return await outgoing.prepare_e_invoice(client, doc, label(kind_name, doc))


async def prepare_mark_sent(
    client: SevdeskPort, kind_name: KindName, document_id: int, way: SentWay
) -> Prepared[ActionPlan]:
    """Plan recording that a document was sent by post (``VP``) or printed (``VPR``) with
    ``sendBy``; a draft is finalized by it (reads only).

    :returns: the preview, which says that sevDesk sends nothing, and the plan.
    :raises ToolError: if a draft cannot be finalized (negative sum, no positions, …).
    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    doc = await read_document(client, kind_name, document_id)
    draft = refusal(kind_name, doc.status, Step.FINALIZE, label(kind_name, doc)) is None
    if draft:
        _finalizable(doc, kind_name, "finalized")
    elif kind_name == "invoice" and (
        doc.type() == "SR" or doc.id in await cancelled_ids(client, KINDS["invoice"])
    ):
        raise ToolError(
            f"{label(kind_name, doc)} is cancelled or is a cancellation invoice (Storno); "
            "recording a letter for it would tell nothing true. Nothing was changed."
        )
    how = "by post" if way == "post" else "as printed"
    facts = await document_facts(client, kind_name, doc)
    facts.append(Fact("Recorded as sent", f"{how} (sevDesk send type {SEND_TYPES[way]})"))
    facts.append(Fact("The letter", "not sent by sevDesk: print the PDF and post it yourself"))
    action = f"Mark {label(kind_name, doc)} as sent {how}"
    if draft:
        then = word(kind_name, after(kind_name, doc.status, Step.FINALIZE, label(kind_name, doc)))
        action += f", which finalizes the draft (abschließen: number, status {then})"
    preview = Preview(
        action=action,
        facts=facts,
        warnings=[LETTER, _finalize_warning(kind_name) if draft else RECORDED],
        irreversible=draft and kind_name != "order",
    )
    body: JsonObject = {"sendType": SEND_TYPES[way], "sendDraft": False}
    pdf = f"sevdesk://{KINDS[kind_name].resource}/{document_id}/pdf"
    done = f"marked as sent {how}; print its PDF ({pdf}) and post it"
    return Prepared(preview, ActionPlan(kind_name, document_id, "PUT", "sendBy", body, done))


async def prepare_enshrine(
    client: SevdeskPort, kind_name: KindName, document_id: int
) -> Prepared[ActionPlan]:
    """Plan enshrining a finalized document (reads only).

    :returns: the preview (always with the GoBD warning) and the plan.
    :raises ToolError: for an order, a draft or a document already enshrined.
    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    doc = await read_document(client, kind_name, document_id)
    refused = refusal(kind_name, doc.status, Step.ENSHRINE, label(kind_name, doc))
    if refused is not None and refused.why is Why.NOT_FOR_KIND:
        raise ToolError(
            "sevDesk has no enshrine for orders (offers, confirmations, delivery notes); only "
            "invoices and credit notes are enshrined (festgeschrieben)."
        )
    if doc.enshrined is not None:
        raise ToolError(f"{label(kind_name, doc)} is already enshrined (festgeschrieben).")
    if refused is not None:  # a draft
        raise PreconditionError(
            f"{label(kind_name, doc)} is a draft. Finalize it first (",
            Action.FINALIZE,
            "), which also enshrines it (festschreiben).",
            record=label(kind_name, doc),
        )
    preview = Preview(
        action=f"Festschreiben (enshrine) {label(kind_name, doc)}",
        facts=await document_facts(client, kind_name, doc),
        warnings=[GOBD],
        irreversible=True,
    )
    plan = ActionPlan(kind_name, document_id, "PUT", "enshrine", None, "enshrined")
    return Prepared(preview, plan)


async def prepare_email(
    client: SevdeskPort, kind_name: KindName, document_id: int, email: Email
) -> Prepared[ActionPlan]:
    """Plan sending a document by email through sevDesk (reads only).

    :returns: the preview (recipient, subject and text in full) and the plan.
    :raises ToolInputError: for an address that is not one email address.
    :raises ToolError: for a draft (sending would finalize it; that is its own commit action).
    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    to = recipient(email.to, "to_email")
    cc = recipient(email.cc, "cc_email") if email.cc is not None else None
    if "\n" in email.subject or "\r" in email.subject:
        raise ToolInputError("subject must be one line; remove the line break.")
    doc = await read_document(client, kind_name, document_id)
    # a draft: sendViaEmail would finalize it, a commit action of its own
    if refusal(kind_name, doc.status, Step.EMAIL, label(kind_name, doc)) is not None:
        raise PreconditionError(
            f"{label(kind_name, doc)} is a draft; sending it would also finalize it (number, "
            "festgeschrieben), which needs its own approval. Finalize it first with ",
            Action.FINALIZE,
            ", then send it.",
            record=label(kind_name, doc),
        )
    warnings = ["An email cannot be recalled once sevDesk has sent it."]
    if to.international or (cc and cc.international):
        warnings.append(INTERNATIONAL)
    facts = [
        *await document_facts(client, kind_name, doc),
        Fact("To", to.shown),
        Fact("Cc", cc.shown if cc else "(none)"),
        Fact("Copy to the sevDesk user", "yes" if email.copy_to_self else "no"),
        Fact("Subject", email.subject),
        Fact("Text", email.text),
        Fact("Attachment", f"the PDF of {label(kind_name, doc)}"),
    ]
    preview = Preview(
        action=f"Send {label(kind_name, doc)} by email to {to.sent} (versenden)",
        facts=facts,
        warnings=warnings,
        irreversible=True,
    )
    body: JsonObject = {
        "toEmail": to.sent,
        "subject": email.subject,
        "text": email.text,
        "copy": email.copy_to_self,
        "sendXml": False,
    }
    if cc is not None:
        body["ccEmail"] = cc.sent
    plan = ActionPlan(kind_name, document_id, "POST", "sendViaEmail", body, f"emailed to {to.sent}")
    return Prepared(preview, plan)


async def execute(client: SevdeskPort, plan: ActionPlan, progress: Progress) -> DocumentWritten:
    """Send the planned request once (after the save that marks an e-invoice, if planned:
    should finalizing then fail, the draft stays marked) and read the document back.

    :returns: the document as sevDesk now holds it.
    :raises PreconditionError: if sevDesk refuses the e-invoice for missing data (code 830).
    :raises UpstreamError: if a request or the read-back fails.
    """
    place = where(plan.kind, plan.document_id)
    if plan.flag is not None:
        await send_once(
            client, "POST", outgoing.SAVE_PATH, codes=FLAG_CODES, where=place, json=plan.flag
        )
        progress.done(f"{KINDS[plan.kind].label} {plan.document_id} marked as e-invoice")
        if plan.kept is not None:
            await outgoing.check_kept(client, plan.document_id, plan.kept, place)
    path = api_path(KINDS[plan.kind].model, plan.document_id, plan.action)
    await send_once(
        client,
        plan.method,
        path,
        codes=ACTION_CODES,
        where=place,
        json=plan.body,
    )
    what = f"{KINDS[plan.kind].label} {plan.document_id} {plan.done}"
    progress.done(what)
    return await read_back(client, plan.kind, plan.document_id, [what])


async def _draft(client: SevdeskPort, kind_name: KindName, document_id: int, verb: str) -> Document:
    return _finalizable(await read_document(client, kind_name, document_id), kind_name, verb)


def _finalizable(doc: Document, kind_name: KindName, verb: str) -> Document:
    """:returns: ``doc``, a draft that sevDesk will finalize.

    :raises ToolError: if it is no draft, or has a negative sum, no amount or (a credit note)
        no number.
    """
    if refusal(kind_name, doc.status, Step.FINALIZE, label(kind_name, doc)) is not None:
        raise ToolError(
            f"{label(kind_name, doc)} is already {verb} (status {word(kind_name, doc.status)}); "
            "only drafts can be."
        )
    if doc.sumGross is not None and doc.sumGross < 0:
        raise PreconditionError(
            f"{label(kind_name, doc)} has a negative sum. ",
            *NEGATIVE_SUM,
            record=label(kind_name, doc),
        )
    if not doc.sumGross and not doc.sumNet:
        raise PreconditionError(
            f"{label(kind_name, doc)} has no amount; add positions (",
            Action.UPDATE_DRAFT,
            ") before finalizing it.",
            record=label(kind_name, doc),
        )
    if kind_name == "credit_note" and not doc.creditNoteNumber:
        raise PreconditionError(
            f"Credit note draft {doc.id} has no number, and sevDesk cannot finalize a credit "
            "note without one. Create credit notes with ",
            Action.CREATE_DRAFT,
            ", which takes a number from the number range.",
            record=f"credit note draft {doc.id}",
        )
    return doc


def _finalize_warning(kind_name: KindName) -> str:
    if kind_name == "order":
        return "The order is marked as sent (versendet) and can no longer be edited as a draft."
    return (
        "Finalizing gives the document its number and enshrines it (festschreiben, GoBD): it "
        "becomes a binding document in the books and can never again be changed or deleted; "
        "corrections need a cancellation invoice (Stornorechnung) or a credit note."
    )
