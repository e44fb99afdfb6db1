"""Facts about one Buchungsstapel (an EXTF file of data category 21), as DATEV's published
format asks for them: the header says EXTF (or DTVF) 700 / 21 / 13, its period (Datum vom /
bis) is the one asked for and every Belegdatum lies in it, the Sachkontenlänge and the
Festschreibung flag, the column names, every Umsatz positive with S or H, and the encoding
(Windows-1252; UTF-8 is a warning: DATEV shows its umlauts broken).

Every fact is a plain sentence; a problem is a warning. Text from the file is fenced.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

import msgspec

from sevdesk_mcp.domain.reports.datev.extf import ExtfFile, Header, belegdatum
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.safety.fence import fence

KINDS: Final = ("EXTF", "DTVF")
HEADER_VERSION: Final = 700
BOOKING_BATCH: Final = 21
FORMAT_VERSION: Final = 13
COLUMN_COUNT: Final = 125  # Formatversion 13
KEY_COLUMNS: Final = (
    "Umsatz (ohne Soll/Haben-Kz)", "Soll/Haben-Kennzeichen", "WKZ Umsatz", "Kurs",
    "Basis-Umsatz", "WKZ Basis-Umsatz", "Konto", "Gegenkonto (ohne BU-Schlüssel)",
    "BU-Schlüssel", "Belegdatum", "Belegfeld 1", "Belegfeld 2", "Skonto", "Buchungstext",
)  # fmt: skip
UMSATZ, SIDE, BELEGDATUM, BELEGFELD_1 = 0, 1, 9, 10
AMOUNT: Final = re.compile(r"^\d{1,10},\d{2}$")
MAX_NAMED_LINES: Final = 10
FESTSCHREIBUNG: Final = {
    "1": "1: DATEV locks (festschreibt) the bookings when it imports them",
    "0": "0: the bookings stay changeable in DATEV after the import",
    "": "not set (DATEV treats it as 1, locked on import)",
}


class BatchFacts(msgspec.Struct, frozen=True):
    """What one batch says, and the Belegfeld 1 values it holds."""

    facts: list[str]
    warnings: list[str]
    belege: set[str]


def _day(day: dt.date | None) -> str:
    return f"{day:%d.%m.%Y}" if day else "none"


def header_facts(header: Header, period: Period) -> tuple[list[str], list[str]]:
    """:returns: the facts and warnings of the header against ``period``."""
    facts, warnings = [], []
    said = (
        f"{fence(header.kind) or 'no kind'}, header version {header.version}, data category "
        f"{header.category} ({fence(header.format_name) or 'no name'}), format version "
        f"{header.format_version}"
    )
    expected = (header.kind in KINDS, header.version, header.category, header.format_version)
    if expected == (True, HEADER_VERSION, BOOKING_BATCH, FORMAT_VERSION):
        facts.append(f"Header: {said}, DATEV's Buchungsstapel format.")
    else:
        warnings.append(f"Header: {said}; DATEV's Buchungsstapel is EXTF or DTVF 700 / 21 / 13.")
    span = f"{_day(header.date_from)} to {_day(header.date_to)}"
    asked = f"{period.name} ({period.start:%d.%m.%Y} to {period.end:%d.%m.%Y})"
    if (header.date_from, header.date_to) == (period.start, period.end):
        facts.append(f"Period in the header (Datum vom/bis): {span}, the one asked for, {asked}.")
    else:
        warnings.append(
            f"Period in the header (Datum vom/bis): {span}, not the period asked for, {asked}."
        )
    facts.append(f"Fiscal year begins (WJ-Beginn): {_day(header.fiscal_year_start)}.")
    if header.account_length is None:
        warnings.append("Sachkontenlänge: not set in the header; DATEV needs it (4 to 8).")
    else:
        facts.append(f"Sachkontenlänge: {header.account_length}.")
    flag = FESTSCHREIBUNG.get(header.festschreibung)
    if flag is None:
        warnings.append(f"Festschreibung: {fence(header.festschreibung)}, neither 0 nor 1.")
    else:
        facts.append(f"Festschreibung: {flag}.")
    return facts, warnings


def column_facts(columns: list[str]) -> tuple[list[str], list[str]]:
    """:returns: the facts and warnings of the column line."""
    for index, name in enumerate(KEY_COLUMNS):
        found = columns[index] if index < len(columns) else ""
        if " ".join(found.split()) != name:
            return [], [
                f"Column {index + 1} is named {fence(found) or 'nothing'}; DATEV names it "
                f"'{name}'. DATEV reads the columns by position."
            ]
    facts = [f"Column names: DATEV's, from '{KEY_COLUMNS[0]}' to '{KEY_COLUMNS[-1]}'."]
    if len(columns) == COLUMN_COUNT:
        return [*facts, f"Columns: {COLUMN_COUNT}, as Formatversion 13 has them."], []
    return facts, [f"Columns: {len(columns)}; Formatversion 13 has {COLUMN_COUNT}."]


def encoding_facts(file: ExtfFile) -> tuple[list[str], list[str]]:
    """:returns: the facts and warnings of the file's encoding."""
    if file.encoding == "Windows-1252":
        return ["Encoding: Windows-1252, as DATEV reads it."], []
    if file.encoding == "ASCII":
        return ["Encoding: plain ASCII (no umlauts), the same in Windows-1252 and UTF-8."], []
    how = "with a byte order mark" if file.bom else "its umlauts are UTF-8 byte sequences"
    return [], [
        f"Encoding: UTF-8 ({how}). DATEV reads Windows-1252 unless told otherwise: umlauts "
        "(ä, ö, ü, ß) arrive broken. Choose UTF-8 when importing it in DATEV, or ask sevDesk "
        "for a Windows-1252 file."
    ]


def _named(lines: list[str]) -> str:
    shown = ", ".join(lines[:MAX_NAMED_LINES])
    rest = len(lines) - MAX_NAMED_LINES
    return shown + (f" and {rest} more" if rest > 0 else "")


def _within(day: dt.date | None, header: Header) -> bool:
    start, end = header.date_from, header.date_to
    return day is not None and start is not None and end is not None and start <= day <= end


def row_facts(file: ExtfFile) -> tuple[list[str], list[str]]:
    """:returns: the facts and warnings of the bookings: Belegdatum in the header's period,
    Umsatz positive with S or H."""
    header, outside, malformed = file.header, [], []
    for number, row in enumerate(file.rows, 3):
        field = row + [""] * (BELEGFELD_1 + 1 - len(row))
        if not _within(belegdatum(field[BELEGDATUM], header), header):
            outside.append(f"line {number} ({fence(field[BELEGDATUM]) or 'empty'})")
        if not AMOUNT.match(field[UMSATZ].strip()) or field[SIDE].strip() not in ("S", "H"):
            malformed.append(f"line {number} ({fence(field[UMSATZ] + ' ' + field[SIDE])})")
    facts = [f"Bookings: {len(file.rows)}."]
    warnings = []
    if outside:
        warnings.append(f"Belegdatum outside the header's period or unreadable: {_named(outside)}.")
    else:
        facts.append("Every Belegdatum lies within the header's period.")
    if malformed:
        warnings.append(
            "Umsatz not a positive amount with a decimal comma, or Soll/Haben not S or H: "
            f"{_named(malformed)}. DATEV refuses such lines."
        )
    else:
        facts.append("Every Umsatz is positive, with S or H.")
    return facts, warnings


def check_batch(file: ExtfFile, period: Period) -> BatchFacts:
    """:returns: every fact and warning about one Buchungsstapel, and its Belegfeld 1 values."""
    facts: list[str] = []
    warnings: list[str] = []
    for found in (
        header_facts(file.header, period),
        column_facts(file.columns),
        encoding_facts(file),
        row_facts(file),
    ):
        facts += found[0]
        warnings += found[1]
    belege = {row[BELEGFELD_1].strip() for row in file.rows if len(row) > BELEGFELD_1}
    return BatchFacts(facts, warnings, belege - {""})
