"""Toolset ``vouchers``, e-invoices: read and check an XRechnung or ZUGFeRD file (read), suggest
a receipt from it (read), file it as a receipt draft with the file as its document (write);
and the outgoing preflight of a draft invoice against the XRechnung rules (read).

The reader is :mod:`sevdesk_mcp.domain.einvoice`, the suggestion and filing are receipts
(:mod:`sevdesk_mcp.domain.receipts.einvoice_voucher`,
:mod:`sevdesk_mcp.domain.receipts.einvoice_filing`), the preflight is of sales documents
(:mod:`sevdesk_mcp.domain.documents.einvoice_preflight`); files are read only through the call's
``ToolContext.files`` (a local path, or over HTTP an upload reference ``upload:<id>``);
parsing runs in a worker thread under the reader's caps.
"""

from __future__ import annotations

from typing import Annotated

import anyio
import msgspec

from sevdesk_mcp.domain.documents import einvoice_preflight
from sevdesk_mcp.domain.documents.lifecycle import VoucherWritten
from sevdesk_mcp.domain.einvoice import report as reports
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import einvoice_filing
from sevdesk_mcp.domain.receipts.einvoice_voucher import VoucherSuggestion, suggest_voucher
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.receipts.suggest import company_of
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, WRITE_ANNOTATIONS, DryRun, SevdeskId
from sevdesk_mcp.tools.write_flow import PrepareContext, WithContext, define_write_tool, plan_only

Path = Annotated[
    str,
    msgspec.Meta(
        max_length=1024,
        description="In SEVDESK_FILE_DIRS; over HTTP an upload:<id>",
    ),
]
Account = Annotated[str, msgspec.Meta(max_length=8, pattern="^[0-9]{4,8}$")]


class FileInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of the e-invoice read tools."""

    path: Path


class FileDraftInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_file_einvoice``."""

    path: Path
    account_numbers: (
        Annotated[list[Account], msgspec.Meta(max_length=20, description="One per position")] | None
    ) = None
    supplier_id: SevdeskId | None = None
    allow_invalid: bool = False
    allow_duplicate: bool = False
    dryRun: DryRun = False


class PreflightInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_preflight_einvoice``."""

    invoice_id: SevdeskId


async def _read(args: FileInput, ctx: ToolContext) -> reports.EInvoiceReport:
    local = (await ctx.files.fetch(args.path)).read(args.path)
    read, result = await anyio.to_thread.run_sync(reports.read_local, local)
    return reports.report(local, read, result)


async def _suggest(args: FileInput, ctx: ToolContext) -> VoucherSuggestion:
    client = ctx.account.require_client()
    local = (await ctx.files.fetch(args.path)).read(args.path)
    read, _ = await anyio.to_thread.run_sync(reports.read_local, local)
    company = company_of(ctx.account.config.tax, None, ctx.account.today())
    return await suggest_voucher(client, read.invoice, company)


async def _prepare_file(
    args: FileDraftInput, client: SevdeskPort, context: PrepareContext
) -> Prepared[einvoice_filing.FilingPlan]:
    asked = einvoice_filing.Filing(
        path=args.path,
        account_numbers=args.account_numbers,
        supplier_id=args.supplier_id,
        allow_invalid=args.allow_invalid,
        allow_duplicate=args.allow_duplicate,
    )
    return await einvoice_filing.prepare_filing(client, await context.files.fetch(args.path), asked)


async def _preflight(args: PreflightInput, ctx: ToolContext) -> einvoice_preflight.Preflight:
    client = ctx.account.require_client()
    return await einvoice_preflight.preflight(client, args.invoice_id)


READ_EINVOICE = define_tool(
    name="sevdesk_read_einvoice",
    title="Read and check an e-invoice",
    description=(
        "Reads a received e-invoice (XRechnung, ZUGFeRD/Factur-X) and checks it against EN 16931 "
        "and BR-DE, with each rule's id. Unsafe files are refused."
    ),
    toolset="vouchers",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=FileInput,
    output=reports.EInvoiceReport,
    handler=_read,
    local_files="read",
)

SUGGEST_EINVOICE_VOUCHER = define_tool(
    name="sevdesk_suggest_einvoice_receipt",
    title="Suggest a receipt from an e-invoice",
    description=(
        "Proposes the receipt for a received e-invoice: supplier, positions per rate with booking "
        "accounts, tax rule, and what blocks filing."
    ),
    toolset="vouchers",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=FileInput,
    output=VoucherSuggestion,
    handler=_suggest,
    local_files="read",
)

FILE_EINVOICE = define_write_tool(
    name="sevdesk_file_einvoice",
    title="File an e-invoice as a receipt draft",
    description=(
        "Creates a receipt draft from a received e-invoice as sevdesk_suggest_einvoice_receipt "
        "proposes, the file attached; refused if invalid unless allow_invalid."
    ),
    toolset="vouchers",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=FileDraftInput,
    output=VoucherWritten,
    prepare=WithContext(_prepare_file, reads_files=True),
    execute=plan_only(einvoice_filing.execute_filing),
    locks=lambda a: ("receipts/new",),
)

PREFLIGHT_EINVOICE = define_tool(
    name="sevdesk_preflight_einvoice",
    title="Check an invoice for XRechnung",
    description=(
        "Checks a draft invoice against XRechnung (BR-DE) and EN 16931 before it is finalized as "
        "an e-invoice."
    ),
    toolset="documents",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=PreflightInput,
    output=einvoice_preflight.Preflight,
    handler=_preflight,
)

TOOLS = (READ_EINVOICE, SUGGEST_EINVOICE_VOUCHER, FILE_EINVOICE, PREFLIGHT_EINVOICE)
