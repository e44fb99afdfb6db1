"""One document in full: header, positions, tax, related documents, and its PDF."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
from typing import Final

from sevdesk_mcp.domain.document_types import (
    KINDS,
    DocumentDetail,
    DocumentKind,
    KindName,
    PositionLine,
    Related,
    TaxInfo,
)
from sevdesk_mcp.domain.documents import (
    cancelled_ids,
    contact_names,
    list_documents,
    summarize,
    with_contact_name,
)
from sevdesk_mcp.domain.money import money, total
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_one, read_raw
from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.version import object_system
from sevdesk_mcp.sevdesk.wire_documents import Document, PdfFile, Position

MAX_POSITIONS: Final = 1000
MAX_PDF_BYTES: Final = 20 * 1024 * 1024
_SAFE_NAME: Final = re.compile(r"[^A-Za-z0-9._-]+")


async def get_document(
    client: SevdeskPort, api_url: str, kind_name: KindName, document_id: int, *, today: dt.date
) -> DocumentDetail:
    """:returns: the document with positions, tax information and related documents.

    :raises NotFoundError: if there is no such document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    kind = KINDS[kind_name]
    raw = await read_raw(client, kind.model, document_id)
    doc = wire.parse(raw, Document)
    summary = summarize(doc, kind, api_url, today, await cancelled_ids(client, kind))
    names = await contact_names(client, {summary.contact_id})
    positions = await _positions(client, kind, document_id)
    lines = [_line(p, doc.currency) for p in positions]
    return DocumentDetail(
        document=with_contact_name(summary, names),
        header=fence(doc.header),
        head_text=fence(doc.headText),
        foot_text=fence(doc.footText),
        address=fence(doc.address),
        delivery_date=dates.berlin_date(doc.deliveryDate),
        payment_days=doc.timeToPay if kind_name == "invoice" else None,
        sent_date=dates.berlin_date(doc.sendDate),
        paid_date=dates.berlin_date(doc.payDate),
        tax=await _tax(client, raw, doc),
        positions=lines,
        positions_total=money(total(p.net.amount for p in lines if not p.optional), doc.currency),
        related=await _related(client, kind, doc),
        pdf_resource=f"sevdesk://{kind.resource}/{document_id}/pdf",
    )


async def fetch_pdf(
    client: SevdeskPort, kind_name: KindName, document_id: int
) -> tuple[str, bytes]:
    """Fetch a document's PDF; ``getPdf`` always goes out with ``preventSendBy=true`` (Q21).

    :returns: a safe file name and the PDF bytes.
    :raises MalformedResponseError: if sevDesk sends no valid PDF.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    kind = KINDS[kind_name]
    pdf = wire.parse(one(await client.get(api_path(kind.model, document_id, "getPdf"))), PdfFile)
    try:
        data = base64.b64decode(pdf.content or "", validate=True)
    except (binascii.Error, ValueError):
        raise MalformedResponseError("sevDesk sent a PDF that is not valid base64.") from None
    if not data.startswith(b"%PDF") or len(data) > MAX_PDF_BYTES:
        raise MalformedResponseError("sevDesk sent no PDF (or one over 20 MiB).")
    stem = _SAFE_NAME.sub("_", (pdf.filename or "").removesuffix(".pdf")).strip("._") or "draft"
    return f"{kind.name}-{document_id}-{stem}.pdf", data


async def _positions(client: SevdeskPort, kind: DocumentKind, document_id: int) -> list[Position]:
    page = await client.get_all(
        api_path(kind.model, document_id, "getPositions"), max_items=MAX_POSITIONS
    )
    positions = wire.parse_all(page.items, Position)
    return sorted(positions, key=lambda p: (p.positionNumber or 0, p.id))


def _line(position: Position, currency: str | None) -> PositionLine:
    return PositionLine(
        number=position.positionNumber,
        name=fence(position.name),
        text=fence(position.text),
        quantity=position.amount(),
        unit_id=position.unity.id if position.unity else None,
        part_id=position.part.id if position.part else None,
        unit_price=money(position.price, currency),
        tax_rate=position.taxRate,
        net=money(position.sumNet, currency),
        tax=money(position.sumTax, currency),
        gross=money(position.sumGross, currency),
        optional=bool(position.optional),
    )


async def _tax(client: SevdeskPort, raw: dict[str, JsonValue], doc: Document) -> TaxInfo:
    system = object_system(raw, "2.0" if await client.system_version() == "2.0" else "1.0")
    return TaxInfo(
        bookkeeping_system=system,
        tax_rule_id=doc.taxRule.id if doc.taxRule else None,
        tax_type=doc.taxType,
        tax_text=fence(doc.taxText),
    )


async def _related(client: SevdeskPort, kind: DocumentKind, doc: Document) -> list[Related]:
    if kind.name == "credit_note":
        return (
            [await _one_related(client, "invoice", doc.refSrcInvoice.id, "corrects invoice")]
            if doc.refSrcInvoice
            else []
        )
    if kind.name == "order":
        invoices = await list_documents(client, KINDS["invoice"], {})
        return [
            _as_related(d, "invoice", "invoiced by")
            for d in invoices
            if d.origin and d.origin.objectName == "Order" and d.origin.id == doc.id
        ]
    return await _invoice_relations(client, doc)


async def _invoice_relations(client: SevdeskPort, doc: Document) -> list[Related]:
    related = []
    if doc.origin is not None and doc.origin.objectName in ("Invoice", "Order"):
        other: KindName = "invoice" if doc.origin.objectName == "Invoice" else "order"
        relation = "cancels invoice" if doc.type() == "SR" else "created from order"
        related.append(await _one_related(client, other, doc.origin.id, relation))
    storno = await list_documents(client, KINDS["invoice"], {"invoiceType": "SR"})
    related += [
        _as_related(d, "invoice", "cancelled by")
        for d in storno
        if d.type() == "SR" and d.origin is not None and d.origin.id == doc.id
    ]
    notes = await list_documents(client, KINDS["credit_note"], {})
    related += [
        _as_related(d, "credit_note", "credit note")
        for d in notes
        if d.refSrcInvoice is not None and d.refSrcInvoice.id == doc.id
    ]
    return related


async def _one_related(
    client: SevdeskPort, kind_name: KindName, document_id: int, relation: str
) -> Related:
    doc = await read_one(client, KINDS[kind_name].model, document_id, Document)
    return _as_related(doc, kind_name, relation)


def _as_related(doc: Document, kind_name: KindName, relation: str) -> Related:
    statuses = KINDS[kind_name].statuses
    return Related(
        relation=relation,
        kind=kind_name,
        id=doc.id,
        number=doc.number(),
        status=statuses.get(doc.status or 0, f"status {doc.status}"),
    )
