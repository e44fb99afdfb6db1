"""The EU sales list (Zusammenfassende Meldung, §18a UStG): per customer VAT id, the tax-free
intra-EU supplies of goods (rule 3, kind ``L``) and the services under §18b (rule 21, kind
``S``) of a quarter or month, by the reporting dates of §18a(8) and §18b UStG (the same as
boxes 41 and 21 of the VAT return), credit notes negative. A sale without the customer's VAT id
is named, never dropped."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.money import ZERO, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports.books import Books, Record, read_books
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.domain.reports.sales import grouped, reported, sales
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.sevdesk import wire

KINDS: Final = {3: "L", 21: "S"}  # goods, other services (§18a(6) UStG)
RULE: Final = (
    "EU sales list (§18a UStG): intra-EU supplies (sevDesk rule 3, kind L) in the month of the "
    "invoice, at the latest the month after the supply, and services to EU businesses (rule "
    "21, kind S) in the month of the supply (§18a(8), §18b UStG), per customer VAT id, credit "
    "notes negative on their own date, net in EUR; the same dates as boxes 41 and 21. A supply "
    "of goods without the customer's VAT id is taxable in Germany (box 81/86, §6a(1) no. 4 "
    "UStG) and listed under missing_vat_id, not reported. Triangular deals (kind D) have no "
    "sevDesk rule."
)


class ZmSource(msgspec.Struct, frozen=True, kw_only=True):
    """A document behind a line of the list."""

    kind: str
    id: int
    number: Untrusted | None
    date: dt.date
    net: Decimal


class ZmLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the EU sales list."""

    vat_id: str
    country: str
    kind: str
    amount: Decimal
    sources: list[ZmSource]


class ZmReport(msgspec.Struct, frozen=True, kw_only=True):
    """The EU sales list of a period."""

    period: str
    lines: list[ZmLine]
    total: Decimal
    missing_vat_id: list[ZmSource]
    rule: str


async def eu_sales_list(client: SevdeskPort, period: Period) -> ZmReport:
    """:returns: the EU sales list of ``period``.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    return compute(await read_books(client), period)


def compute(books: Books, period: Period) -> ZmReport:
    """:returns: the EU sales list of ``period`` from ``books``."""
    groups, missing = grouped(
        (_line_key(books, record), _source(record))
        for record in sales(books, period, KINDS, reported)
        if record.revenue
    )
    lines = [
        ZmLine(
            vat_id=vat_id,
            country=vat_id[:2],
            kind=kind,
            amount=cents(sum((s.net for s in sources), ZERO)),
            sources=sources,
        )
        for (vat_id, kind), sources in sorted(groups.items())
    ]
    return ZmReport(
        period=period.name,
        lines=lines,
        total=cents(sum((line.amount for line in lines), ZERO)),
        missing_vat_id=missing,
        rule=RULE,
    )


def _line_key(books: Books, record: Record) -> tuple[str, str] | None:
    contact = books.contacts.get(record.contact_id) if record.contact_id else None
    vat_id = _vat_id(contact)
    return (vat_id, KINDS[record.rule or 0]) if vat_id else None


def _source(record: Record) -> ZmSource:
    return ZmSource(
        kind=record.kind,
        id=record.id,
        number=fence(record.label),
        date=reported(record),
        net=cents(sum((line.net for line in record.lines), ZERO)),
    )


def _vat_id(contact: wire.Contact | None) -> str:
    if contact is None or not contact.vatNumber:
        return ""
    return clean(contact.vatNumber).replace(" ", "").upper()
