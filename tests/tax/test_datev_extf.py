"""The EXTF reader on DATEV's published example: the header and column line of the sample file
"EXTF_Buchungsstapel.csv" on developer.datev.de ("DATEV-Format", Einstieg; the same header on
the page "Header"), with every field worked out by hand from DATEV's field list; quoting,
line ends, the encodings and the Belegdatum."""

from __future__ import annotations

import datetime as dt

import pytest

from sevdesk_mcp.domain.reports.datev.extf import (
    ExtfError,
    belegdatum,
    detect,
    lines_of,
    parse_header,
    read_extf,
    split_fields,
)

# DATEV's published example header, verbatim.
PUBLISHED_HEADER = (
    '"EXTF";700;21;"Buchungsstapel";13;20240130140440439;;"RE";"";"";29098;55003;20240101;4;'
    '20240101;20240831;"Buchungsstapel";"WD";1;0;0;"EUR";;"";;;"03";;;"";""'
)
# The first columns of the published example's line 2.
PUBLISHED_COLUMNS = (
    "Umsatz (ohne Soll/Haben-Kz);Soll/Haben-Kennzeichen;WKZ Umsatz;Kurs;Basis-Umsatz;"
    "WKZ Basis-Umsatz;Konto;Gegenkonto (ohne BU-Schlüssel);BU-Schlüssel;Belegdatum;Belegfeld 1;"
    "Belegfeld 2;Skonto;Buchungstext"
)


def test_the_published_header_is_read_field_by_field() -> None:
    header = parse_header(split_fields(PUBLISHED_HEADER))
    assert header.fields == 31
    assert (header.kind, header.version, header.category) == ("EXTF", 700, 21)
    assert (header.format_name, header.format_version) == ("Buchungsstapel", 13)
    assert header.created == "20240130140440439"
    assert (header.berater, header.mandant) == ("29098", "55003")
    assert header.fiscal_year_start == dt.date(2024, 1, 1)
    assert header.account_length == 4
    assert (header.date_from, header.date_to) == (dt.date(2024, 1, 1), dt.date(2024, 8, 31))
    assert header.label == "Buchungsstapel"
    assert header.festschreibung == "0"  # field 21; 19 Buchungstyp 1, 20 Rechnungslegungszweck 0
    assert header.currency == "EUR"
    assert header.chart == "03"


def test_the_published_example_reads_as_a_file_in_windows_1252() -> None:
    line = '1190,00;"S";"EUR";;;;10001;8400;"";0510;"RE-1";"";;"Müller ""Möbel"";GmbH"'
    text = f"{PUBLISHED_HEADER}\r\n{PUBLISHED_COLUMNS}\r\n{line}\r\n"
    found = read_extf(text.encode("cp1252"))
    assert found.encoding == "Windows-1252" and not found.bom
    assert found.columns[7] == "Gegenkonto (ohne BU-Schlüssel)"
    assert found.columns[13] == "Buchungstext"
    (row,) = found.rows
    assert row[:3] == ["1190,00", "S", "EUR"]
    assert row[13] == 'Müller "Möbel";GmbH'  # a doubled quote, a separator inside quotes


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("", [""]),
        (";", ["", ""]),
        ('"";x', ["", "x"]),
        ('"a;b";"say ""hi""";3', ["a;b", 'say "hi"', "3"]),
        ('"""";2', ['"', "2"]),
    ],
)
def test_fields_are_split_outside_quotes(line: str, fields: list[str]) -> None:
    assert split_fields(line) == fields


def test_an_unclosed_quote_is_refused() -> None:
    with pytest.raises(ExtfError, match="unclosed quote"):
        split_fields('"EXTF;700')


def test_a_line_that_cannot_be_split_is_named_by_its_number() -> None:
    broken = PUBLISHED_HEADER + '\r\nUmsatz;Soll/Haben-Kennzeichen\r\n1,00;S\r\n"2,00;H\r\n'
    with pytest.raises(ExtfError, match=r"^line 4: a line ends inside a quoted field"):
        read_extf(broken.encode("cp1252"))


def test_a_file_without_its_column_line_is_refused() -> None:
    with pytest.raises(ExtfError, match="no header line and column line"):
        read_extf(PUBLISHED_HEADER.encode("cp1252") + b"\r\n")


def test_lines_end_with_cr_lf() -> None:
    assert lines_of("a\r\nb\r\n") == ["a", "b"]
    assert lines_of("a\nb") == ["a", "b"]


@pytest.mark.parametrize(
    ("data", "found"),
    [
        ("Müller".encode("cp1252"), ("Windows-1252", False)),  # b"M\xfcller"
        ("Müller".encode(), ("UTF-8", False)),  # b"M\xc3\xbcller": "MÃ¼ller" in cp1252
        (b"\xef\xbb\xbf" + b"EXTF", ("UTF-8", True)),
        (b"EXTF;700", ("ASCII", False)),
        ("Straße für Größe".encode("cp1252"), ("Windows-1252", False)),
    ],
)
def test_the_encoding_is_detected(data: bytes, found: tuple[str, bool]) -> None:
    assert detect(data) == found


def test_a_utf8_file_with_bom_is_read_without_it() -> None:
    text = f"{PUBLISHED_HEADER}\r\n{PUBLISHED_COLUMNS}\r\n"
    found = read_extf(b"\xef\xbb\xbf" + text.encode())
    assert (found.encoding, found.bom, found.header.kind) == ("UTF-8", True, "EXTF")
    assert found.columns[8] == "BU-Schlüssel"


def test_belegdatum_takes_its_year_from_the_header() -> None:
    header = parse_header(split_fields(PUBLISHED_HEADER))  # 01.01.2024 to 31.08.2024
    assert belegdatum("0510", header) == dt.date(2024, 10, 5)  # outside: the caller says so
    assert belegdatum("2902", header) == dt.date(2024, 2, 29)
    assert belegdatum("3102", header) is None
    assert belegdatum("510", header) is None
    turn = parse_header(
        split_fields(PUBLISHED_HEADER.replace("20240101;20240831", "20241201;20250131"))
    )
    assert belegdatum("1501", turn) == dt.date(2025, 1, 15)
    assert belegdatum("1512", turn) == dt.date(2024, 12, 15)
