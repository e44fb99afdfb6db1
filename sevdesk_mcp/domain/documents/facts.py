"""What a human needs to judge a binding step on a document: the facts of its preview.

The contact by name (fenced) and id, the dates with the due date, the texts, every position
with its quantity, unit price, rate and net sum, and the totals: an approval of a finalize,
enshrine or email is an approval of exactly this content (and the write flow binds the records
behind it, so none of it can change between the approval and the write).
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from sevdesk_mcp.domain.contacts.read import display_name
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.domain.documents.writes import label
from sevdesk_mcp.domain.lifecycle_table import word
from sevdesk_mcp.domain.money import ZERO, shown, shown_price
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import find_one
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.safety.preview import Fact
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document, Position

MAX_POSITIONS: Final = 1000
NONE: Final = "(none)"


async def document_facts(client: SevdeskPort, kind_name: KindName, doc: Document) -> list[Fact]:
    """:returns: the preview facts of ``doc``: contact, dates, texts, positions and totals.

    :raises ToolError: for more positions than a preview can show.
    :raises MalformedResponseError: if sevDesk sends positions that cannot be read.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    currency = doc.currency
    facts = [
        Fact("Document", label(kind_name, doc)),
        Fact("Status now", word(kind_name, doc.status)),
        Fact("Contact", await _contact(client, doc)),
        Fact("Header", fence(doc.header) or NONE),
        *_dates(kind_name, doc),
        Fact("Head text", fence(doc.headText) or NONE),
        Fact("Positions", await _positions(client, kind_name, doc.id, currency)),
        Fact("Foot text", fence(doc.footText) or NONE),
        Fact("Net", shown(doc.sumNet, currency)),
        Fact("VAT", shown(doc.sumTax, currency)),
        Fact("Gross", shown(doc.sumGross, currency)),
    ]
    return facts


async def _contact(client: SevdeskPort, doc: Document) -> str:
    if doc.contact is None:
        return NONE
    contact = await find_one(client, "Contact", doc.contact.id, wire.Contact)
    if contact is None:
        return f"contact {doc.contact.id} (not found in sevDesk)"
    return f"{fence(display_name(contact)) or '(no name)'} (id {contact.id})"


def _dates(kind_name: KindName, doc: Document) -> list[Fact]:
    day = dates.berlin_date(doc.date())
    facts = [Fact("Date", _day(day))]
    delivery = dates.berlin_date(doc.deliveryDate)
    if delivery is not None:
        facts.append(Fact("Delivery date", delivery.isoformat()))
    if kind_name == "invoice" and doc.timeToPay is not None:
        due = day + dt.timedelta(days=doc.timeToPay) if day else None
        facts.append(Fact("Due", f"{_day(due)} ({doc.timeToPay} days)"))
    return facts


def _day(day: dt.date | None) -> str:
    return day.isoformat() if day is not None else NONE


async def _positions(
    client: SevdeskPort, kind_name: KindName, document_id: int, currency: str | None
) -> str:
    path = api_path(KINDS[kind_name].model, document_id, "getPositions")
    page = await client.get_all(path, max_items=MAX_POSITIONS)
    if page.truncated:
        raise ToolError(
            f"{KINDS[kind_name].label} {document_id} has more than {MAX_POSITIONS} positions, "
            "more than a preview can show for approval. Review and change it in sevDesk itself."
        )
    positions = sorted(
        wire.parse_all(page.items, Position), key=lambda p: (p.positionNumber or 0, p.id)
    )
    return "\n".join(_row(p, currency) for p in positions) or NONE


def _row(position: Position, currency: str | None) -> str:
    optional = " (optional, not in the sum)" if position.optional else ""
    rate = f"{position.taxRate:f} %" if position.taxRate is not None else "rate not set"
    row = (
        f"{position.positionNumber or '-'}. {position.amount().normalize():f} x "
        f"{fence(position.name) or '(no name)'} à {shown_price(position.price or ZERO, currency)}, "
        f"{rate} = {shown(position.sumNet, currency)} net{optional}"
    )
    text = fence(position.text)
    return f"{row}\n   {text}" if text else row
