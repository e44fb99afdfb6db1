"""What a human needs to judge a binding step on a document: the facts of its preview, laid out
like the document itself.

The document and its status, the contact by name (third-party text) and id, the header, the
dates with the due date, the head text, the positions as a table (Pos., quantity, name with the
position's text, unit price, VAT rate, net sum), the foot text, and the sums under it: an
approval of a finalize, enshrine or email is an approval of exactly this content (and the write
flow binds the records behind it, so none of it can change between the approval and the write).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.contacts.read import display_name
from sevdesk_mcp.domain.documents.draft_lines import COLUMNS, RIGHT, name_cell
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.domain.documents.writes import named
from sevdesk_mcp.domain.lifecycle_table import said
from sevdesk_mcp.domain.money import ZERO, shown_price
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import find_one
from sevdesk_mcp.domain.writes import whole
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import (
    NONE,
    Day,
    Fact,
    Piece,
    Plain,
    Said,
    Table,
    Value,
    amount,
    fact,
    quoted,
    say,
)
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document, Position

MAX_POSITIONS: Final = 1000
OPTIONAL: Final = Said("{0} (optional, not in the sum)", "{0} (optional, nicht in der Summe)")


async def document_facts(client: SevdeskPort, kind_name: KindName, doc: Document) -> list[Fact]:
    """:returns: the preview facts of ``doc``: contact, dates, texts, positions and totals.

    :raises ToolError: for more positions than a preview can show.
    :raises MalformedResponseError: if sevDesk sends positions that cannot be read.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    currency = doc.currency
    return [
        fact("Document", "Dokument", named(kind_name, doc)),
        fact("Status now", "Status jetzt", said(kind_name, doc.status)),
        fact("Contact", "Kontakt", await _contact(client, doc)),
        fact("Header", "Betreff", quoted(doc.header)),
        *_dates(kind_name, doc),
        fact("Head text", "Kopftext", whole(doc.headText)),
        fact("Positions", "Positionen", await _positions(client, kind_name, doc.id, currency)),
        fact("Foot text", "Fußtext", whole(doc.footText)),
        fact("Net", "Netto", amount(doc.sumNet, currency)),
        fact("VAT", "USt.", amount(doc.sumTax, currency)),
        fact("Gross", "Brutto", amount(doc.sumGross, currency)),
    ]


async def _contact(client: SevdeskPort, doc: Document) -> Piece:
    if doc.contact is None:
        return NONE
    contact = await find_one(client, "Contact", doc.contact.id, wire.Contact)
    if contact is None:
        return say(
            "contact {0} (not found in sevDesk)",
            "Kontakt {0} (in sevDesk nicht gefunden)",
            doc.contact.id,
        )
    return say("{0} (id {1})", "{0} (ID {1})", quoted(display_name(contact)), contact.id)


def _dates(kind_name: KindName, doc: Document) -> list[Fact]:
    day = dates.berlin_date(doc.date())
    facts = [fact("Date", "Datum", _day(day))]
    delivery = dates.berlin_date(doc.deliveryDate)
    if delivery is not None:
        facts.append(fact("Delivery date", "Lieferdatum", Day(delivery)))
    if kind_name == "invoice" and doc.timeToPay is not None:
        due = day + dt.timedelta(days=doc.timeToPay) if day else None
        term = say("{0} ({1} days)", "{0} ({1} Tage)", _day(due), doc.timeToPay)
        facts.append(fact("Due", "Fällig am", term))
    return facts


def _day(day: dt.date | None) -> Piece:
    return Day(day) if day is not None else NONE


async def _positions(
    client: SevdeskPort, kind_name: KindName, document_id: int, currency: str | None
) -> Value:
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
    return Table(COLUMNS, tuple(_row(p, currency) for p in positions), RIGHT)


def _row(position: Position, currency: str | None) -> tuple[Piece, ...]:
    cell = name_cell(position.name, position.text)
    if position.optional:
        cell = Said(OPTIONAL.en, OPTIONAL.de, (cell,))
    rate = (
        Plain(f"{position.taxRate.normalize():f} %")
        if position.taxRate is not None
        else Said("not set", "nicht gesetzt")
    )
    return (
        Plain(str(position.positionNumber or "-")),
        Plain(f"{position.amount().normalize():f}"),
        cell,
        unit_price(position.price or ZERO, currency),
        rate,
        amount(position.sumNet, currency),
    )


def unit_price(price: Decimal, currency: str | None) -> Piece:
    """:returns: a unit price as an amount; one with more than two decimal places (which an
    amount would round to cents when shown) in its exact machine form."""
    exponent = price.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2 and price != price.quantize(Decimal("0.01")):
        return Plain(shown_price(price, currency))
    return amount(price, currency)
