"""The Buchungsstapel in the fake's DATEV export: an EXTF file of DATEV's published format.

DATEV-Format (developer.datev.de, "DATEV-Format", header and Buchungsstapel): fields separated
by ``;``, every line ending in CR LF, text fields in double quotes (inner quotes doubled, no
line breaks), decimal comma without thousands separator, Windows-1252. Line 1 is the header
(31 fields: ``"EXTF";700;21;"Buchungsstapel";13;created;;Herkunft;…;Beraternummer;
Mandantennummer;WJ-Beginn;Sachkontenlänge;Datum vom;Datum bis;Bezeichnung;Diktatkürzel;
Buchungstyp;Rechnungslegungszweck;Festschreibung;WKZ;…;Sachkontenrahmen;…``), line 2 the 125
column names of Formatversion 13, then one booking per line (:mod:`~sevdesk_mcp.fake.datev_books`),
its Belegdatum ``TTMM`` (the year is the header's).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.datev_books import Posting, postings
from sevdesk_mcp.fake.datev_columns import COLUMNS
from sevdesk_mcp.fake.store import Store

FILE_NAME: Final = "EXTF_Buchungsstapel.csv"
ENCODING: Final = "cp1252"
BERATER: Final = 4711
MANDANT: Final = 10001
ACCOUNT_LENGTH: Final = 4
LABEL: Final = "Buchungsstapel sevDesk"
HERKUNFT: Final = "SD"
CHART: Final = "03"  # SKR03
MAX_TEXT: Final = 60  # Buchungstext
MAX_BELEG: Final = 36  # Belegfeld 1


def quoted(text: str, limit: int | None = None) -> str:
    """:returns: ``text`` as a DATEV text field: in quotes, inner quotes doubled, no line
    breaks or field separators' surprises (line breaks become spaces), cut to ``limit``."""
    flat = " ".join(text.replace('"', '""').split())
    return f'"{flat[:limit] if limit else flat}"'


def amount(value: Decimal) -> str:
    """:returns: ``value`` with a decimal comma and two decimals, no thousands separator."""
    return f"{value:.2f}".replace(".", ",")


def header(created: datetime, start: date, end: date, *, locked: bool) -> list[str]:
    """:returns: the 31 fields of the header line."""
    return [
        quoted("EXTF"), "700", "21", quoted("Buchungsstapel"), "13",
        f"{created:%Y%m%d%H%M%S}{created.microsecond // 1000:03d}", "", quoted(HERKUNFT),
        quoted("sevDesk Fake"), quoted(""), str(BERATER), str(MANDANT),
        f"{date(start.year, 1, 1):%Y%m%d}", str(ACCOUNT_LENGTH),
        f"{start:%Y%m%d}", f"{end:%Y%m%d}", quoted(LABEL, 30), quoted(""), "1", "0",
        "1" if locked else "0", quoted("EUR"), "", quoted(""), "", "", quoted(CHART), "", "",
        quoted(""), quoted(""),
    ]  # fmt: skip


def row(posting: Posting) -> list[str]:
    """:returns: the 125 fields of one booking line."""
    first = [
        amount(posting.amount), quoted(posting.side), quoted(""), "", "", quoted(""),
        posting.konto, posting.gegenkonto, quoted(posting.bu), f"{posting.day:%d%m}",
        quoted(posting.beleg, MAX_BELEG), quoted(""), "", quoted(posting.text, MAX_TEXT),
    ]  # fmt: skip
    return first + [""] * (len(COLUMNS) - len(first))


def batch(store: Store, start: date, end: date, *, locked: bool) -> bytes:
    """:returns: the Buchungsstapel of ``start``..``end`` as Windows-1252 bytes; a character
    Windows-1252 lacks becomes ``?``."""
    lines = [
        ";".join(header(store.now(), start, end, locked=locked)),
        ";".join(COLUMNS),
        *(";".join(row(p)) for p in postings(store, start, end)),
    ]
    return "".join(f"{line}\r\n" for line in lines).encode(ENCODING, errors="replace")
