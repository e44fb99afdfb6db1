"""Toolset ``documents``: invoices, credit notes and orders (search, read, PDF)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.documents import detail as document_detail
from sevdesk_mcp.domain.documents import search as documents
from sevdesk_mcp.domain.documents.draft_body import OrderType
from sevdesk_mcp.domain.documents.kinds import (
    KINDS,
    DocumentDetail,
    DocumentList,
    KindName,
    StatusWord,
)
from sevdesk_mcp.errors import ToolError, TransferRefusedError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.receipts.upload import offer_download
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, DocumentId, Limit, SevdeskId

Kind = Annotated[KindName, msgspec.Meta(description="Default: invoice")]


class SearchInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_search_documents``."""

    kind: Kind = "invoice"
    status: Annotated[
        StatusWord,
        msgspec.Meta(description="cancelled: invoices with a Storno"),
    ] = "any"
    statuses: (
        Annotated[
            list[StatusWord],
            msgspec.Meta(
                min_length=1,
                max_length=12,
                description="Any of these, instead of status",
            ),
        ]
        | None
    ) = None
    number: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=50,
                description="Exact, any case: RE-1041 does not find RE-10410",
            ),
        ]
        | None
    ) = None
    number_contains: Annotated[str, msgspec.Meta(max_length=50)] | None = None
    order_type: (
        Annotated[
            OrderType,
            msgspec.Meta(description="AN offer, AB confirmation, LI delivery note"),
        ]
        | None
    ) = None
    contact_id: (
        Annotated[
            SevdeskId,
            msgspec.Meta(description="Its id, not the customer number"),
        ]
        | None
    ) = None
    contact_name: (
        Annotated[str, msgspec.Meta(max_length=100, description="Instead of contact_id")] | None
    ) = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    open_only: bool = False
    overdue_only: bool = False
    limit: Limit = 25


class GetInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_get_document`` and ``sevdesk_document_pdf``."""

    kind: Kind = "invoice"
    document_id: DocumentId


class PdfResult(msgspec.Struct, frozen=True, kw_only=True):
    """Where the PDF is: always as an MCP resource, and as a file when an output folder is set."""

    resource_uri: str
    file_name: str
    size_bytes: int
    saved_to: str | None
    download_page: Annotated[str, msgspec.Meta(description="Over HTTP: for the user, once")] | (
        None
    ) = None
    note: str


async def _search(args: SearchInput, ctx: ToolContext) -> DocumentList:
    if args.order_type is not None and args.kind != "order":
        raise ToolError(
            f"order_type applies to orders only; drop it, or search with kind='order' "
            f"(this search is for kind={args.kind!r})."
        )
    if args.statuses is not None and args.status != "any":
        raise ToolError("Give status or statuses, not both; put every status into statuses.")
    fields = msgspec.structs.asdict(args)
    del fields["statuses"]
    fields["status"] = tuple(args.statuses or [args.status])
    query = documents.Search(**fields)
    client = ctx.account.require_client()
    return await documents.search(client, ctx.account.api_url, query, today=ctx.account.today())


async def _get(args: GetInput, ctx: ToolContext) -> DocumentDetail:
    client = ctx.account.require_client()
    return await document_detail.get_document(
        client, ctx.account.api_url, args.kind, args.document_id, today=ctx.account.today()
    )


async def _pdf(args: GetInput, ctx: ToolContext) -> PdfResult:
    client = ctx.account.require_client()
    name, data = await document_detail.fetch_pdf(client, args.kind, args.document_id)
    uri = f"sevdesk://{KINDS[args.kind].resource}/{args.document_id}/pdf"
    path = ctx.files.deliver(name, data)
    saved = None if path is None else str(path)
    note = (
        "Read the resource to view the PDF. It was rendered without marking the document as sent."
    )
    page = None
    if ctx.files.remote:
        try:
            page = await offer_download(name, "application/pdf", data)
        except TransferRefusedError as exc:  # the PDF is still there as a resource
            note += f" No download page: {exc}"
    if page is not None:
        note += " Give the user the download page: it works once, for 10 minutes."
    return PdfResult(
        resource_uri=uri,
        file_name=name,
        size_bytes=len(data),
        saved_to=saved,
        download_page=page,
        note=note,
    )


def _pdf_link(result: PdfResult) -> list[JsonObject]:
    return [
        {
            "type": "resource_link",
            "uri": result.resource_uri,
            "name": result.file_name,
            "mimeType": "application/pdf",
            "size": result.size_bytes,
        }
    ]


SEARCH_DOCUMENTS = define_tool(
    name="sevdesk_search_documents",
    title="Search invoices, credit notes, orders",
    description=(
        "Finds invoices, credit notes or orders with amounts, due dates, days overdue, the "
        "enshrined flag and totals; by number to find the id for sevdesk_get_document."
    ),
    toolset="documents",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=SearchInput,
    output=DocumentList,
    handler=_search,
)

GET_DOCUMENT = define_tool(
    name="sevdesk_get_document",
    title="Get an invoice, credit note or order",
    description=(
        "Reads one invoice, credit note or order: positions, texts, tax rule, payment state, "
        "enshrined flag, related documents; all a draft update needs sent back."
    ),
    toolset="documents",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=GetInput,
    output=DocumentDetail,
    handler=_get,
)

DOCUMENT_PDF = define_tool(
    name="sevdesk_document_pdf",
    title="PDF of a document",
    description=(
        "Renders a document's PDF as an MCP resource without marking it sent (saved in "
        "SEVDESK_OUTPUT_DIR too, if set)."
    ),
    toolset="documents",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=GetInput,
    output=PdfResult,
    handler=_pdf,
    links=_pdf_link,
    local_files="write",
)

TOOLS = (SEARCH_DOCUMENTS, GET_DOCUMENT, DOCUMENT_PDF)
