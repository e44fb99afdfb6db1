"""The documents of a period that belong in its DATEV file: finalized invoices (not reminders
or recurring templates) and credit notes, and receipts that are no drafts, each named by the
number the file carries in Belegfeld 1 (invoice and credit-note number, the receipt's number).

Each list is read through sevDesk's date filter and filtered again here (sevDesk ignores
filters it does not know, Q12). The enshrining export reads the same lists to count what it
locks (:mod:`~sevdesk_mcp.domain.reports.enshrine`) and keeps what this module makes of them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.together import each

MAX_LISTED: Final = 20_000
DOCUMENT_DRAFT: Final = 100
RECEIPT_DRAFT: Final = 50
NOT_EXPORTED_INVOICE_TYPES: Final = frozenset({"MA", "WKR"})  # reminders, recurring templates


class Listed(msgspec.Struct, frozen=True):
    """What counting and naming need of a listed invoice, credit note, receipt or bank
    transaction: its dates, status, enshrinement, type and number."""

    id: int
    status: int | None = None
    invoiceDate: dt.datetime | None = None
    creditNoteDate: dt.datetime | None = None
    voucherDate: dt.datetime | None = None
    entryDate: dt.datetime | None = None
    enshrined: dt.datetime | None = None
    deletedAt: dt.datetime | None = None
    invoiceType: str | None = None
    invoiceNumber: str | None = None
    creditNoteNumber: str | None = None
    description: str | None = None  # a receipt's number (Q39)

    def day(self) -> dt.date | None:
        """:returns: the Berlin day the period is judged by."""
        when = self.invoiceDate or self.creditNoteDate or self.voucherDate or self.entryDate
        return dates.berlin_date(when)

    def number(self) -> str | None:
        """:returns: the number the DATEV file carries in Belegfeld 1, if any."""
        found = self.invoiceNumber or self.creditNoteNumber or self.description
        return found.strip() if found and found.strip() else None


class Expected(msgspec.Struct, frozen=True):
    """The period's documents by number, and how many have none."""

    numbers: tuple[str, ...] = ()
    unnumbered: int = 0

    @property
    def total(self) -> int:
        """:returns: how many documents belong in the file."""
        return len(self.numbers) + self.unnumbered


def _belongs(item: Listed, draft: int) -> bool:
    return item.status != draft and item.invoiceType not in NOT_EXPORTED_INVOICE_TYPES


def expected_of(
    documents: Sequence[Listed], receipts: Sequence[Listed], period: Period
) -> Expected:
    """:returns: which of ``documents`` (invoices, credit notes) and ``receipts`` belong in the
    DATEV file of ``period``."""
    kept = [d for d in documents if d.day() in period and _belongs(d, DOCUMENT_DRAFT)]
    kept += [r for r in receipts if r.day() in period and _belongs(r, RECEIPT_DRAFT)]
    numbers = [n for n in (item.number() for item in kept) if n is not None]
    return Expected(tuple(dict.fromkeys(numbers)), len(kept) - len(numbers))


def window(period: Period) -> dict[str, int]:
    """:returns: sevDesk's date filter for ``period`` (Unix seconds, Berlin days)."""
    return {"startDate": dates.unix_start(period.start), "endDate": dates.unix_end(period.end)}


def lister(client: SevdeskPort, path: str, period: Period) -> Callable[[], Awaitable[list[Listed]]]:
    """:returns: a reader of ``path`` in ``period``.

    The reader raises :class:`ToolError` if the list holds more than :data:`MAX_LISTED`
    entries in the period (counts must be exact), and :class:`UpstreamError` if sevDesk
    cannot be read.
    """

    async def read() -> list[Listed]:
        page = await client.get_all(path, window(period), max_items=MAX_LISTED)
        if page.truncated:
            raise ToolError(
                f"{path[1:]} holds more than {MAX_LISTED:,} entries in {period.name}; the "
                "DATEV export needs exact counts. Export a shorter period (a month)."
            )
        return wire.parse_all(page.items, Listed)

    return read


async def read_expected(client: SevdeskPort, period: Period) -> Expected:
    """:returns: the documents of ``period`` that belong in its DATEV file.

    :raises ToolError: if a list is too long to read whole.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    paths = ("/Invoice", "/CreditNote", "/Voucher")
    invoices, notes, receipts = await each([lister(client, p, period) for p in paths])
    return expected_of([*invoices, *notes], receipts, period)
