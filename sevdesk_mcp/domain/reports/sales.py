"""The sales the EU figures are read from (the EU sales list, ``zm``, and the One-Stop-Shop
figures, ``oss``): the finalized documents and receipts of a period under some of sevDesk's tax
rules, grouped by what the figure is reported per. A sale without that key is named, never
dropped."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Iterator
from typing import Final, TypeVar

from sevdesk_mcp.domain.reports.books import Books, Record
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.domain.reports.vat import timing

GOODS_RULE: Final = 3  # sevDesk's rule of intra-EU supplies of goods
K = TypeVar("K")
S = TypeVar("S")


def sales(
    books: Books,
    period: Period,
    rules: Container[int],
    day: Callable[[Record], dt.date] | None = None,
) -> Iterator[Record]:
    """:returns: the records of ``books`` that are no drafts, count in ``period`` and have one
    of the tax ``rules``, in the order of ``books``.

    :param day: the day a record counts on; by default the day of its supply (its own date
        for a credit note or cancellation, §17 UStG).
    """
    counted = day or supplied
    for record in books.records:
        if not record.draft and record.rule in rules and counted(record) in period:
            yield record


def supplied(record: Record) -> dt.date:
    """:returns: the day a sale counts on: its supply, or its own date for a correction."""
    if timing.is_correction(record):
        return record.day
    return timing.supply(record).end


def reported(record: Record) -> dt.date:
    """:returns: the day a sale is reported in the EU sales list and box 41 or 21 (§18a(8),
    §18b UStG): goods (rule 3) in the month of the invoice, at the latest the month after the
    supply; services in the month of the supply."""
    box = "41" if record.rule == GOODS_RULE else "21"
    return timing.sale_moments(record, box, monthly_priced=False)[0].day


def grouped(keyed: Iterable[tuple[K | None, S]]) -> tuple[dict[K, list[S]], list[S]]:
    """:returns: the items of ``keyed`` by their key, each key's in the order given, and the
    items without a key (``None``), in the order given."""
    groups: defaultdict[K, list[S]] = defaultdict(list)
    keyless: list[S] = []
    for key, item in keyed:
        if key is None:
            keyless.append(item)
        else:
            groups[key].append(item)
    return groups, keyless
