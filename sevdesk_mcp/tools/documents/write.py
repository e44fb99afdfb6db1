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
from sevdesk_mcp.domain.documents.draft_extras import Extras, TaxType, checked
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
    unit_price: Annotated[Decimal, msgspec.Meta(description="Net per unit")]
    tax_rate: Annotated[Decimal, msgspec.Meta(description="Percent: 0, 7, 19; OSS e.g. 20")]
    unit_id: Annotated[int, msgspec.Meta(ge=1, le=10**6, description="Unit id (1 is Stk)")] = 1
    part_id: SevdeskId | None = None
    text: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    discount_percent: Decimal | None = None
    discount_amount: Decimal | None = None


Positions = Annotated[list[PositionInput], msgspec.Meta(min_length=1, max_length=100)]


class DraftFields(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The content of a document draft (shared by create and update)."""

    kind: Kind
    contact_id: SevdeskId
    positions: Positions
    date: Day | None = None
    tax_rule_id: Annotated[
        int,
        msgspec.Meta(ge=1, le=100, description="Tax rule (1 taxable, 11 §19, 18-20 OSS)"),
    ] = 1
    tax_type: (
        Annotated[TaxType, msgspec.Meta(description="Bookkeeping 1.0 only, instead of tax_rule_id")]
        | None
    ) = None
    payment_method_id: (
        Annotated[SevdeskId, msgspec.Meta(description="sevdesk_reference_data")] | None
    ) = None
    currency: Annotated[str, msgspec.Meta(max_length=3, pattern="^[A-Za-z]{3}$")] = "EUR"
    exchange_rate: (
        Annotated[Decimal, msgspec.Meta(description="EUR for 1 unit of currency; not with EUR")]
        | None
    ) = None
    buyer_reference: (
        Annotated[str, msgspec.Meta(max_length=100, description="Leitweg-ID; set on the contact")]
        | None
    ) = None
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
        msgspec.Meta(description="Credit notes; underachievement: a correction"),
    ] = "underachievement"
    order_type: Annotated[
        OrderType,
        msgspec.Meta(description="Orders: AN offer, AB confirmation, LI delivery note"),
    ] = "AN"


class DraftInput(DraftFields, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_create_document_draft``."""

    allow_duplicate: Annotated[bool, msgspec.Meta(description="Create despite a look-alike")] = (
        False
    )
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
        msgspec.Meta(description="Invoices: as e-invoice (XRechnung checked)"),
    ] = False


class MarkSentInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_mark_document_sent``."""

    kind: Kind
    document_id: DocumentId
    way: Annotated[
        actions.SentWay,
        msgspec.Meta(description="post: by post; printed: handed over"),
    ]
    dryRun: DryRun = False


class EmailInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_send_document_email``."""

    kind: Kind
    document_id: DocumentId
    to_email: Email
    subject: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=5000)]
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
                discount=_discount(p, i)[0],
                discount_amount=_discount(p, i)[1],
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
        extras=checked(
            Extras(
                payment_method_id=args.payment_method_id,
                currency=args.currency,
                exchange_rate=args.exchange_rate,
                buyer_reference=args.buyer_reference,
                tax_type=args.tax_type,
            ),
            args.kind,
        ),
    )


def _discount(position: PositionInput, index: int) -> tuple[Decimal, bool]:
    """:returns: the position's discount and whether it is an amount (none: 0 %).

    :raises ToolInputError: if both a percent and an amount are given.
    """
    if position.discount_percent is not None and position.discount_amount is not None:
        raise ToolInputError(
            f"positions[{index}] has discount_percent and discount_amount; give one of them."
        )
    if position.discount_amount is not None:
        return position.discount_amount, True
    return position.discount_percent or Decimal(0), False


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
    return (f"numbers/{args.kind}", *source, *_contact_lock(args))


def _contact_lock(args: DraftFields) -> tuple[str, ...]:
    """:returns: the contact's lock when the draft may set its buyer reference."""
    return (f"contact/{args.contact_id}",) if args.buyer_reference else ()


def _update_locks(args: UpdateDraftInput) -> tuple[str, ...]:
    return (*_document_lock(args), *_contact_lock(args))


def _document_lock(
    args: DocumentRef | UpdateDraftInput | EmailInput | MarkSentInput,
) -> tuple[str, ...]:
    return (f"{args.kind}/{args.document_id}",)


CREATE_DRAFT = define_write_tool(
    name="sevdesk_create_document_draft",
    title="Draft an invoice, credit note or order",
    description=(
        "Drafts an invoice, credit note or order for a contact; binds nothing. A credit note "
        "takes its number when drafted, an invoice when finalized. Refuses a look-alike document "
        "unless allow_duplicate."
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
        "Replaces a draft's whole content, not a patch: read it with sevdesk_get_document and "
        "send all of it back with the edit; omitted fields are cleared or defaulted."
    ),
    toolset="documents",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=UpdateDraftInput,
    output=DocumentWritten,
    prepare=WithContext(_prepare_update),
    execute=plan_only(drafts.execute_update),
    locks=_update_locks,
)

DELETE_DRAFT = define_write_tool(
    name="sevdesk_delete_document_draft",
    title="Delete a document draft",
    description=(
        "Deletes a draft invoice, credit note or order; finalized documents cannot be deleted."
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
        "Finalizes a draft without sending it. An invoice gets its number (a credit note has it "
        "from the draft), becomes open and is enshrined (festschreiben, GoBD). For an order, it "
        "marks it as sent (versendet)."
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
        "Enshrines (festschreiben) a finalized invoice or credit note not yet locked; "
        "irreversible. Finalizing enshrines already; a whole period: "
        "sevdesk_export_datev_enshrined."
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
        "Emails a finalized invoice, credit note or order with its PDF through sevDesk; reaches a "
        "third party and cannot be recalled."
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
        "Records that a document was sent by post or printed; sevDesk sends nothing. Finalizes a "
        "draft as sevdesk_finalize_document does."
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
