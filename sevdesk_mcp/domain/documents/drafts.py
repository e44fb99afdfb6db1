"""Drafts of invoices, credit notes and orders (``docs/sevdesk-api.md`` §2.4-2.6): create,
change and delete them through the Factory endpoints (``saveInvoice``, ``saveCreditNote``,
``saveOrder``) and ``DELETE``.

``prepare_*`` only reads: it checks the contact, the tax rule against the rates of the
positions, the amounts and look-alike documents, computes the sums as sevDesk will (per
position, half-up to the cent) and builds the exact body. ``execute_*`` sends it once (Q33) and
reads the document back. A draft has no number (Q22); a credit note gets its number from the
number sequence when it is created (Q35), because sevDesk refuses to finalize one without.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents import credit_note_numbers as numbers
from sevdesk_mcp.domain.documents import draft_checks as checks
from sevdesk_mcp.domain.documents.draft_body import KEY, Draft, document_body
from sevdesk_mcp.domain.documents.draft_extras import ContactChange
from sevdesk_mcp.domain.documents.draft_lines import total_gross
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.domain.documents.lifecycle import send_once
from sevdesk_mcp.domain.documents.writes import (
    DRAFT_SAID,
    DocumentWritten,
    label,
    named,
    read_back,
    read_document,
    where,
)
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.errors import Said as Message
from sevdesk_mcp.domain.lifecycle_table import Step, refusal
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import find_one
from sevdesk_mcp.domain.writes import Prepared, Progress, ref
from sevdesk_mcp.errors import MalformedResponseError, RejectedError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import Preview, Said, amount, fact, quoted, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document

CHANGED_UNDO: Final = Said(
    "While it is a draft it can be changed again; the replaced positions are not kept.",
    "Solange er ein Entwurf ist, lässt er sich erneut ändern; die ersetzten Positionen werden "
    "nicht aufbewahrt.",
)
NO_LONGER_DRAFT: Final[dict[int, str | Message]] = {
    159: (
        "the document is no longer a draft (it was finalized meanwhile, in sevDesk or by another "
        "call), so it can neither be changed nor deleted. Read it again with ",
        Action.READ_DOCUMENT,
        ".",
    )
}
_SAVE: Final = {"invoice": "saveInvoice", "credit_note": "saveCreditNote", "order": "saveOrder"}


class DraftPlan(msgspec.Struct, frozen=True):
    """What ``execute`` sends: the Factory body, and for a new credit note the number to get."""

    kind: KindName
    document_id: int | None
    body: JsonObject
    number_day: dt.date | None = None  # the books' today, when the draft takes a number
    written: tuple[str, ...] = ()
    contact: ContactChange | None = None  # a buyer reference to set on the contact first


class DraftDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """A deleted draft: sevDesk no longer finds it."""

    id: int
    kind: KindName
    deleted: bool
    written: list[str]


async def prepare_create(
    client: SevdeskPort, draft: Draft, *, today: dt.date
) -> Prepared[DraftPlan]:
    """Check a new draft against sevDesk and plan its creation (reads only).

    :param today: the books' today, the day in a credit note's number.

    :returns: the preview and the plan.
    :raises ToolInputError: for a wrong contact, tax rule, rate or amount.
    :raises ToolError: if a document with the same contact, date, amount and header exists.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    body, facts, contact = await document_body(client, draft, None)
    if draft.kind == "credit_note":
        number = await numbers.peek_number(client, today)
        taken = say(
            "{0} (the next number of the number range, taken when the draft is created)",
            "{0} (die nächste Nummer des Nummernkreises, vergeben beim Anlegen des Entwurfs)",
            number,
        )
        facts.insert(1, fact("Credit note number", "Gutschriftnummer", taken))
    if not draft.allow_duplicate:
        gross = total_gross(draft.lines)
        look = checks.Fingerprint(draft.kind, draft.contact_id, draft.day, gross, draft.header)
        await checks.refuse_lookalike(client, look)
    preview = Preview(
        action=say(
            "Create a new {0} in sevDesk; as a draft it can still be changed or deleted",
            "Neuen {0} in sevDesk anlegen; als Entwurf lässt er sich noch ändern oder löschen",
            DRAFT_SAID[draft.kind],
        ),
        facts=facts,
        undo=_created_undo(draft.kind),
    )
    number_day = today if draft.kind == "credit_note" else None
    plan = DraftPlan(draft.kind, None, body, number_day=number_day, contact=contact)
    return Prepared(preview, plan)


async def execute_create(
    client: SevdeskPort, plan: DraftPlan, progress: Progress
) -> DocumentWritten:
    """Create the draft (a credit note first reserves its number) and read it back.

    :returns: the draft as sevDesk holds it.
    :raises UpstreamError: if a write or the read-back fails.
    """
    body = plan.body
    await _set_buyer_reference(client, plan.contact, progress)
    if plan.number_day is not None:
        number = await numbers.take_number(client, plan.number_day)
        progress.done(f"took credit note number {number} from the number range")
        await numbers.refuse_used(client, number)  # the range may not have moved (D-066)
        inner = body["creditNote"]
        assert isinstance(inner, dict)  # built by _document
        body = {**body, "creditNote": {**inner, "creditNoteNumber": number}}
    ident = await _save(client, plan.kind, body)
    progress.done(f"created {KINDS[plan.kind].label} draft {ident}")
    return await read_back(client, plan.kind, ident, [f"{KINDS[plan.kind].label} draft {ident}"])


async def prepare_update(
    client: SevdeskPort, document_id: int, draft: Draft
) -> Prepared[DraftPlan]:
    """Plan replacing a draft's header fields and positions with ``draft`` (reads only).

    :returns: the preview (the new state in full) and the plan.
    :raises ToolInputError: for a wrong contact, tax rule, rate or amount.
    :raises ToolError: if the document is no draft.
    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    current = await draft_document(client, draft.kind, document_id)
    if draft.source_invoice_id is None and current.refSrcInvoice is not None:
        # keeps its invoice
        draft = msgspec.structs.replace(draft, source_invoice_id=current.refSrcInvoice.id)
    body, facts, contact = await document_body(client, draft, current)
    old = await _position_ids(client, draft.kind, document_id)
    pos_model = f"{KINDS[draft.kind].model}Pos"
    body[f"{KEY[draft.kind]}PosDelete"] = [ref(i, pos_model) for i in old] or None
    facts.append(fact("Positions replaced", "Ersetzte Positionen", len(old)))
    preview = Preview(
        action=say(
            "Change {0}: its header fields and all its positions are replaced",
            "{0} ändern: Kopfdaten und alle Positionen werden ersetzt",
            named(draft.kind, current),
        ),
        facts=facts,
        undo=CHANGED_UNDO,
    )
    return Prepared(preview, DraftPlan(draft.kind, document_id, body, contact=contact))


async def execute_update(
    client: SevdeskPort, plan: DraftPlan, progress: Progress
) -> DocumentWritten:
    """Send the planned save and read the draft back.

    :returns: the draft as sevDesk holds it.
    :raises ToolError: if sevDesk refused because the draft was finalized meanwhile.
    :raises UpstreamError: if the write or the read-back fails.
    """
    assert plan.document_id is not None  # an update plan names its draft
    await _set_buyer_reference(client, plan.contact, progress)
    try:
        await _save(client, plan.kind, plan.body, plan.document_id)
    except RejectedError:
        # an enshrined document is refused without a code (422): say why if that is the cause
        await draft_document(client, plan.kind, plan.document_id)
        raise
    progress.done(f"changed {KINDS[plan.kind].label} draft {plan.document_id}")
    written = [f"replaced the header fields and positions of draft {plan.document_id}"]
    return await read_back(client, plan.kind, plan.document_id, written)


async def prepare_delete(
    client: SevdeskPort, kind_name: KindName, document_id: int
) -> Prepared[DraftPlan]:
    """Plan deleting a draft (reads only).

    :returns: the preview and the plan.
    :raises ToolError: if the document is no draft (sevDesk answers 409, code 159).
    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    doc = await draft_document(client, kind_name, document_id, Step.DELETE_DRAFT)
    facts = [
        fact("Document", "Dokument", named(kind_name, doc)),
        fact("Header", "Betreff", quoted(doc.header)),
        fact("Gross", "Brutto", amount(doc.sumGross, doc.currency)),
    ]
    action = say(
        "Delete {0} from sevDesk",
        "{0} in sevDesk löschen",
        named(kind_name, doc),
    )
    preview = Preview(action=action, facts=facts, irreversible=True)
    return Prepared(preview, DraftPlan(kind_name, document_id, {}))


def _created_undo(kind_name: KindName) -> Said:
    if kind_name == "credit_note":
        return Said(
            "While it is a draft it can be deleted again; the credit note number it takes stays "
            "used in the number range.",
            "Solange er ein Entwurf ist, lässt er sich wieder löschen; die vergebene "
            "Gutschriftnummer bleibt im Nummernkreis verbraucht.",
        )
    return Said(
        "While it is a draft it can be deleted again.",
        "Solange er ein Entwurf ist, lässt er sich wieder löschen.",
    )


async def execute_delete(client: SevdeskPort, plan: DraftPlan, progress: Progress) -> DraftDeleted:
    """Delete the draft and check that sevDesk no longer finds it.

    :returns: the deleted draft's id and whether it is gone.
    :raises UpstreamError: if the delete or the check fails.
    """
    assert plan.document_id is not None  # a delete plan names its draft
    path = api_path(KINDS[plan.kind].model, plan.document_id)
    place = where(plan.kind, plan.document_id)
    await send_once(client, "DELETE", path, codes=NO_LONGER_DRAFT, where=place)
    progress.done(f"deleted {KINDS[plan.kind].label} draft {plan.document_id}")
    gone = await find_one(client, KINDS[plan.kind].model, plan.document_id, Document) is None
    written = [f"deleted draft {plan.document_id}"] if gone else []
    return DraftDeleted(id=plan.document_id, kind=plan.kind, deleted=gone, written=written)


async def draft_document(
    client: SevdeskPort, kind_name: KindName, document_id: int, step: Step = Step.UPDATE_DRAFT
) -> Document:
    """:returns: the document, if it is a draft that ``step`` may change or delete.

    :raises PreconditionError: if it is not a draft, naming its status and what to do instead.
    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    doc = await read_document(client, kind_name, document_id)
    refused = refusal(kind_name, doc.status, step, label(kind_name, doc))
    if refused is not None or doc.enshrined is not None:
        raise PreconditionError(
            f"{label(kind_name, doc)} is no draft (status {doc.status}"
            f"{', festgeschrieben' if doc.enshrined else ''}); only drafts can be changed or "
            "deleted. Correct a finalized invoice with ",
            Action.CANCEL_INVOICE,
            " or ",
            Action.CREDIT_NOTE_FROM_INVOICE,
            ".",
            record=label(kind_name, doc),
        )
    return doc


async def _position_ids(client: SevdeskPort, kind_name: KindName, document_id: int) -> list[int]:
    path = api_path(KINDS[kind_name].model, document_id, "getPositions")
    page = await client.get_all(path, max_items=1000)
    return [p.id for p in wire.parse_all(page.items, _Id)]


async def _set_buyer_reference(
    client: SevdeskPort, change: ContactChange | None, progress: Progress
) -> None:
    """Set the buyer reference on the contact, where sevDesk takes it for an e-invoice.

    :raises UpstreamError: if the write fails.
    """
    if change is None:
        return
    path = api_path("Contact", change.contact_id)
    body: JsonObject = {"buyerReference": change.buyer_reference}
    place = f"contact {change.contact_id}"
    await send_once(client, "PUT", path, codes={}, where=place, json=body)
    progress.done(f"set the buyer reference on contact {change.contact_id}")


async def _save(
    client: SevdeskPort, kind_name: KindName, body: JsonObject, document_id: int | None = None
) -> int:
    path = api_path(KINDS[kind_name].model, "Factory", _SAVE[kind_name])
    place = where(kind_name, document_id)
    answer = await send_once(client, "POST", path, codes=NO_LONGER_DRAFT, where=place, json=body)
    saved = answer.get(KEY[kind_name]) if isinstance(answer, dict) else None
    if not isinstance(saved, dict):
        raise MalformedResponseError(
            f"sevDesk answered the save without the {KEY[kind_name]}; look for the draft in "
            "sevDesk before trying again."
        )
    return wire.parse(saved, _Id).id


class _Id(msgspec.Struct, frozen=True):
    id: int
