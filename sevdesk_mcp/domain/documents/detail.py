"""One document in full: header, positions, tax, related documents, and its PDF.

What does not depend on the document is read together with it (its positions, the system
version, and the lists its relations are found in: cancellation invoices, credit notes, or the
invoices of an order); then, together, its contact by id and the document it comes from.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.kinds import (
    KINDS,
    DocumentDetail,
    DocumentKind,
    KindName,
    PositionLine,
    Related,
    TaxInfo,
)
from sevdesk_mcp.domain.documents.search import list_documents, summarize, with_contact_name
from sevdesk_mcp.domain.money import money, total
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import find_one, read_one, read_raw
from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.together import both
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
    raw, positions, version, lists = await both(
        lambda: read_raw(client, kind.model, document_id),
        lambda: _positions(client, kind, document_id),
        client.system_version,
        lambda: _relation_lists(client, kind),
    )
    doc = wire.parse(raw, Document)
    cancelled = frozenset(d.origin.id for d in lists.storno if d.origin is not None)
    summary = summarize(doc, kind, api_url, today, cancelled)
    name, origin = await both(
        lambda: _contact_name(client, summary.contact_id),
        lambda: _origin(client, kind, doc),
    )
    lines = [_line(p, doc.currency) for p in positions]
    return DocumentDetail(
        document=with_contact_name(summary, name),
        header=fence(doc.header),
        head_text=fence(doc.headText),
        foot_text=fence(doc.footText),
        address=fence(doc.address),
        delivery_date=dates.berlin_date(doc.deliveryDate),
        payment_days=doc.timeToPay if kind_name == "invoice" else None,
        sent_date=dates.berlin_date(doc.sendDate),
        paid_date=dates.berlin_date(doc.payDate),
        tax=_tax(version, raw, doc),
        positions=lines,
        positions_total=money(total(p.net.amount for p in lines if not p.optional), doc.currency),
        related=[*origin, *_listed_relations(kind, doc, lists)],
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


def _tax(version: str, raw: dict[str, JsonValue], doc: Document) -> TaxInfo:
    system = object_system(raw, "2.0" if version == "2.0" else "1.0")
    return TaxInfo(
        bookkeeping_system=system,
        tax_rule_id=doc.taxRule.id if doc.taxRule else None,
        tax_type=doc.taxType,
        tax_text=fence(doc.taxText),
    )


class _Lists(msgspec.Struct, frozen=True):
    """The lists a document's relations are found in (empty where its kind needs none)."""

    storno: list[Document] = msgspec.field(default_factory=list)  # cancellation invoices (SR)
    notes: list[Document] = msgspec.field(default_factory=list)  # credit notes
    invoices: list[Document] = msgspec.field(default_factory=list)  # every invoice (for an order)


async def _relation_lists(client: SevdeskPort, kind: DocumentKind) -> _Lists:
    invoice = KINDS["invoice"]
    if kind.name == "order":
        return _Lists(invoices=await list_documents(client, invoice, {}))
    if kind.name != "invoice":
        return _Lists()
    storno, notes = await both(
        lambda: list_documents(client, invoice, {"invoiceType": "SR"}),
        lambda: list_documents(client, KINDS["credit_note"], {}),
    )
    return _Lists(storno=[d for d in storno if d.type() == "SR"], notes=notes)


async def _contact_name(client: SevdeskPort, contact_id: int | None) -> dict[int, str | None]:
    from sevdesk_mcp.domain.contacts.read import display_name  # noqa: PLC0415 - avoids a cycle

    if contact_id is None:
        return {}
    contact = await find_one(client, "Contact", contact_id, wire.Contact)
    return {} if contact is None else {contact_id: fence(display_name(contact))}


async def _origin(client: SevdeskPort, kind: DocumentKind, doc: Document) -> list[Related]:
    if kind.name == "credit_note" and doc.refSrcInvoice is not None:
        return [await _one_related(client, "invoice", doc.refSrcInvoice.id, "corrects invoice")]
    if kind.name != "invoice" or doc.origin is None:
        return []
    if doc.origin.objectName not in ("Invoice", "Order"):
        return []
    other: KindName = "invoice" if doc.origin.objectName == "Invoice" else "order"
    relation = "cancels invoice" if doc.type() == "SR" else "created from order"
    return [await _one_related(client, other, doc.origin.id, relation)]


def _listed_relations(kind: DocumentKind, doc: Document, lists: _Lists) -> list[Related]:
    if kind.name == "order":
        return [
            _as_related(d, "invoice", "invoiced by")
            for d in lists.invoices
            if d.origin and d.origin.objectName == "Order" and d.origin.id == doc.id
        ]
    cancelled_by = [
        _as_related(d, "invoice", "cancelled by")
        for d in lists.storno
        if d.origin is not None and d.origin.id == doc.id
    ]
    return cancelled_by + [
        _as_related(d, "credit_note", "credit note")
        for d in lists.notes
        if d.refSrcInvoice is not None and d.refSrcInvoice.id == doc.id
    ]


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
