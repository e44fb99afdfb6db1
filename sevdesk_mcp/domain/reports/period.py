"""Reporting periods: a month (``2026-10``), a quarter (``2026-Q4``) or a year (``2026``)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

import msgspec

from sevdesk_mcp.errors import ToolInputError

PATTERN: Final = r"^\d{4}(-(0[1-9]|1[0-2]|Q[1-4]))?$"
_PATTERN: Final = re.compile(PATTERN)
MIN_YEAR: Final = 2000
MAX_YEAR: Final = 2099


class Period(msgspec.Struct, frozen=True):
    """A closed range of days with the name it was asked by."""

    name: str
    start: dt.date
    end: dt.date

    def __contains__(self, day: object) -> bool:
        return isinstance(day, dt.date) and self.start <= day <= self.end

    @property
    def quarterly(self) -> bool:
        """:returns: whether the period is a quarter."""
        return "Q" in self.name


def parse_period(text: str) -> Period:
    """:returns: the period named by ``text``.

    :raises ToolInputError: if ``text`` names no month, quarter or year from 2000 to 2099.
    """
    name = text.strip().upper()
    if not _PATTERN.match(name) or not MIN_YEAR <= int(name[:4]) <= MAX_YEAR:
        raise ToolInputError(
            f"period '{text}' is not a month (2026-10), a quarter (2026-Q4) or a year (2026) "
            f"between {MIN_YEAR} and {MAX_YEAR}."
        )
    year = int(name[:4])
    if len(name) == 4:
        return Period(name, dt.date(year, 1, 1), dt.date(year, 12, 31))
    if name[5] == "Q":
        first = 3 * int(name[6]) - 2
        return Period(name, dt.date(year, first, 1), _month_end(year, first + 2))
    month = int(name[5:])
    return Period(name, dt.date(year, month, 1), _month_end(year, month))


def _month_end(year: int, month: int) -> dt.date:
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return following - dt.timedelta(days=1)
