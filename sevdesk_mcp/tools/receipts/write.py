"""Toolset ``vouchers``, writes: upload a receipt file, create, change and delete a receipt
draft (tier ``write``), finalize it (``commit``). Payments and resets of receipts are the
document tools' (``sevdesk_book_payment``, ``sevdesk_reset_document`` with kind ``voucher``).

The logic is in :mod:`sevdesk_mcp.domain.receipts`; files are read only through the call's
``ToolContext.files`` (``WithContext``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

import msgspec

from sevdesk_mcp.domain.documents.lifecycle import VoucherWritten
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import drafts, finalize, upload
from sevdesk_mcp.domain.receipts.drafts import ReceiptDraft, ReceiptPlan
from sevdesk_mcp.domain.receipts.lines import ReceiptLine
from sevdesk_mcp.domain.receipts.suppliers import SupplierQuery
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.vocabulary import (
    BINDING_ANNOTATIONS,
    DELETE_ANNOTATIONS,
    WRITE_ANNOTATIONS,
    DryRun,
    SevdeskId,
    stripped,
)
from sevdesk_mcp.tools.write_flow import PrepareContext, WithContext, define_write_tool, plan_only

VoucherId = SevdeskId
Sha256 = Annotated[str, msgspec.Meta(max_length=64, pattern="^[0-9a-fA-F]{64}$")]
TempName = Annotated[str, msgspec.Meta(max_length=200, pattern="^[A-Za-z0-9._-]{1,200}$")]
Line = Annotated[str, msgspec.Meta(max_length=200)]


class UploadInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_upload_receipt``."""

    path: Annotated[
        str,
        msgspec.Meta(
            max_length=1024,
            description="In SEVDESK_FILE_DIRS; over HTTP an upload:<id>",
        ),
    ]
    sha256: Annotated[Sha256, msgspec.Meta(description="Refuse unless the file has it")] | None = (
        None
    )
    dryRun: DryRun = False


class PositionInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One position of a receipt, as printed."""

    account_number: Annotated[
        str,
        msgspec.Meta(
            max_length=8, pattern="^[0-9]{4,8}$", description="Booking account, e.g. 4930"
        ),
    ]
    tax_rate: Literal[0, 7, 19]
    net: Decimal
    gross: Decimal
    text: Line | None = None


class DraftFields(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The content of a receipt draft (create and update)."""

    kind: Literal["expense", "revenue"] = "expense"
    date: dt.date
    positions: Annotated[list[PositionInput], msgspec.Meta(min_length=1, max_length=100)]
    supplier_id: SevdeskId | None = None
    supplier_name: Line | None = None
    supplier_vat_id: Annotated[str, msgspec.Meta(max_length=20)] | None = None
    supplier_iban: Annotated[str, msgspec.Meta(max_length=42)] | None = None
    receipt_number: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    tax_rule_id: (
        Annotated[
            int,
            msgspec.Meta(ge=1, le=100, description="2.0: 9 input tax (default); 1 taxable sales"),
        ]
        | None
    ) = None
    tax_type: (
        Annotated[
            Literal["default", "eu", "noteu", "ss"],
            msgspec.Meta(description="Bookkeeping 1.0, instead of tax_rule_id"),
        ]
        | None
    ) = None
    file: Annotated[TempName, msgspec.Meta(description="filename from upload")] | None = None
    file_sha256: (
        Annotated[Sha256, msgspec.Meta(description="sha256 from upload; checked after saving")]
        | None
    ) = None
    delivery_date: dt.date | None = None
    payment_deadline: dt.date | None = None


class CreateInput(DraftFields, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_create_receipt_draft``."""

    allow_duplicate: bool = False
    dryRun: DryRun = False


class UpdateInput(DraftFields, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_update_receipt_draft``: the draft's complete new content."""

    voucher_id: VoucherId
    dryRun: DryRun = False


class VoucherRef(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A receipt by id."""

    voucher_id: VoucherId
    dryRun: DryRun = False


def _draft(args: DraftFields, allow_duplicate: bool = False) -> ReceiptDraft:
    supplier = SupplierQuery(
        contact_id=args.supplier_id,
        name=stripped(args.supplier_name, "supplier_name"),
        vat_id=stripped(args.supplier_vat_id, "supplier_vat_id"),
        iban=stripped(args.supplier_iban, "supplier_iban"),
    )
    lines = [
        ReceiptLine(p.account_number, Decimal(p.tax_rate), p.net, p.gross, p.text)
        for p in args.positions
    ]
    return ReceiptDraft(
        kind=args.kind,
        day=args.date,
        receipt_number=stripped(args.receipt_number, "receipt_number"),
        supplier=supplier,
        tax_rule_id=args.tax_rule_id,
        tax_type=args.tax_type,
        lines=lines,
        file=args.file,
        file_sha256=args.file_sha256,
        delivery_date=args.delivery_date,
        payment_deadline=args.payment_deadline,
        allow_duplicate=allow_duplicate,
    )


async def _prepare_upload(
    args: UploadInput, client: SevdeskPort, context: PrepareContext
) -> Prepared[upload.UploadPlan]:
    return upload.prepare_upload(await context.files.fetch(args.path), args.path, args.sha256)


async def _prepare_create(args: CreateInput, client: SevdeskPort) -> Prepared[ReceiptPlan]:
    return await drafts.prepare_create(client, _draft(args, args.allow_duplicate))


async def _prepare_update(args: UpdateInput, client: SevdeskPort) -> Prepared[ReceiptPlan]:
    return await drafts.prepare_update(client, args.voucher_id, _draft(args))


async def _prepare_delete(args: VoucherRef, client: SevdeskPort) -> Prepared[ReceiptPlan]:
    return await drafts.prepare_delete(client, args.voucher_id)


async def _prepare_finalize(
    args: VoucherRef, client: SevdeskPort
) -> Prepared[finalize.FinalizePlan]:
    return await finalize.prepare_finalize(client, args.voucher_id)


UPLOAD_RECEIPT = define_write_tool(
    name="sevdesk_upload_receipt",
    title="Upload a receipt file",
    description=(
        "Uploads a receipt file (PDF, PNG, JPEG, XML; up to 20 MiB) to sevDesk; the filename goes "
        "to sevdesk_create_receipt_draft."
    ),
    toolset="vouchers",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=UploadInput,
    output=upload.UploadedFile,
    prepare=WithContext(_prepare_upload, reads_files=True),
    execute=plan_only(upload.execute_upload),
    locks=lambda a: (),
)

CREATE_RECEIPT_DRAFT = define_write_tool(
    name="sevdesk_create_receipt_draft",
    title="Create a receipt draft",
    description=(
        "Creates a receipt draft with positions (account, rate, net, gross as printed), checked "
        "against sevDesk's guidance; look-alikes refused unless allow_duplicate."
    ),
    toolset="vouchers",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=CreateInput,
    output=VoucherWritten,
    prepare=_prepare_create,
    execute=plan_only(drafts.execute_save),
    locks=lambda a: ("receipts/new",),
)

UPDATE_RECEIPT_DRAFT = define_write_tool(
    name="sevdesk_update_receipt_draft",
    title="Change a receipt draft",
    description=(
        "Replaces a receipt draft's fields and all its positions (send the whole content); reset "
        "an open receipt to draft first."
    ),
    toolset="vouchers",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=UpdateInput,
    output=VoucherWritten,
    prepare=_prepare_update,
    execute=plan_only(drafts.execute_save),
    locks=lambda a: (f"voucher/{a.voucher_id}",),
)

DELETE_RECEIPT_DRAFT = define_write_tool(
    name="sevdesk_delete_receipt_draft",
    title="Delete a receipt draft",
    description="Deletes a receipt draft. Open or paid receipts cannot be deleted.",
    toolset="vouchers",
    tier=Tier.WRITE,
    annotations=DELETE_ANNOTATIONS,
    input=VoucherRef,
    output=VoucherWritten,
    prepare=_prepare_delete,
    execute=plan_only(drafts.execute_delete),
    locks=lambda a: (f"voucher/{a.voucher_id}",),
)

FINALIZE_RECEIPT = define_write_tool(
    name="sevdesk_finalize_receipt",
    title="Finalize a receipt",
    description=(
        "Finalizes a receipt draft: it becomes open, then can only be reset, never deleted. Book "
        "it next with sevdesk_book_payment."
    ),
    toolset="vouchers",
    tier=Tier.COMMIT,
    annotations=BINDING_ANNOTATIONS,
    input=VoucherRef,
    output=VoucherWritten,
    prepare=_prepare_finalize,
    execute=plan_only(finalize.execute_finalize),
    locks=lambda a: (f"voucher/{a.voucher_id}",),
)

TOOLS = (
    UPLOAD_RECEIPT,
    CREATE_RECEIPT_DRAFT,
    UPDATE_RECEIPT_DRAFT,
    DELETE_RECEIPT_DRAFT,
    FINALIZE_RECEIPT,
)
