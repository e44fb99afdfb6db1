"""The export tools: CSV and DATEV files delivered to the output folder; refusals without a
folder and over HTTP; the tax tools answer through the dispatcher."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.exports import FileStorage
from sevdesk_mcp.fake.tax_year import TAX_YEAR_TOKEN, TaxYearFacts
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.transfers import CALLER, Caller, Holder, MemoryTransferStore, Owner
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT
from tests.demo_account import DEMO_URL, fake_client
from tests.finance.helpers import call, call_error

pytestmark = pytest.mark.anyio


def _app(fake: FakeSevdesk, env: dict[str, str], principal: str = "local") -> McpApp:
    config = load_config({**env, "SEVDESK_API_URL": DEMO_URL})
    client = fake_client(fake, config, token=TAX_YEAR_TOKEN)
    account = AccountContext(
        config=config, client=client, demo=True, today=lambda: fake.today, principal=principal
    )
    return ServerFactory(config).build(account)


def _file(path: str) -> tuple[int, bytes]:
    saved = Path(path)
    return stat.S_IMODE(saved.stat().st_mode), saved.read_bytes()


def _listing(folder: Path) -> list[Path]:
    return list(folder.iterdir())


@pytest.mark.parametrize("kind", ["invoices", "credit_notes", "receipts", "transactions"])
async def test_csv_exports_are_delivered_as_new_files(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path, kind: str
) -> None:
    app = _app(year[0], {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    first = await call(app, "sevdesk_export_csv", kind=kind, period="2026-10")
    second = await call(app, "sevdesk_export_csv", kind=kind, period="2026-10")
    assert first["saved_to"] != second["saved_to"]  # never overwritten
    mode, data = _file(first["saved_to"])
    assert first["saved_to"].startswith(str(tmp_path)) and first["saved_to"].endswith(".csv")
    assert mode == 0o600
    assert first["size_bytes"] == len(data)


async def test_the_invoice_csv_holds_the_period(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    app = _app(year[0], {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    found = await call(app, "sevdesk_export_csv", kind="invoices", period="2026-10")
    text = _file(found["saved_to"])[1].decode("utf-8")
    assert "RE-T-1001" in text and "RE-T-1101" not in text


async def test_datev_export_is_delivered(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, _ = year
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    token = FILE_TRANSPORT.set(FileStorage(fake.store))
    try:
        found = await call(app, "sevdesk_export_datev", period="2026-Q4")
    finally:
        FILE_TRANSPORT.reset(token)
    assert _file(found["saved_to"])[1][:2] == b"PK"
    assert found["media_type"] == "application/zip"
    check = found["check"]  # the saved file checked: the fake's EXTF batch of Q4 is clean
    assert check["facts"][0].startswith("Checked: the file as saved in the output folder")
    assert check["warnings"] == []


async def test_without_an_output_folder_nothing_is_saved(
    year: tuple[FakeSevdesk, TaxYearFacts],
) -> None:
    fake, _ = year
    found = await call(_app(fake, {}), "sevdesk_export_datev", period="2026")
    assert "SEVDESK_OUTPUT_DIR" in found["note"] and "saved_to" not in found
    assert not [r for r in fake.requests if r.path.startswith("/Export")]


async def test_default_periods_are_the_last_month_and_quarter(
    year: tuple[FakeSevdesk, TaxYearFacts],
) -> None:
    app = _app(year[0], {})  # the books' today is 2026-12-15
    assert (await call(app, "sevdesk_vat_return"))["period"] == "2026-11"
    assert (await call(app, "sevdesk_oss_figures"))["period"] == "2026-Q3"


async def test_over_http_without_file_transfer_the_export_is_refused(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    app = _app(year[0], {"SEVDESK_OUTPUT_DIR": str(tmp_path)}, principal="bearer")
    text = await call_error(app, "sevdesk_export_datev", period="2026-10")
    assert "bearer mode, which has no file transfer" in text and "SEVDESK_HTTP_AUTH=oauth" in text
    assert "SEVDESK_HTTP_FILES=on" not in text  # setting it would change nothing here
    assert _listing(tmp_path) == []


async def test_over_http_with_file_transfer_the_export_is_a_download_page(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, _ = year
    store = MemoryTransferStore()
    owner = Owner("grant-1", "account-1", "person-1")
    caller = CALLER.set(Caller(store, owner, "https://books.example"))
    files = FILE_TRANSPORT.set(FileStorage(fake.store))
    try:
        app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)}, principal="grant-1")
        found = await call(app, "sevdesk_export_datev", period="2026-Q4")
        listed = await call(app, "sevdesk_export_csv", kind="invoices", period="2026-10")
    finally:
        FILE_TRANSPORT.reset(files)
        CALLER.reset(caller)
    assert found["download_page"].startswith("https://books.example/download?id=")
    assert listed["download_page"] != found["download_page"] and "saved_to" not in found
    record_id = found["download_page"].rsplit("=", 1)[1]
    fetched = await store.download(record_id, Holder("account-1", "person-1"))
    assert fetched is not None and fetched[1][:2] == b"PK"  # the zip, for this person only
    said = "Checked: the file as downloaded from sevDesk and offered for download."
    assert found["check"]["facts"][0] == said and found["check"]["warnings"] == []
    assert await store.download(record_id, Holder("account-2", "person-1")) is None
    assert _listing(tmp_path) == []  # nothing on the server's disk


async def test_prepare_my_vat_return_for_october(year: tuple[FakeSevdesk, TaxYearFacts]) -> None:
    app = _app(year[0], {})
    found = await call(app, "sevdesk_vat_return", period="2026-10")
    boxes = {b["box"]: b for b in found["boxes"]}
    assert boxes["81"]["base"] == "1400.00" and found["box_83"] == "180.50"
    assert boxes["81"]["sources"][0]["number"].startswith("⟦")
    assert found["open_questions"]
    for name, args in [
        ("sevdesk_eu_sales_list", {"period": "2026-Q4"}),
        ("sevdesk_oss_figures", {"period": "2026-Q4"}),
        ("sevdesk_profit_and_loss", {"period": "2026"}),
    ]:
        assert await call(app, name, **args)


async def test_a_malformed_period_is_refused_by_the_schema(
    year: tuple[FakeSevdesk, TaxYearFacts],
) -> None:
    text = await call_error(_app(year[0], {}), "sevdesk_vat_return", period="October")
    assert "period" in text
