"""The sales the EU figures are read from (the EU sales list, ``zm``, and the One-Stop-Shop
figures, ``oss``): the finalized documents and receipts of a period under some of sevDesk's tax
rules, grouped by what the figure is reported per. A sale without that key is named, never
dropped."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Iterable, Iterator
from typing import TypeVar

from sevdesk_mcp.domain.reports.books import Books, Record
from sevdesk_mcp.domain.reports.period import Period

K = TypeVar("K")
S = TypeVar("S")


def sales(books: Books, period: Period, rules: Container[int]) -> Iterator[Record]:
    """:returns: the records of ``books`` that are no drafts, are dated in ``period`` and have
    one of the tax ``rules``, in the order of ``books``."""
    for record in books.records:
        if not record.draft and record.rule in rules and record.day in period:
            yield record


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
