"""Dates the way sevDesk means them: Europe/Berlin, in the format each endpoint wants (Q18-Q20).

- list filters ``startDate``/``endDate`` on invoices and vouchers: Unix seconds (ISO strings are
  silently answered with an empty list);
- Factory date fields (``invoiceDate``, ``voucherDate``, …): ``dd.mm.yyyy``;
- ``getBalanceAtDate``: ``YYYY-MM-DD``; invoice ``bookAmount``: Unix seconds; voucher
  ``bookAmount``: an ISO date-time;
- responses: ISO 8601 with the Berlin offset.

A calendar day always means the Berlin day: converting through UTC would shift dates by one.
"""

from __future__ import annotations

import datetime as dt
from typing import Final
from zoneinfo import ZoneInfo

BERLIN: Final = ZoneInfo("Europe/Berlin")


def berlin_midnight(day: dt.date) -> dt.datetime:
    """:returns: the start of ``day`` in Berlin."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=BERLIN)


def unix_start(day: dt.date) -> int:
    """:returns: Unix seconds at the start of the Berlin day."""
    return int(berlin_midnight(day).timestamp())


def unix_end(day: dt.date) -> int:
    """:returns: Unix seconds at the last second of the Berlin day."""
    return unix_start(day + dt.timedelta(days=1)) - 1


def dotted(day: dt.date) -> str:
    """:returns: ``dd.mm.yyyy``."""
    return day.strftime("%d.%m.%Y")


def iso_datetime(moment: dt.datetime) -> str:
    """:returns: ISO 8601 in Berlin time with its offset."""
    return moment.astimezone(BERLIN).isoformat()


def berlin_date(moment: dt.datetime | None) -> dt.date | None:
    """:returns: the Berlin calendar day of a timestamp sevDesk sent."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=BERLIN)
    return moment.astimezone(BERLIN).date()


def today() -> dt.date:
    """:returns: today's date in Berlin."""
    return dt.datetime.now(BERLIN).date()
