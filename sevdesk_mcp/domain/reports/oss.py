"""The One-Stop-Shop figures (§18j UStG): sales under sevDesk's OSS rules (18 goods, 19
electronic services, 20 other services) per member state of the customer's address and rate,
by date of supply, credit notes negative on their own date. A sale without a country is named,
never dropped."""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import ZERO, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports.books import Books, DocumentFigure, Record, read_books
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.domain.reports.sales import grouped, sales
from sevdesk_mcp.safety.fence import fence

OSS_RULES: Final = frozenset({18, 19, 20})
RULE: Final = (
    "OSS (§18j UStG): documents with sevDesk rules 18-20 per member state of the document's "
    "address country and rate, by date of supply (credit notes negative on their own date); "
    "net and tax as the positions show them, in EUR. Whether the EU-wide threshold of 10,000 "
    "EUR (§3c(4) UStG) is passed is an open question of the VAT return."
)


class OssSource(DocumentFigure, frozen=True, kw_only=True):
    """A document behind an OSS figure."""


class OssLine(msgspec.Struct, frozen=True, kw_only=True):
    """The sales to one member state at one rate."""

    country: str
    rate: Decimal
    net: Decimal
    tax: Decimal
    sources: list[OssSource]


class OssReport(msgspec.Struct, frozen=True, kw_only=True):
    """The One-Stop-Shop figures of a period."""

    period: str
    lines: list[OssLine]
    total_tax: Decimal
    without_country: list[OssSource]
    rule: str


async def oss_figures(client: SevdeskPort, period: Period) -> OssReport:
    """:returns: the OSS figures of ``period``.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    return compute(await read_books(client), period)


def compute(books: Books, period: Period) -> OssReport:
    """:returns: the OSS figures of ``period`` from ``books``."""
    groups, lost = grouped(
        (_member_state(books, record, rate), source)
        for record in sales(books, period, OSS_RULES)
        for rate, source in _by_rate(record)
    )
    lines = [
        OssLine(
            country=country,
            rate=rate,
            net=cents(sum((s.net for s in sources), ZERO)),
            tax=cents(sum((s.tax for s in sources), ZERO)),
            sources=sources,
        )
        for (country, rate), sources in sorted(groups.items())
    ]
    return OssReport(
        period=period.name,
        lines=lines,
        total_tax=cents(sum((line.tax for line in lines), ZERO)),
        without_country=lost,
        rule=RULE,
    )


def _member_state(books: Books, record: Record, rate: Decimal) -> tuple[str, Decimal] | None:
    country = books.countries.get(record.country_id or 0, "")
    return (country, rate) if country and country != "DE" else None


def _by_rate(record: Record) -> list[tuple[Decimal, OssSource]]:
    sums: dict[Decimal, list[Decimal]] = {}
    for line in record.lines:
        pair = sums.setdefault(cents(line.rate), [ZERO, ZERO])
        pair[0] += line.net
        pair[1] += line.tax
    label = fence(record.label)
    return [
        (rate, OssSource(kind=record.kind, id=record.id, number=label, date=record.day,
                         net=cents(net), tax=cents(tax)))
        for rate, (net, tax) in sorted(sums.items())
    ]  # fmt: skip
