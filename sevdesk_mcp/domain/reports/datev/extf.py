"""A reader of DATEV's EXTF files (DATEV-Format, developer.datev.de), written from the
published format: the bytes decoded, the lines split at CR LF, each line split at ``;`` outside
double quotes (an inner quote is doubled), the header (line 1) and the column names (line 2)
parsed, the bookings kept as lists of fields.

Encoding: DATEV reads Windows-1252 unless told otherwise. A file with a UTF-8 byte order mark,
or whose bytes beyond ASCII all form valid UTF-8 multi-byte sequences (which Windows-1252 would
show as ``Ã¼`` for ``ü``), is read as UTF-8 and said to be so; a file of ASCII only reads the
same either way.

Header fields (1-based, header version 700): 1 kind (EXTF or DTVF), 2 header version, 3 data
category (21 = Buchungsstapel), 4 format name, 5 format version, 6 created at, 11
Beraternummer, 12 Mandantennummer, 13 WJ-Beginn, 14 Sachkontenlänge, 15 Datum vom, 16 Datum
bis, 17 Bezeichnung, 21 Festschreibung, 22 WKZ, 27 Sachkontenrahmen.
"""

from __future__ import annotations

import datetime as dt
from typing import Final, Literal

import msgspec

Encoding = Literal["Windows-1252", "UTF-8", "ASCII"]
UTF8_BOM: Final = b"\xef\xbb\xbf"
SEPARATOR: Final = ";"
QUOTE: Final = '"'
MAX_FIELDS: Final = 1000  # per line; DATEV's widest format has 254


class ExtfError(ValueError):
    """The bytes are no EXTF file: no header and column line, or a line that cannot be
    split (an unclosed quote, too many fields). It never leaves this package: the check turns
    it into a warning."""


class Header(msgspec.Struct, frozen=True, kw_only=True):
    """The header line, field by field (``None`` where a field is empty or malformed)."""

    kind: str
    version: int | None
    category: int | None
    format_name: str
    format_version: int | None
    created: str
    berater: str
    mandant: str
    fiscal_year_start: dt.date | None
    account_length: int | None
    date_from: dt.date | None
    date_to: dt.date | None
    label: str
    festschreibung: str
    currency: str
    chart: str
    fields: int


class ExtfFile(msgspec.Struct, frozen=True, kw_only=True):
    """A read EXTF file: how it was encoded, its header, column names and data lines."""

    encoding: Encoding
    bom: bool
    header: Header
    columns: list[str]
    rows: list[list[str]]


def detect(data: bytes) -> tuple[Encoding, bool]:
    """:returns: the encoding of ``data`` and whether it starts with a UTF-8 byte order mark."""
    if data.startswith(UTF8_BOM):
        return "UTF-8", True
    if data.isascii():
        return "ASCII", False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "Windows-1252", False
    return "UTF-8", False


def decode(data: bytes) -> tuple[str, Encoding, bool]:
    """:returns: the text of ``data``, its encoding and whether it had a byte order mark.
    Bytes Windows-1252 leaves undefined become U+FFFD."""
    encoding, bom = detect(data)
    if encoding == "UTF-8":
        return data[len(UTF8_BOM) if bom else 0 :].decode("utf-8"), encoding, bom
    return data.decode("cp1252", errors="replace"), encoding, bom


def split_fields(line: str) -> list[str]:
    """:returns: the fields of one line, quotes removed and doubled quotes made single.

    :raises ExtfError: for an unclosed quote or more than :data:`MAX_FIELDS` fields.
    """
    fields: list[str] = []
    current: list[str] = []
    quoted = False
    index = 0
    while index < len(line):
        char = line[index]
        if quoted and char == QUOTE and line[index + 1 : index + 2] == QUOTE:
            current.append(QUOTE)
            index += 1
        elif char == QUOTE:
            quoted = not quoted
        elif char == SEPARATOR and not quoted:
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    if quoted:
        raise ExtfError("a line ends inside a quoted field (an unclosed quote)")
    fields.append("".join(current))
    if len(fields) > MAX_FIELDS:
        raise ExtfError(f"a line has more than {MAX_FIELDS} fields")
    return fields


def lines_of(text: str) -> list[str]:
    """:returns: the lines of ``text`` (CR LF, or a bare LF), without a last empty line."""
    lines = text.replace("\r\n", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _int(text: str) -> int | None:
    return int(text) if text.strip().isdigit() else None


def _day(text: str) -> dt.date | None:
    digits = text.strip()
    if len(digits) != 8 or not digits.isdigit():
        return None
    try:
        return dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None


def parse_header(fields: list[str]) -> Header:
    """:returns: the header of an EXTF file from the fields of its first line."""

    def at(position: int) -> str:
        return fields[position - 1].strip() if len(fields) >= position else ""

    return Header(
        kind=at(1), version=_int(at(2)), category=_int(at(3)), format_name=at(4),
        format_version=_int(at(5)), created=at(6), berater=at(11), mandant=at(12),
        fiscal_year_start=_day(at(13)), account_length=_int(at(14)), date_from=_day(at(15)),
        date_to=_day(at(16)), label=at(17), festschreibung=at(21), currency=at(22),
        chart=at(27), fields=len(fields),
    )  # fmt: skip


def read_extf(data: bytes) -> ExtfFile:
    """:returns: the EXTF file in ``data``.

    :raises ExtfError: if it has no header and column line, or a line cannot be split (the
        message names the line).
    """
    text, encoding, bom = decode(data)
    lines = lines_of(text)
    if len(lines) < 2:
        raise ExtfError("the file has no header line and column line")
    return ExtfFile(
        encoding=encoding,
        bom=bom,
        header=parse_header(_numbered(lines[0], 1)),
        columns=[name.strip() for name in _numbered(lines[1], 2)],
        rows=[_numbered(line, n) for n, line in enumerate(lines[2:], start=3) if line.strip()],
    )


def _numbered(line: str, number: int) -> list[str]:
    """:returns: the fields of line ``number``.

    :raises ExtfError: as :func:`split_fields`, naming the line.
    """
    try:
        return split_fields(line)
    except ExtfError as exc:
        raise ExtfError(f"line {number}: {exc}") from None


def belegdatum(text: str, header: Header) -> dt.date | None:
    """:returns: the day of a ``TTMM`` Belegdatum, its year taken from the header's period
    (the year of Datum vom, or of Datum bis where that puts it in the period), or ``None``
    for a malformed one or a header without a period."""
    digits = text.strip()
    start, end = header.date_from, header.date_to
    if len(digits) != 4 or not digits.isdigit() or start is None:
        return None
    found = None
    for year in dict.fromkeys((start.year, end.year if end else start.year)):
        try:
            found = dt.date(year, int(digits[2:]), int(digits[:2]))
        except ValueError:
            continue
        if end is None or start <= found <= end:
            return found
    return found
