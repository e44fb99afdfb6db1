"""The product checks the DATEV file it delivered: it reads the bytes it saved (never changing
them) and reports facts and warnings in the tool result. The fake serves its real EXTF file; a
transport wrapper around its file storage plants what the check must find: a wrong period, a
missing document, a UTF-8 file, a ZIP without an EXTF file.

October 2026 of the tax year holds 22 documents that belong in the file: RE-T-1001 to
RE-T-1012 (RE-T-1013 is a draft), the credit note GU-T-1001 and the receipts ER-T-1001 to
ER-T-1009 (none a draft).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain.reports import exports
from sevdesk_mcp.domain.reports.datev.check import check_export
from sevdesk_mcp.domain.reports.datev.expected import Expected
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.exports import FileStorage
from sevdesk_mcp.fake.tax_year import TAX_YEAR_TOKEN, TaxYearFacts
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT
from tests.demo_account import DEMO_URL, fake_client
from tests.finance.helpers import call
from tests.writes.helpers import approved

pytestmark = pytest.mark.anyio
Plant = Callable[[str, bytes], tuple[str, bytes]]  # (member name, bytes) -> planted
OCTOBER_DOCUMENTS = 22
CLEAN_FACTS = [
    "Checked: the file as saved in the output folder (the bytes written, unchanged).",
    "⟦EXTF_Buchungsstapel.csv⟧: Header: ⟦EXTF⟧, header version 700, data category 21 "
    "(⟦Buchungsstapel⟧), format version 13, DATEV's Buchungsstapel format.",
    "⟦EXTF_Buchungsstapel.csv⟧: Period in the header (Datum vom/bis): 01.10.2026 to 31.10.2026, "
    "the one asked for, 2026-10 (01.10.2026 to 31.10.2026).",
    "⟦EXTF_Buchungsstapel.csv⟧: Fiscal year begins (WJ-Beginn): 01.01.2026.",
    "⟦EXTF_Buchungsstapel.csv⟧: Sachkontenlänge: 4.",
    "⟦EXTF_Buchungsstapel.csv⟧: Festschreibung: 0: the bookings stay changeable in DATEV after "
    "the import.",
    "⟦EXTF_Buchungsstapel.csv⟧: Column names: DATEV's, from 'Umsatz (ohne Soll/Haben-Kz)' to "
    "'Buchungstext'.",
    "⟦EXTF_Buchungsstapel.csv⟧: Columns: 125, as Formatversion 13 has them.",
    "⟦EXTF_Buchungsstapel.csv⟧: Encoding: Windows-1252, as DATEV reads it.",
    "⟦EXTF_Buchungsstapel.csv⟧: Bookings: 23.",  # 12 invoices, RE-T-1002 twice, GU, 9 receipts
    "⟦EXTF_Buchungsstapel.csv⟧: Every Belegdatum lies within the header's period.",
    "⟦EXTF_Buchungsstapel.csv⟧: Every Umsatz is positive, with S or H.",
    "Documents of the period (finalized invoices and credit notes, receipts that are no drafts) "
    "in the file by Belegfeld 1: 22 of 22.",
]


@pytest.fixture(autouse=True)
def no_poll_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake's job is done after two checks; the 2 s between them are not waited."""
    monkeypatch.setattr(exports, "POLL_INTERVAL_S", 0.0)


class Planting(httpx.AsyncBaseTransport):
    """The fake's export storage, with each stored ZIP's members changed by ``plant``."""

    def __init__(self, fake: FakeSevdesk, plant: Plant) -> None:
        self._storage = FileStorage(fake.store)
        self._plant = plant
        self.served: list[bytes] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = await self._storage.handle_async_request(request)
        if answer.status_code != 200:
            return answer
        out = io.BytesIO()
        with (
            zipfile.ZipFile(io.BytesIO(answer.content)) as source,
            zipfile.ZipFile(out, "w") as target,
        ):
            for name in source.namelist():
                target.writestr(*self._plant(name, source.read(name)))
        self.served.append(out.getvalue())
        return httpx.Response(200, content=out.getvalue(), request=request)


def _on_disk(path: str) -> bytes:
    return Path(path).read_bytes()


def _unchanged(name: str, data: bytes) -> tuple[str, bytes]:
    return name, data


def _app(fake: FakeSevdesk, folder: Path, allow: str = "read") -> McpApp:
    env = {"SEVDESK_OUTPUT_DIR": str(folder), "SEVDESK_ALLOW": allow, "SEVDESK_API_URL": DEMO_URL}
    config = load_config(env)
    client = fake_client(fake, config, token=TAX_YEAR_TOKEN)
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(config).build(account)


async def _export(fake: FakeSevdesk, folder: Path, plant: Plant) -> tuple[dict[str, Any], Planting]:
    """Run sevdesk_export_datev for October with the fake's storage planting ``plant``."""
    transport = Planting(fake, plant)
    token = FILE_TRANSPORT.set(transport)
    try:
        found = await call(_app(fake, folder), "sevdesk_export_datev", period="2026-10")
    finally:
        FILE_TRANSPORT.reset(token)
    return found, transport


async def test_the_clean_file_is_reported_fact_by_fact(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    found, transport = await _export(year[0], tmp_path, _unchanged)
    check = found["check"]
    assert check["files"] == ["⟦EXTF_Buchungsstapel.csv⟧"]
    assert check["facts"] == CLEAN_FACTS
    assert check["warnings"] == []
    assert "saved file was checked, not changed" in found["note"]
    assert _on_disk(found["saved_to"]) == transport.served[0]  # never changed


def _replace(old: bytes, new: bytes) -> Plant:
    def plant(name: str, data: bytes) -> tuple[str, bytes]:
        assert old in data
        return name, data.replace(old, new)

    return plant


async def test_a_wrong_period_in_the_header_is_a_warning_and_the_file_is_delivered(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    plant = _replace(b";20261001;20261031;", b";20260901;20260930;")
    found, transport = await _export(year[0], tmp_path, plant)
    warnings = found["check"]["warnings"]
    assert warnings[0] == (
        "⟦EXTF_Buchungsstapel.csv⟧: Period in the header (Datum vom/bis): 01.09.2026 to "
        "30.09.2026, not the period asked for, 2026-10 (01.10.2026 to 31.10.2026)."
    )
    assert warnings[1].startswith(
        "⟦EXTF_Buchungsstapel.csv⟧: Belegdatum outside the header's period or unreadable: "
        "line 3 (⟦0510⟧), line 4 (⟦2010⟧),"  # RE-T-1001 on 05.10., RE-T-1002 on 20.10.
    )
    assert warnings[1].endswith(" and 13 more.")  # 23 bookings, 10 named
    assert _on_disk(found["saved_to"]) == transport.served[0]


def _without(number: bytes) -> Plant:
    def plant(name: str, data: bytes) -> tuple[str, bytes]:
        lines = data.split(b"\r\n")
        kept = [line for line in lines if f'"{number.decode()}"'.encode() not in line]
        assert len(kept) == len(lines) - 1
        return name, b"\r\n".join(kept)

    return plant


async def test_a_document_missing_from_the_file_is_named(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    found, _ = await _export(year[0], tmp_path, _without(b"ER-T-1005"))
    check = found["check"]
    assert check["warnings"] == ["Not in the file by Belegfeld 1: ⟦ER-T-1005⟧."]
    assert check["facts"][-1].endswith("in the file by Belegfeld 1: 21 of 22.")


def _as_utf8(bom: bool) -> Plant:
    def plant(name: str, data: bytes) -> tuple[str, bytes]:
        return name, (b"\xef\xbb\xbf" if bom else b"") + data.decode("cp1252").encode("utf-8")

    return plant


@pytest.mark.parametrize(
    ("bom", "how"),
    [(False, "its umlauts are UTF-8 byte sequences"), (True, "with a byte order mark")],
)
async def test_a_utf8_file_is_a_warning(
    year: tuple[FakeSevdesk, TaxYearFacts],
    tmp_path: Path,
    bom: bool,
    how: str,
) -> None:
    found, _ = await _export(year[0], tmp_path, _as_utf8(bom))
    (warning,) = found["check"]["warnings"]
    assert warning.startswith(f"⟦EXTF_Buchungsstapel.csv⟧: Encoding: UTF-8 ({how}). DATEV reads")
    assert "umlauts (ä, ö, ü, ß) arrive broken" in warning
    assert found["check"]["facts"][-1].endswith("22 of 22.")  # still read, by its own encoding


async def test_a_zip_without_an_extf_file_is_said_so(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    found, _ = await _export(year[0], tmp_path, lambda name, data: ("Buchungen.csv", data))
    assert found["check"]["warnings"] == [
        "The ZIP holds no EXTF file (no file named EXTF_….csv): no booking batch."
    ]
    assert found["saved_to"] and found["size_bytes"] > 0  # delivered all the same


def test_a_file_that_is_no_zip_is_said_so() -> None:
    check = check_export(b"not a zip", parse_period("2026-10"), Expected())
    assert check.warnings == ["The file is not a readable ZIP; its content was not checked."]


def test_a_file_that_cannot_be_split_names_its_line_and_what_to_do() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("EXTF_Buchungsstapel.csv", b'"EXTF";700;21\r\nUmsatz;BU\r\n"1,00;S\r\n')
    found = check_export(out.getvalue(), parse_period("2026-10"), Expected())
    assert found.warnings == [
        "⟦EXTF_Buchungsstapel.csv⟧ cannot be read as a DATEV file: line 3: a line ends inside a "
        "quoted field (an unclosed quote). The ZIP was saved as sevDesk delivered it; look at "
        "that line in a text editor, and run the export again in sevDesk if the file is "
        "damaged, before handing it to the accountant.",
        "The ZIP holds no Buchungsstapel (EXTF data category 21).",
    ]


def test_a_zip_bomb_member_is_not_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from sevdesk_mcp.domain.reports.datev import check

    monkeypatch.setattr(check, "MAX_BATCH_BYTES", 1024)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("EXTF_x.csv", b"0" * 100_000)
    found = check.check_export(out.getvalue(), parse_period("2026-10"), Expected())
    assert found.warnings[0] == "⟦EXTF_x.csv⟧ is larger than 1,024 bytes; not checked."


async def test_the_enshrining_export_checks_its_file_against_the_approved_documents(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    token = FILE_TRANSPORT.set(Planting(year[0], _without(b"RE-T-1007")))
    try:
        app = _app(year[0], tmp_path, allow="write,commit,external")
        _, result = await approved(app, "sevdesk_export_datev_enshrined", period="2026-10")
    finally:
        FILE_TRANSPORT.reset(token)
    check = result["structuredContent"]["result"]["file"]["check"]
    assert (
        "⟦EXTF_Buchungsstapel.csv⟧: Festschreibung: 1: DATEV locks (festschreibt) the bookings "
        "when it imports them." in check["facts"]
    )
    assert check["warnings"] == ["Not in the file by Belegfeld 1: ⟦RE-T-1007⟧."]
    assert check["facts"][-1].endswith("in the file by Belegfeld 1: 21 of 22.")
