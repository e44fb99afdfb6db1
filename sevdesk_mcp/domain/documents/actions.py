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

from sevdesk_mcp.domain.documents import einvoice_finalize
from sevdesk_mcp.domain.documents.email_address import Recipient, recipient
from sevdesk_mcp.domain.documents.facts import document_facts
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.domain.documents.lifecycle import send_once
from sevdesk_mcp.domain.documents.search import cancelled_ids
from sevdesk_mcp.domain.documents.writes import (
    DocumentWritten,
    label,
    named,
    read_back,
    read_document,
    where,
)
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.errors import Said as Message
from sevdesk_mcp.domain.lifecycle_table import Step, Why, after, refusal, said, word
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress, whole
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import NONE, Piece, Preview, Quoted, Said, fact, quoted, say
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document

GOBD: Final = Said(
    "Enshrining (festschreiben) is final (GoBD): the document can never again be changed, "
    "reset to draft or deleted; mistakes can then only be corrected with a cancellation invoice "
    "or a credit note.",
    "Das Festschreiben ist endgültig (GoBD): Das Dokument lässt sich nie wieder ändern, auf "
    "Entwurf zurücksetzen oder löschen; Fehler lassen sich dann nur noch mit einer "
    "Stornorechnung oder einer Gutschrift korrigieren.",
)
NEGATIVE_SUM: Final[Message] = (
    "sevDesk does not enshrine (festschreiben) a document whose sum would be negative (code "
    "7100). Correct the positions of the draft (",
    Action.UPDATE_DRAFT,
    "), or issue a credit note instead.",
)
ACTION_CODES: Final[dict[int, str | Message]] = {7100: NEGATIVE_SUM}
FLAG_CODES: Final[dict[int, str | Message]] = {
    einvoice_finalize.MISSING_CODE: einvoice_finalize.MISSING
}
INTERNATIONAL: Final = Said(
    "A recipient's domain has letters beyond plain ASCII; compare it letter by letter with the "
    "address you expect (the mail goes to the ASCII form shown).",
    "Die Domain eines Empfängers enthält Buchstaben außerhalb von ASCII; vergleichen Sie sie "
    "Buchstabe für Buchstabe mit der erwarteten Adresse (die E-Mail geht an die gezeigte "
    "ASCII-Form).",
)
NO_RECALL: Final = Said(
    "An email cannot be recalled once sevDesk has sent it.",
    "Eine E-Mail lässt sich nicht zurückholen, sobald sevDesk sie versendet hat.",
)


SentWay = Literal["post", "printed"]
SEND_TYPES: Final[dict[SentWay, str]] = {"post": "VP", "printed": "VPR"}
LETTER: Final = Said(
    "sevDesk sends no letter: this only records in sevDesk how the document was sent. Printing "
    "and posting the letter is the user's to do.",
    "sevDesk verschickt keinen Brief: Hier wird nur in sevDesk vermerkt, wie das Dokument "
    "versendet wurde. Drucken und Verschicken des Briefs bleibt beim Nutzer.",
)
RECORDED: Final = Said(
    "Recording the sending is binding: sevDesk keeps it in the document's history as sent.",
    "Der Versandvermerk ist verbindlich: sevDesk führt das Dokument in seinem Verlauf als "
    "versendet.",
)
_HOW: Final[dict[SentWay, Said]] = {
    "post": Said("by post", "per Post"),
    "printed": Said("as printed", "als gedruckt"),
}


NOTHING_SENT: Final = Said(
    "no (nothing is sent; download the PDF later)",
    "nein (es wird nichts versendet; das PDF lässt sich später herunterladen)",
)
POST_IT: Final = Said(
    "not sent by sevDesk: print the PDF and post it yourself",
    "wird nicht von sevDesk verschickt: das PDF selbst drucken und verschicken",
)


class ActionPlan(msgspec.Struct, frozen=True):
    """One request about one document; ``flag`` is the ``saveInvoice`` body sent before it
    that marks a draft invoice as e-invoice (:mod:`.einvoice_finalize`)."""

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
    then = _then(kind_name, doc)
    warnings = [_finalize_warning(kind_name)]
    facts = await document_facts(client, kind_name, doc)
    facts.append(fact("Sent to the customer", "An den Kunden versendet", NOTHING_SENT))
    step = await _e_invoice_step(client, kind_name, doc, wanted=e_invoice)
    action = _finalize_action(kind_name, doc, then, e_invoice=step is not None)
    if step is not None:
        facts += step.facts
        warnings += step.warnings
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
) -> einvoice_finalize.EInvoiceStep | None:
    """:returns: the e-invoice part of finalizing an invoice that is to be, or is marked as,
    an e-invoice; ``None`` for any other document.

    :raises PreconditionError: naming the failing rules, if it breaks one.
    """
    if kind_name != "invoice":
        return None
    if not wanted and not await einvoice_finalize.marked(client, doc.id):
        return None
    return await einvoice_finalize.prepare_e_invoice(client, doc, label(kind_name, doc))


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
    recorded = say(
        "{0} (sevDesk send type {1})", "{0} (sevDesk-Versandart {1})", _HOW[way], SEND_TYPES[way]
    )
    facts.append(fact("Recorded as sent", "Vermerkt als versendet", recorded))
    facts.append(fact("The letter", "Der Brief", POST_IT))
    action = say(
        "Mark {0} as sent {1}", "{0} als {1} versendet vermerken", named(kind_name, doc), _HOW[way]
    )
    if draft:
        action = say(
            "Mark {0} as sent {1}; this finalizes the draft: it gets its number and status {2}",
            "{0} als {1} versendet vermerken; damit wird der Entwurf abgeschlossen: er erhält "
            "seine Nummer und den Status {2}",
            named(kind_name, doc),
            _HOW[way],
            _then(kind_name, doc),
        )
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
        action=say(
            "Enshrine {0} (festschreiben, GoBD): it can never be changed again",
            "{0} festschreiben (GoBD): danach lässt es sich nie wieder ändern",
            named(kind_name, doc),
        ),
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
    warnings = [NO_RECALL]
    if to.international or (cc and cc.international):
        warnings.append(INTERNATIONAL)
    facts = [
        *await document_facts(client, kind_name, doc),
        fact("To", "An", _address(to)),
        fact("Cc", "Cc", _address(cc) if cc else NONE),
        fact("Copy to the sevDesk user", "Kopie an den sevDesk-Nutzer", _yes(email.copy_to_self)),
        fact("Subject", "Betreff der E-Mail", quoted(email.subject)),
        fact("Text", "Text der E-Mail", whole(email.text)),
        fact(
            "Attachment", "Anhang", say("the PDF of {0}", "das PDF von {0}", named(kind_name, doc))
        ),
    ]
    preview = Preview(
        action=say(
            "Send {0} by email to {1}",
            "{0} per E-Mail an {1} versenden",
            named(kind_name, doc),
            Quoted(to.sent),
        ),
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
            client,
            "POST",
            einvoice_finalize.SAVE_PATH,
            codes=FLAG_CODES,
            where=place,
            json=plan.flag,
        )
        progress.done(f"{KINDS[plan.kind].label} {plan.document_id} marked as e-invoice")
        if plan.kept is not None:
            await einvoice_finalize.check_kept(client, plan.document_id, plan.kept, place)
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
    if not doc.sumGross and not doc.sumNet and doc.type() != "MA":  # a reminder has no sum
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


def _finalize_warning(kind_name: KindName) -> Said:
    if kind_name == "order":
        return Said(
            "The order is marked as sent and can no longer be edited as a draft.",
            "Der Auftrag wird als versendet markiert und lässt sich nicht mehr als Entwurf "
            "bearbeiten.",
        )
    return Said(
        "Finalizing gives the document its number and enshrines it (festschreiben, GoBD): it "
        "becomes a binding document in the books and can never again be changed or deleted; "
        "corrections need a cancellation invoice or a credit note.",
        "Das Abschließen vergibt die Nummer und schreibt das Dokument fest (GoBD): Es wird ein "
        "verbindlicher Beleg der Buchhaltung und lässt sich nie wieder ändern oder löschen; "
        "Korrekturen brauchen eine Stornorechnung oder eine Gutschrift.",
    )


def _then(kind_name: KindName, doc: Document) -> Said:
    """:returns: the status finalizing leads to, in both languages.

    :raises PreconditionError: if finalizing is refused in the document's status.
    """
    return said(kind_name, after(kind_name, doc.status, Step.FINALIZE, label(kind_name, doc)))


def _finalize_action(kind_name: KindName, doc: Document, then: Said, *, e_invoice: bool) -> Said:
    if e_invoice:
        return say(
            "Finalize {0} as e-invoice: it gets its number and status {1} and is then binding",
            "{0} als E-Rechnung abschließen: Nummer und Status {1} werden vergeben, danach ist "
            "sie verbindlich",
            named(kind_name, doc),
            then,
        )
    return say(
        "Finalize {0}: it gets its number and status {1} and is then binding",
        "{0} abschließen: Nummer und Status {1} werden vergeben, danach ist das Dokument "
        "verbindlich",
        named(kind_name, doc),
        then,
    )


def _address(to: Recipient) -> Piece:
    if not to.international:
        return Quoted(to.sent)
    return say(
        "{0} (internationalized domain, shown in Unicode as {1})",
        "{0} (internationalisierte Domain, in Unicode: {1})",
        Quoted(to.sent),
        Quoted(to.unicode),
    )


def _yes(value: bool) -> Said:
    return Said("yes", "ja") if value else Said("no", "nein")
