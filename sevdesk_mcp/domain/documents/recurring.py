"""Recurring invoices (Abo-Rechnungen, invoice type ``WKR``) read: ``GET
/Invoice?invoiceType=WKR&showWkr=all`` (``docs/sevdesk-api.md`` §2.4, §3.1, §3.2;
``spec/DEVIATIONS.md``).

A recurring invoice is a template that makes an invoice every ``accountIntervall`` (sic, Q37; an
ISO 8601 duration such as ``P0Y1M``) on ``accountNextInvoice`` (Unix seconds); status 50 means
deactivated. The invoice list leaves them out unless ``showWkr=all``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.kinds import Untrusted
from sevdesk_mcp.domain.documents.search import contact_names
from sevdesk_mcp.domain.money import Money, money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.whole_lists import read_whole
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.wire_documents import Document

DEACTIVATED: Final = 50
_PERIOD: Final = re.compile(r"P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?")
_NAMED: Final = {
    (0, 0, 1, 0): "weekly",
    (0, 1, 0, 0): "monthly",
    (0, 3, 0, 0): "quarterly",
    (0, 6, 0, 0): "half-yearly",
    (1, 0, 0, 0): "yearly",
}
_UNITS: Final = ("year", "month", "week", "day")


class _Recurring(Document, frozen=True):
    accountIntervall: str | None = None
    accountNextInvoice: int | None = None


class RecurringInvoice(msgspec.Struct, frozen=True, kw_only=True):
    """One recurring invoice and the invoice it will make next."""

    id: int
    active: bool
    interval: str | None
    every: str | None
    next_date: dt.date | None
    contact_id: int | None
    contact: Untrusted | None
    header: Untrusted | None
    net: Money
    gross: Money


class RecurringList(msgspec.Struct, frozen=True, kw_only=True):
    """The account's recurring invoices, by next date (deactivated ones last)."""

    recurring: list[RecurringInvoice]
    count: int


async def list_recurring(client: SevdeskPort) -> RecurringList:
    """:returns: every recurring invoice with its interval, next date, customer and sums.

    :raises ListTooLongError: for more than a whole list may hold.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    query = {"invoiceType": "WKR", "showWkr": "all"}
    rows = await read_whole(client, "/Invoice", query, what="recurring invoices")
    found = [r for r in wire.parse_all(rows, _Recurring) if r.type() == "WKR"]
    names = await contact_names(client, {r.contact.id for r in found if r.contact})
    items = sorted((_item(r, names) for r in found), key=_order)
    return RecurringList(recurring=items, count=len(items))


def every(interval: str | None) -> str | None:
    """:returns: ``P0Y1M`` in words (``monthly``, ``every 2 weeks``), or ``None`` if unreadable."""
    match = _PERIOD.fullmatch(interval or "")
    if not interval or match is None:
        return None
    parts = tuple(int(g or 0) for g in match.groups())
    if parts in _NAMED:
        return _NAMED[parts]
    said = [f"{n} {unit}{'s' if n > 1 else ''}" for n, unit in zip(parts, _UNITS, strict=True) if n]
    return f"every {' '.join(said)}" if said else None


def _item(row: _Recurring, names: dict[int, str | None]) -> RecurringInvoice:
    upcoming = row.accountNextInvoice
    when = dt.datetime.fromtimestamp(upcoming, dt.UTC) if upcoming else None
    active = row.status != DEACTIVATED
    return RecurringInvoice(
        id=row.id,
        active=active,
        interval=row.accountIntervall,
        every=every(row.accountIntervall),
        next_date=dates.berlin_date(when) if active else None,
        contact_id=row.contact.id if row.contact else None,
        contact=names.get(row.contact.id) if row.contact else None,
        header=fence(row.header),
        net=money(row.sumNet, row.currency),
        gross=money(row.sumGross, row.currency),
    )


def _order(item: RecurringInvoice) -> tuple[bool, dt.date, int]:
    return (not item.active, item.next_date or dt.date.max, item.id)
