"""An invoice from an offer or order confirmation: ``POST /Invoice/Factory/createInvoiceFromOrder``
with ``{"order": {id, objectName: "Order"}}`` (``docs/sevdesk-api.md`` §2.4, §2.6; the spec's
old ``invoice_id`` parameter does not exist, JM #58; ``spec/DEVIATIONS.md``).

sevDesk makes an invoice draft with the order's contact, address, tax rule, texts and
positions, ``origin`` → the order, and moves the order to invoiced (berechnet, 1000).
``prepare`` refuses a delivery note, a rejected order, one already invoiced in whole or in part,
and one an invoice already refers to; only the whole order is invoiced (no partial invoices).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.kinds import KINDS
from sevdesk_mcp.domain.documents.lifecycle import send_once
from sevdesk_mcp.domain.documents.search import list_documents
from sevdesk_mcp.domain.documents.writes import (
    DocumentWritten,
    label,
    named,
    read_back,
    read_document,
)
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.lifecycle_table import said, word
from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress, ref
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import Preview, Said, amount, fact, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document, Position

REJECTED: Final = 300
PARTLY: Final = 750
INVOICED: Final = 1000
UNDO: Final = Said(
    "The invoice is a draft: deleting it takes it back; the order then stays invoiced "
    "(berechnet) in sevDesk.",
    "Die Rechnung ist ein Entwurf: Löschen nimmt sie zurück; das Angebot bleibt dann in sevDesk "
    "berechnet.",
)


class OrderPlan(msgspec.Struct, frozen=True):
    """The order to invoice, as it was read."""

    order_id: int
    label: str


class InvoicedOrder(msgspec.Struct, frozen=True, kw_only=True):
    """The new invoice draft and the order it came from, both read back."""

    invoice: DocumentWritten
    order: DocumentWritten


async def prepare_from_order(client: SevdeskPort, order_id: int) -> Prepared[OrderPlan]:
    """Check that the order can be invoiced whole and preview the invoice (reads only).

    :returns: the preview and the plan.
    :raises ToolError: for a delivery note, a rejected or (partly) invoiced order, or one an
        invoice already refers to.
    :raises NotFoundError: for an unknown order.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    order = await read_document(client, "order", order_id)
    where = f"{label('order', order)} (id {order.id})"
    _refuse_by_state(order, where)
    invoices = await invoices_of(client, order.id)
    if invoices:
        first = invoices[0]
        raise ToolError(
            f"{where} already has the invoice {first.number() or 'draft'} (id {first.id}); "
            "invoicing it again would bill it twice."
        )
    positions = await _positions(client, order.id)
    return Prepared(_preview(order, positions), OrderPlan(order.id, where))


async def execute_from_order(
    client: SevdeskPort, plan: OrderPlan, progress: Progress
) -> InvoicedOrder:
    """Create the invoice draft once and read it and the order back.

    :returns: the invoice draft and the order as sevDesk now holds them.
    :raises OutcomeUnknownError: if it was sent and no answer arrived (names what to check).
    :raises UpstreamError: if the write or the read-back fails.
    """
    body: JsonObject = {"order": ref(plan.order_id, "Order")}
    path = api_path("Invoice", "Factory", "createInvoiceFromOrder")
    where = f"the invoice drafts made from {plan.label}"
    answer = await send_once(client, "POST", path, codes={}, where=where, json=body)
    made = wire.parse(one(answer), Document).id
    progress.done(f"created invoice draft {made} from {plan.label}")
    invoice = await read_back(client, "invoice", made, [f"invoice draft {made} from {plan.label}"])
    order = await read_back(client, "order", plan.order_id, [f"invoiced by invoice draft {made}"])
    return InvoicedOrder(invoice=invoice, order=order)


async def invoices_of(client: SevdeskPort, order_id: int) -> list[Document]:
    """:returns: the invoices whose ``origin`` is the order.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    found = await list_documents(client, KINDS["invoice"], {}, whole=True)
    return [
        d for d in found if d.origin and d.origin.objectName == "Order" and d.origin.id == order_id
    ]


def _refuse_by_state(order: Document, where: str) -> None:
    if order.type() == "LI":
        raise ToolError(
            f"{where} is a delivery note (Lieferschein); it is not invoiced. Invoice "
            "the offer or order confirmation it belongs to."
        )
    if order.status == REJECTED:
        raise ToolError(
            f"{where} is {word('order', order.status)}; a rejected offer is not "
            "invoiced. Draft a new offer or invoice instead."
        )
    if order.status == INVOICED:
        raise ToolError(
            f"{where} is already fully invoiced (berechnet); nothing is left to invoice. Its "
            "invoice is among the order's related documents (read the order to see it)."
        )
    if order.status == PARTLY:
        raise PreconditionError(
            f"{where} is partially invoiced (teilweise berechnet); a whole invoice would bill "
            "the invoiced part twice. Invoice the rest by ",
            Action.CREATE_DRAFT,
            " instead.",
            record=where,
        )


async def _positions(client: SevdeskPort, order_id: int) -> list[Position]:
    objects = await client.get(api_path("Order", order_id, "getPositions"))
    rows = objects if isinstance(objects, list) else []
    return [wire.parse(row, Position) for row in rows]


def _preview(order: Document, positions: list[Position]) -> Preview:
    counted = [p for p in positions if not p.optional]
    left_out = len(positions) - len(counted)
    gross: Decimal = order.sumGross or ZERO
    currency = order.currency or "EUR"
    made = say(
        "new draft with {0} positions over {1}, linked to the order",
        "neuer Entwurf mit {0} Positionen über {1}, mit dem Angebot verknüpft",
        len(counted),
        amount(gross, currency),
    )
    facts = [
        fact(
            "Order",
            "Angebot/Auftrag",
            say("{0}, {1}", "{0}, {1}", named("order", order), said("order", order.status)),
        ),
        fact("Net amount", "Nettobetrag", amount(order.sumNet, currency)),
        fact("Invoice", "Rechnung", made),
        fact("Order after", "Angebot danach", Said("invoiced", "berechnet")),
    ]
    warnings = []
    if left_out:
        warnings.append(
            say(
                "{0} optional position is not invoiced.",
                "{0} optionale Position wird nicht berechnet.",
                left_out,
            )
            if left_out == 1
            else say(
                "{0} optional positions are not invoiced.",
                "{0} optionale Positionen werden nicht berechnet.",
                left_out,
            )
        )
    action = say(
        "Create an invoice draft from {0} with its positions; nothing is finalized",
        "Rechnungsentwurf aus {0} mit seinen Positionen erstellen; nichts wird festgeschrieben",
        named("order", order),
    )
    return Preview(action=action, facts=facts, warnings=warnings, undo=UNDO)
