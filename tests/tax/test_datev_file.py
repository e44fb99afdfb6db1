"""The fake's DATEV export is a real EXTF 700 Buchungsstapel: it parses with the EXTF reader,
its header and columns are DATEV's, every amount is positive with S/H the right way round for
an invoice, a credit note, a cancellation (SR), a receipt and bank bookings, every Belegdatum
lies in the period, and it is Windows-1252 with CR LF.

Expected lines worked out by hand from the tax year (``fake/tax_year.py``, October 2026) and
what the test adds; contacts are numbered as debtors 10001… in the order the fake holds them
(inland, bau, fr, …), suppliers as creditors 70001… in the order of the receipts:

- RE-T-1001: 1,000.00 net at 19 % = 1,190.00 gross, debtor S, revenue 8400 (automatic, no key);
- RE-T-1004: 100.00 at 16 % = 116.00, 8200 with BU-Schlüssel 5 (output tax 16 %);
- RE-T-1005: 2,000.00 intra-EU (rule 3) to Atelier Durand (debtor 10003): 8125;
- GU-T-1001: 100.00 at 19 % = 119.00, a credit note: H;
- the SR cancellation of RE-T-1003 (300.00 at 7 % = 321.00, negated): 321.00 H against 8300;
- ER-T-1002: 50.00 at 7 % = 53.50 on 4940, S against creditor 70002, BU 8 (input tax 7 %);
- ER-T-1001: 1,000.00 at 19 % = 1,190.00 on 3400 (automatic, no key) against 70001;
- paid in: RE-T-1001's 1,190.00 on 28.10. to the bank 1200: S against 10001;
- paid out: ER-T-1002's 53.50 on 29.10. from the register (1000): H against 70002.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import date
from decimal import Decimal

import pytest

from sevdesk_mcp.domain.reports.datev.extf import ExtfFile, read_extf
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.bookings import Booking, book
from sevdesk_mcp.fake.cancellation import cancel_invoice
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.exports import advance, datev_zip, exports_of, start_job
from sevdesk_mcp.fake.models import CheckAccount
from sevdesk_mcp.fake.tax_year import TaxYearFacts

OCTOBER = (date(2026, 10, 1), date(2026, 10, 31))
COLUMNS = [
    "Umsatz (ohne Soll/Haben-Kz)", "Soll/Haben-Kennzeichen", "WKZ Umsatz", "Kurs",
    "Basis-Umsatz", "WKZ Basis-Umsatz", "Konto", "Gegenkonto (ohne BU-Schlüssel)",
    "BU-Schlüssel", "Belegdatum", "Belegfeld 1", "Belegfeld 2", "Skonto", "Buchungstext",
]  # fmt: skip


def _add_cases(fake: FakeSevdesk, facts: TaxYearFacts) -> str:
    """Cancel RE-T-1003 on 30.10., pay RE-T-1001 into the bank, ER-T-1002 from the register.

    :returns: the cancellation's number.
    """
    store = fake.store
    store.today = date(2026, 10, 30)
    cancellation, _ = cancel_invoice(store, store.invoices.get(facts.documents["RE-T-1003"]))
    bank = store.add(
        store.check_accounts, CheckAccount(name="Giro", type="offline", accountingNumber="1200")
    )
    register = store.add(store.check_accounts, CheckAccount(name="Kasse", type="register"))
    invoice = store.invoices.get(facts.documents["RE-T-1001"])
    book(
        store,
        invoice,
        Booking(Decimal("1190.00"), at(date(2026, 10, 28), 12), "FULL_PAYMENT", bank, None),
    )
    voucher = store.vouchers.get(facts.receipts["ER-T-1002"])
    book(
        store,
        voucher,
        Booking(Decimal("-53.50"), at(date(2026, 10, 29), 12), "FULL_PAYMENT", register, None),
    )
    store.today = date(2026, 12, 15)
    assert cancellation.invoiceNumber is not None
    return cancellation.invoiceNumber


def _batch(fake: FakeSevdesk, *, enshrine: bool = False) -> tuple[str, bytes]:
    job = start_job(fake.store, *OCTOBER, enshrine=enshrine)
    with zipfile.ZipFile(io.BytesIO(datev_zip(fake.store, job))) as archive:
        (name,) = archive.namelist()
        return name, archive.read(name)


def _lines(found: ExtfFile) -> dict[str, list[list[str]]]:
    """:returns: the booking lines by Belegfeld 1, each cut to its first 14 fields."""
    out: dict[str, list[list[str]]] = {}
    for row in found.rows:
        out.setdefault(row[10], []).append(row[:14])
    return out


@pytest.fixture
def batch(year: tuple[FakeSevdesk, TaxYearFacts]) -> tuple[str, bytes, str]:
    fake, facts = year
    cancelled = _add_cases(fake, facts)
    name, data = _batch(fake)
    return name, data, cancelled


def test_the_file_is_an_extf_buchungsstapel_with_datevs_header_and_columns(
    batch: tuple[str, bytes, str],
) -> None:
    name, data, _ = batch
    assert name.startswith("EXTF_") and name.endswith(".csv")
    found = read_extf(data)
    header = found.header
    assert (header.kind, header.version, header.category) == ("EXTF", 700, 21)
    assert (header.format_name, header.format_version, header.fields) == ("Buchungsstapel", 13, 31)
    assert (header.date_from, header.date_to) == OCTOBER
    assert header.fiscal_year_start == date(2026, 1, 1)
    assert (header.account_length, header.festschreibung, header.currency) == (4, "0", "EUR")
    assert header.chart == "03"
    assert found.columns[:14] == COLUMNS and len(found.columns) == 125
    assert all(len(row) == 125 for row in found.rows)


def test_each_booking_is_positive_and_on_the_right_side(batch: tuple[str, bytes, str]) -> None:
    _, data, cancelled = batch
    lines = _lines(read_extf(data))

    def line(*given: str) -> list[str]:
        """Umsatz, S/H, Konto, Gegenkonto, BU, Belegdatum, Belegfeld 1, Buchungstext."""
        amount, side, konto, gegen, key, day, beleg, text = given
        blank = ["", "", "", ""]  # WKZ Umsatz, Kurs, Basis-Umsatz, WKZ Basis-Umsatz
        return [amount, side, *blank, konto, gegen, key, day, beleg, "", "", text]

    assert lines["RE-T-1001"] == [
        line("1190,00", "S", "10001", "8400", "", "0510", "RE-T-1001", "Müller Möbel GmbH"),
        line("1190,00", "S", "1200", "10001", "", "2810", "RE-T-1001", "Zahlung RE-T-1001"),
    ]
    assert lines["RE-T-1004"] == [
        line("116,00", "S", "10001", "8200", "5", "0910", "RE-T-1004", "Müller Möbel GmbH")
    ]
    assert lines["RE-T-1005"] == [
        line("2000,00", "S", "10003", "8125", "", "1410", "RE-T-1005", "Atelier Durand SARL")
    ]
    assert lines["GU-T-1001"] == [
        line("119,00", "H", "10001", "8400", "", "1210", "GU-T-1001", "Müller Möbel GmbH")
    ]
    assert lines[cancelled] == [
        line("321,00", "H", "10001", "8300", "", "3010", cancelled, "Müller Möbel GmbH")
    ]
    assert lines["ER-T-1001"] == [
        line("1190,00", "S", "3400", "70001", "", "0210", "ER-T-1001", "Holzhandel Schwarz KG")
    ]
    assert lines["ER-T-1002"] == [
        line("53,50", "S", "4940", "70002", "8", "1010", "ER-T-1002", "Fachbuchhandlung Holz"),
        line("53,50", "H", "1000", "70002", "", "2910", "ER-T-1002", "Zahlung ER-T-1002"),
    ]


def test_every_amount_is_positive_and_every_belegdatum_in_the_period(
    batch: tuple[str, bytes, str],
) -> None:
    found = read_extf(batch[1])
    # invoices (RE-T-1002 twice), the credit note, SR, receipts, payments
    assert len(found.rows) == 13 + 1 + 1 + 9 + 2
    for row in found.rows:
        assert re.fullmatch(r"\d+,\d\d", row[0]) and row[0] != "0,00", row
        assert row[1] in ("S", "H")
        assert re.fullmatch(r"(0[1-9]|[12]\d|3[01])10", row[9]), row  # TTMM in October
    assert "RE-T-1013" not in _lines(found)  # the draft
    assert "RE-T-0902" not in _lines(found) and "RE-T-1101" not in _lines(found)


def test_the_file_is_windows_1252_with_cr_lf(batch: tuple[str, bytes, str]) -> None:
    data = batch[1]
    assert "Müller Möbel GmbH".encode("cp1252") in data  # b"M\xfcller M\xf6bel GmbH"
    assert "Müller".encode() not in data  # no UTF-8 b"M\xc3\xbcller"
    assert "BU-Schlüssel".encode("cp1252") in data
    assert data.endswith(b"\r\n") and data.count(b"\n") == data.count(b"\r\n")
    assert read_extf(data).encoding == "Windows-1252"


def test_the_enshrining_job_writes_festschreibung_1(year: tuple[FakeSevdesk, TaxYearFacts]) -> None:
    found = read_extf(_batch(year[0], enshrine=True)[1])
    assert found.header.festschreibung == "1"


def test_the_finished_job_stores_the_zip_with_the_batch(
    year: tuple[FakeSevdesk, TaxYearFacts],
) -> None:
    store = year[0].store
    job = start_job(store, *OCTOBER, enshrine=False)
    advance(store, job)
    advance(store, job)
    (stored,) = exports_of(store).files.values()
    with zipfile.ZipFile(io.BytesIO(stored)) as archive:
        assert archive.namelist() == ["EXTF_Buchungsstapel.csv"]
        assert read_extf(archive.read("EXTF_Buchungsstapel.csv")).header.category == 21
