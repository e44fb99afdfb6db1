"""Endpoints shared by invoices, credit notes and orders (``docs/sevdesk-api.md`` §2.4-2.6).

:func:`register_document_routes` adds, for one document kind: the list (filters ``status``,
the number, ``contact[id]``, ``startDate``/``endDate`` in **Unix seconds** only (Q19),
``customerInternalNote`` exact (Q12)), the GET by id (array of one, Q2), the positions, getPdf
(Q3, with the side effect of Q21 unless ``preventSendBy``) and sendBy (Q22).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

from sevdesk_mcp.fake.coerce import parse_flag
from sevdesk_mcp.fake.documents import DRAFT, DocBase, PosBase
from sevdesk_mcp.fake.listing import (
    Filter,
    by_int,
    by_ref,
    by_text,
    filtered,
    list_reply,
    object_reply,
    one_reply,
    since,
    until,
)
from sevdesk_mcp.fake.pdf import tiny_pdf
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.sending import finalise
from sevdesk_mcp.fake.store import Store, Table
from sevdesk_mcp.fake.wire import FakeError, to_wire
from sevdesk_mcp.jsontypes import JsonObject

D = TypeVar("D", bound=DocBase)
P = TypeVar("P", bound=PosBase)

SEND_TYPES: Final = frozenset({"VPR", "VP", "VM", "VPDF"})


@dataclass(frozen=True)
class DocumentKind(Generic[D, P]):
    """Where one document kind lives and how its list is filtered.

    :param name: the model name and path segment, e.g. ``"Invoice"``.
    :param number_key: the number field and filter, e.g. ``"invoiceNumber"``.
    :param parent_key: the filter prefix of its positions, e.g. ``"invoice"``.
    """

    name: str
    number_key: str
    parent_key: str
    docs: Callable[[Store], Table[D]]
    positions: Callable[[Store], Table[P]]
    extra_filters: Mapping[str, Filter[D]] = field(default_factory=dict)

    def filters(self) -> dict[str, Filter[D]]:
        """:returns: the list filters of this kind."""
        common: dict[str, Filter[D]] = {
            "status": by_int(lambda d: d.status),
            self.number_key: by_text(lambda d: d.number),
            "contact[id]": by_ref(lambda d: d.contact),
            "startDate": since(lambda d: d.date),
            "endDate": until(lambda d: d.date),
            "customerInternalNote": by_text(lambda d: d.customerInternalNote),
        }
        return {**common, **self.extra_filters}


def pdf_object(doc: DocBase) -> JsonObject:
    """:returns: the getPdf object with the keys of Q3; a draft's filename is ``".pdf"``."""
    title = f"{doc.OBJECT_NAME} {doc.number or '(Entwurf)'}"
    return {
        "filename": f"{doc.number or ''}.pdf",
        "mimetype": "application/pdf",
        "base64Encoded": True,
        "content": base64.b64encode(tiny_pdf(title)).decode("ascii"),
    }


def send_by(store: Store, doc: DocBase, body: Mapping[str, object]) -> None:
    """Apply PUT …/sendBy: ``sendDraft: true`` changes nothing, else :func:`finalise`.

    :raises FakeError: 400 for a missing or unknown ``sendType`` or a missing ``sendDraft``;
        the errors of :func:`~sevdesk_mcp.fake.sending.finalise`.
    """
    send_type = body.get("sendType")
    if send_type not in SEND_TYPES:
        raise FakeError(400, "sendType must be one of VPR, VP, VM, VPDF")
    if "sendDraft" not in body:
        raise FakeError(400, "The field 'sendDraft' is required")
    if not parse_flag(body["sendDraft"], "sendDraft"):
        finalise(store, doc, str(send_type))


def register_document_routes(router: Router, kind: DocumentKind[D, P]) -> None:
    """Register the shared read, getPdf and sendBy endpoints of ``kind`` on ``router``."""
    filters = kind.filters()

    def wire(store: Store, row: DocBase | PosBase) -> JsonObject:
        return to_wire(row, store.client_ref)

    def list_docs(ctx: Context) -> Reply:
        rows = filtered(list(kind.docs(ctx.store)), ctx.query, filters)
        return list_reply(ctx, rows, lambda d: wire(ctx.store, d))

    def get_doc(ctx: Context) -> Reply:
        return one_reply(wire(ctx.store, kind.docs(ctx.store).get(ctx.path_id(kind.name))))

    def get_positions(ctx: Context) -> Reply:
        doc = kind.docs(ctx.store).get(ctx.path_id(kind.name))
        return list_reply(ctx, ctx.store.positions_of(doc), lambda p: wire(ctx.store, p))

    def list_positions(ctx: Context) -> Reply:
        pos_filters: dict[str, Filter[P]] = {
            f"{kind.parent_key}[id]": by_ref(lambda p: p.document),
            "part[id]": by_ref(lambda p: p.part),
        }
        rows = filtered(list(kind.positions(ctx.store)), ctx.query, pos_filters)
        return list_reply(ctx, rows, lambda p: wire(ctx.store, p))

    def get_pdf(ctx: Context) -> Reply:
        doc = kind.docs(ctx.store).get(ctx.path_id(kind.name))
        if not ctx.flag("preventSendBy") and doc.status == DRAFT:
            finalise(ctx.store, doc, "VPDF")  # Q21: rendering without preventSendBy sends
        return object_reply(pdf_object(doc))

    def put_send_by(ctx: Context) -> Reply:
        doc = kind.docs(ctx.store).get(ctx.path_id(kind.name))
        send_by(ctx.store, doc, ctx.json())
        return object_reply(wire(ctx.store, doc))

    router.route("GET", f"/{kind.name}")(list_docs)
    router.route("GET", f"/{kind.name}/{{id}}")(get_doc)
    router.route("GET", f"/{kind.name}/{{id}}/getPositions")(get_positions)
    router.route("GET", f"/{kind.name}Pos")(list_positions)
    router.route("GET", f"/{kind.name}/{{id}}/getPdf")(get_pdf)
    router.route("PUT", f"/{kind.name}/{{id}}/sendBy")(put_send_by)
