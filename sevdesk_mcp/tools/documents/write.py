"""Toolset ``documents``: drafts (tier ``write``), finalize and enshrine (``commit``) and send
by email (``external``) of invoices, credit notes and orders (ADR 0003 write flow).

The logic is in :mod:`sevdesk_mcp.domain.documents.drafts` and
:mod:`sevdesk_mcp.domain.documents.actions`; positions are a list of flat rows (docs/adr/0003).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.documents import actions, drafts
from sevdesk_mcp.domain.documents.actions import ActionPlan
from sevdesk_mcp.domain.documents.draft_body import CreditNoteCategory, Draft, OrderType
from sevdesk_mcp.domain.documents.draft_lines import Line, checked_line
from sevdesk_mcp.domain.documents.drafts import DraftDeleted, DraftPlan
from sevdesk_mcp.domain.documents.kinds import KindName
from sevdesk_mcp.domain.documents.writes import DocumentWritten
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.vocabulary import (
    BINDING_ANNOTATIONS,
    DELETE_ANNOTATIONS,
    WRITE_ANNOTATIONS,
    DocumentId,
    DryRun,
    Email,
    SevdeskId,
    stripped,
)
from sevdesk_mcp.tools.write_flow import PrepareContext, WithContext, define_write_tool, plan_only

Kind = KindName
Text = Annotated[str, msgspec.Meta(max_length=5000)]
Day = dt.date


class PositionInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One position of a document."""

    name: Annotated[str, msgspec.Meta(max_length=200, description="What was sold")]
    quantity: Decimal
    unit_price: Annotated[
        Decimal, msgspec.Meta(description="Net price of one unit in EUR, e.g. 120.00")
    ]
    tax_rate: Annotated[
        Decimal, msgspec.Meta(description='VAT rate in percent: 0, 7 or 19 (19 or "19")')
    ]
    unit_id: Annotated[int, msgspec.Meta(ge=1, le=10**6, description="Unit id (1 is Stk)")] = 1
    part_id: Annotated[SevdeskId, msgspec.Meta(description="Article id")] | None = None
    text: Annotated[str, msgspec.Meta(max_length=2000)] | None = None


Positions = Annotated[list[PositionInput], msgspec.Meta(min_length=1, max_length=100)]


class DraftFields(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The content of a document draft (shared by create and update)."""

    kind: Kind
    contact_id: Annotated[SevdeskId, msgspec.Meta(description="The customer")]
    positions: Positions
    date: Day | None = None
    tax_rule_id: Annotated[
        int, msgspec.Meta(ge=1, le=100, description="Tax rule (1: taxable sales, 11: §19)")
    ] = 1
    header: Annotated[str, msgspec.Meta(max_length=200, description="Title line")] | None = None
    head_text: Text | None = None
    foot_text: Text | None = None
    payment_days: (
        Annotated[int, msgspec.Meta(ge=0, le=365, description="Invoices: days to pay")] | None
    ) = None
    delivery_date: Day | None = None
    source_invoice_id: (
        Annotated[SevdeskId, msgspec.Meta(description="Credit notes: the invoice corrected")] | None
    ) = None
    credit_note_category: Annotated[
        CreditNoteCategory,
        msgspec.Meta(description="Credit notes: underachievement (correction) or provision"),
    ] = "underachievement"
    order_type: Annotated[
        OrderType,
        msgspec.Meta(description="Orders: AN offer, AB confirmation, LI delivery note"),
    ] = "AN"


class DraftInput(DraftFields, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_create_document_draft``."""

    allow_duplicate: Annotated[
        bool, msgspec.Meta(description="Create even if a same-looking document exists")
    ] = False
    dryRun: DryRun = False


class UpdateDraftInput(DraftFields, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_update_document_draft``: the draft's complete new content."""

    document_id: DocumentId
    dryRun: DryRun = False


class DocumentRef(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A document by kind and id."""

    kind: Kind
    document_id: DocumentId
    dryRun: DryRun = False


class FinalizeInput(DocumentRef, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_finalize_document``."""

    e_invoice: Annotated[
        bool,
        msgspec.Meta(description="Invoices: as e-invoice; refused if an XRechnung rule fails"),
    ] = False


class MarkSentInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_mark_document_sent``."""

    kind: Kind
    document_id: DocumentId
    way: Annotated[
        actions.SentWay,
        msgspec.Meta(description="post: sent by post (VP); printed: printed and handed over (VPR)"),
    ]
    dryRun: DryRun = False


class EmailInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_send_document_email``."""

    kind: Kind
    document_id: DocumentId
    to_email: Email
    subject: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=5000, description="Email body")]
    cc_email: Email | None = None
    copy_to_self: Annotated[bool, msgspec.Meta(description="Copy to the sevDesk user")] = False
    dryRun: DryRun = False


def _draft(args: DraftFields, today: dt.date, *, allow_duplicate: bool = False) -> Draft:
    lines = tuple(
        checked_line(
            Line(
                name=stripped(p.name, f"positions[{i}].name") or "",
                quantity=p.quantity,
                price=p.unit_price,
                tax_rate=p.tax_rate,
                unit_id=p.unit_id,
                part_id=p.part_id,
                text=stripped(p.text, f"positions[{i}].text"),
            ),
            i,
        )
        for i, p in enumerate(args.positions)
    )
    if args.kind != "invoice" and args.payment_days is not None:
        raise ToolInputError("payment_days applies to invoices only; leave it out.")
    if args.kind != "credit_note" and args.source_invoice_id is not None:
        raise ToolInputError("source_invoice_id applies to credit notes only; leave it out.")
    return Draft(
        kind=args.kind,
        contact_id=args.contact_id,
        day=args.date or today,
        lines=lines,
        tax_rule_id=args.tax_rule_id,
        header=stripped(args.header, "header"),
        head_text=stripped(args.head_text, "head_text"),
        foot_text=stripped(args.foot_text, "foot_text"),
        payment_days=args.payment_days,
        delivery_day=args.delivery_date,
        source_invoice_id=args.source_invoice_id,
        category=args.credit_note_category,
        order_type=args.order_type,
        allow_duplicate=allow_duplicate,
    )


async def _prepare_create(
    args: DraftInput, client: SevdeskPort, context: PrepareContext
) -> Prepared[DraftPlan]:
    draft = _draft(args, context.today, allow_duplicate=args.allow_duplicate)
    return await drafts.prepare_create(client, draft, today=context.today)


async def _prepare_update(
    args: UpdateDraftInput, client: SevdeskPort, context: PrepareContext
) -> Prepared[DraftPlan]:
    return await drafts.prepare_update(client, args.document_id, _draft(args, context.today))


async def _prepare_delete(args: DocumentRef, client: SevdeskPort) -> Prepared[DraftPlan]:
    return await drafts.prepare_delete(client, args.kind, args.document_id)


async def _prepare_finalize(args: FinalizeInput, client: SevdeskPort) -> Prepared[ActionPlan]:
    return await actions.prepare_finalize(
        client, args.kind, args.document_id, e_invoice=args.e_invoice
    )


async def _prepare_enshrine(args: DocumentRef, client: SevdeskPort) -> Prepared[ActionPlan]:
    return await actions.prepare_enshrine(client, args.kind, args.document_id)


async def _prepare_email(args: EmailInput, client: SevdeskPort) -> Prepared[ActionPlan]:
    email = actions.Email(
        to=args.to_email.strip(),
        subject=stripped(args.subject, "subject") or "",
        text=args.text,
        copy_to_self=args.copy_to_self,
        cc=stripped(args.cc_email, "cc_email"),
    )
    return await actions.prepare_email(client, args.kind, args.document_id, email)


async def _prepare_mark_sent(args: MarkSentInput, client: SevdeskPort) -> Prepared[ActionPlan]:
    return await actions.prepare_mark_sent(client, args.kind, args.document_id, args.way)


def _create_locks(args: DraftInput) -> tuple[str, ...]:
    source = (f"invoice/{args.source_invoice_id}",) if args.source_invoice_id else ()
    return (f"numbers/{args.kind}", *source)


def _document_lock(
    args: DocumentRef | UpdateDraftInput | EmailInput | MarkSentInput,
) -> tuple[str, ...]:
    return (f"{args.kind}/{args.document_id}",)


CREATE_DRAFT = define_write_tool(
    name="sevdesk_create_document_draft",
    title="Draft an invoice, credit note or order",
    description=(
        "Creates a draft (Entwurf) of an invoice, credit note or order for a contact. The tax "
        "rule (1 taxable sales by default) is checked against the VAT rates before anything is "
        "sent; the contact's billing address is copied onto the document; sums are computed as "
        "sevDesk does. A draft binds nothing; invoices get their number when finalized "
        "(sevdesk_finalize_document), credit notes take the next number when drafted. Credit "
        "notes correcting an invoice need source_invoice_id. Refuses a document with the same "
        "contact, date, gross amount and header unless allow_duplicate=true. Returns the draft as "
        "read back."
    ),
    toolset="documents",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=DraftInput,
    output=DocumentWritten,
    prepare=WithContext(_prepare_create),
    execute=plan_only(drafts.execute_create),
    locks=_create_locks,
)

UPDATE_DRAFT = define_write_tool(
    name="sevdesk_update_document_draft",
    title="Change a document draft",
    description=(
        "Replaces the whole content of a draft invoice, credit note or order; it is not a patch. "
        "Read the draft with sevdesk_get_document first and send all of it back with your one "
        "edit, every position included: all old positions are replaced by the ones given; an "
        "omitted optional field is cleared or set to its default (date: today in Berlin, "
        "tax_rule_id 1, unit 1), never kept from the old draft. Texts may be sent with or without "
        "their ⟦ ⟧ fence. Only drafts can change; finalized documents are corrected by "
        "cancellation or credit note."
    ),
    toolset="documents",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=UpdateDraftInput,
    output=DocumentWritten,
    prepare=WithContext(_prepare_update),
    execute=plan_only(drafts.execute_update),
    locks=_document_lock,
)

DELETE_DRAFT = define_write_tool(
    name="sevdesk_delete_document_draft",
    title="Delete a document draft",
    description=(
        "Deletes a draft invoice, credit note or order (status draft, never finalized). Finalized "
        "documents cannot be deleted."
    ),
    toolset="documents",
    tier=Tier.WRITE,
    annotations=DELETE_ANNOTATIONS,
    input=DocumentRef,
    output=DraftDeleted,
    prepare=_prepare_delete,
    execute=plan_only(drafts.execute_delete),
    locks=_document_lock,
)

FINALIZE = define_write_tool(
    name="sevdesk_finalize_document",
    title="Finalize a document draft",
    description=(
        "Finalizes a draft without sending it anywhere. "
        "Invoice or credit note: sevDesk assigns the next number of the number range, the status "
        "becomes open and the document is enshrined (festschreiben, GoBD) at once: locked for "
        "good, it can never be changed, reset to draft or deleted; it can still be reset to open, "
        "cancelled or corrected by a credit note. Order (offer, order "
        "confirmation, delivery note): marks it as sent (versendet), which ends its draft state; "
        "orders keep their number and are never enshrined. An e-invoice is checked first. "
        "Needs a human's approval of the preview. Returns the numbered document."
    ),
    toolset="documents",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=FinalizeInput,
    output=DocumentWritten,
    prepare=_prepare_finalize,
    execute=plan_only(actions.execute),
    locks=_document_lock,
)

ENSHRINE = define_write_tool(
    name="sevdesk_enshrine_document",
    title="Enshrine (festschreiben) a document",
    description=(
        "Enshrines (festschreiben, GoBD) an invoice or credit note that is finalized (open or "
        "paid) but not yet locked, as documents finalized in other ways can be; the enshrined "
        "flag of sevdesk_get_document and search results tells. Documents finalized with "
        "sevdesk_finalize_document are enshrined already; orders cannot be enshrined. "
        "Irreversible: afterwards the document can never be changed, reset to draft or deleted. "
        "Needs a human's approval."
    ),
    toolset="documents",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=DocumentRef,
    output=DocumentWritten,
    prepare=_prepare_enshrine,
    execute=plan_only(actions.execute),
    locks=_document_lock,
)

SEND_EMAIL = define_write_tool(
    name="sevdesk_send_document_email",
    title="Send a document by email",
    description=(
        "Sends an invoice, credit note or order by email through sevDesk with its PDF attached. "
        "Drafts are refused: finalize them first with sevdesk_finalize_document. Reaches a third "
        "party and cannot be recalled; needs a human's approval of recipient, subject and text."
    ),
    toolset="documents",
    tier=Tier.EXTERNAL,
    annotations=BINDING_ANNOTATIONS,
    input=EmailInput,
    output=DocumentWritten,
    prepare=_prepare_email,
    execute=plan_only(actions.execute),
    locks=_document_lock,
)

MARK_SENT = define_write_tool(
    name="sevdesk_mark_document_sent",
    title="Mark a document as sent by post or printed",
    description=(
        "Records in sevDesk that an invoice, credit note or order was sent as a letter "
        "(way=post) or printed (way=printed). sevDesk sends nothing: printing and posting the "
        "letter is the user's to do; print the PDF from sevdesk_document_pdf. A draft is "
        "finalized by this (number, enshrined for invoices and credit notes, as "
        "sevdesk_finalize_document). Binding; needs a human's approval of the preview."
    ),
    toolset="documents",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=MarkSentInput,
    output=DocumentWritten,
    prepare=_prepare_mark_sent,
    execute=plan_only(actions.execute),
    locks=_document_lock,
)

TOOLS = (CREATE_DRAFT, UPDATE_DRAFT, DELETE_DRAFT, FINALIZE, ENSHRINE, SEND_EMAIL, MARK_SENT)
