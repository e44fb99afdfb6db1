"""sevdesk_export_datev_enshrined through the whole write flow against the fake: prepare, the
preview with the period and the counts, the human's approval, the job with festschreiben, the
file delivered like the read export, and the read-back (a later change in the period is refused
by the fake). A booking added after the approval was asked voids it.

October 2026 of the tax year, by construction (``fake/tax_year.py``): 12 finalized invoices
(RE-T-1001 to RE-T-1012; RE-T-1013 is a draft) and the credit note GU-T-1001, all enshrined when
finalized; 9 receipts ER-T-1001 to ER-T-1009, none enshrined; the test adds one booking. The
books' today is 15.12.2026: December, Q4 and the year 2026 are still running.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain.reports import exports
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.errors import UpstreamError, WriteRefusedError
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.bookings import Booking, book
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.exports import FileStorage
from sevdesk_mcp.fake.models import CheckAccount
from sevdesk_mcp.fake.tax_year import TAX_YEAR_TOKEN, TaxYearFacts, build_tax_year
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT
from tests.demo_account import DEMO_URL, fake_client
from tests.finance.helpers import call, call_error
from tests.wire import FORM, open_wire
from tests.writes.helpers import approve, approved
from tests.writes.tool_helpers import facts, person_said, said

pytestmark = pytest.mark.anyio
NAME = "sevdesk_export_datev_enshrined"
ALL = "write,commit,external"
OCTOBER_RECEIPTS = 9
UNCONFIRMED = (
    "{} (status 350: sevDesk booked them, nobody confirmed them). Whether festschreiben locks "
    "them is not documented, so the bank bookings above count confirmed ones (400) only; "
    "confirm or undo them in sevDesk first to be sure"
)


def _app(fake: FakeSevdesk, env: dict[str, str]) -> McpApp:
    config = load_config({"SEVDESK_ALLOW": ALL, **env, "SEVDESK_API_URL": DEMO_URL})
    client = fake_client(fake, config, token=TAX_YEAR_TOKEN)
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(config).build(account)


@pytest.fixture
def storage(year: tuple[FakeSevdesk, TaxYearFacts]) -> Iterator[None]:
    """The export file storage of the tax year, where the DATEV links point."""
    token = FILE_TRANSPORT.set(FileStorage(year[0].store))
    yield
    FILE_TRANSPORT.reset(token)


def _pay(fake: FakeSevdesk, voucher_id: int, day: date) -> int:
    """Book a receipt in full from a cash register on ``day``; :returns: the transaction id."""
    store = fake.store
    register = next(iter(store.check_accounts), None) or store.add(
        store.check_accounts, CheckAccount(name="Kasse", type="register")
    )
    voucher = store.vouchers.get(voucher_id)
    booking = Booking(-voucher.sumGross, at(day, 12), "FULL_PAYMENT", register, None)
    book(store, voucher, booking)
    return max(t.id for t in store.transactions)


def _facts(preview: dict[str, Any]) -> dict[str, str]:
    return facts(preview)


def _head(path: Path) -> bytes:
    return path.read_bytes()[:2]


def _saved(folder: Path) -> list[Path]:
    return list(folder.iterdir())


def _jobs(fake: FakeSevdesk) -> list[dict[str, str]]:
    return [r.query for r in fake.requests if r.path == "/Export/createDatevCsvZipExportJob"]


async def test_the_dry_run_states_period_counts_and_that_it_is_irreversible(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, facts = year
    _pay(fake, facts.receipts["ER-T-1002"], date(2026, 10, 28))
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    dry = await call(app, NAME, period="2026-10", dryRun=True)
    preview = dry["preview"]
    assert dry["status"] == "dry_run" and preview["irreversible"] is True
    action, warnings = said(preview)
    assert "Festschreiben (enshrining, GoBD)" in warnings[0]
    assert "cannot be undone" in warnings[0]
    assert person_said(preview)[1].startswith("Festschreiben (GoBD): Jede Rechnung")
    assert _facts(preview) == {
        "Period": "2026-10 (2026-10-01 to 2026-10-31, Europe/Berlin)",
        "Invoices and credit notes locked": "0 (already enshrined: 13)",
        "Receipts locked": str(OCTOBER_RECEIPTS),
        "Bank bookings locked": "1",
        "Auto-booked bank transactions, not counted": UNCONFIRMED.format(0),
        "Receipt images in the export": "no",
        "The DATEV file": "a new file in the output folder (SEVDESK_OUTPUT_DIR)",
    }
    assert "enshrine 10 records irreversibly" in action
    assert _jobs(fake) == []


@pytest.mark.usefixtures("storage")
async def test_approved_it_enshrines_delivers_the_file_and_later_changes_are_refused(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, facts = year
    transaction = _pay(fake, facts.receipts["ER-T-1002"], date(2026, 10, 28))
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    message, result = await approved(app, NAME, period="2026-10")
    assert "WARNING: This cannot be undone." in message
    assert f"Receipts locked: {OCTOBER_RECEIPTS}" in message
    data = result["structuredContent"]
    assert data["status"] == "done"
    done = data["result"]
    assert done["enshrined"] == {"documents": 0, "receipts": OCTOBER_RECEIPTS, "bookings": 1}
    saved = Path(done["file"]["saved_to"])
    assert saved.parent == tmp_path and _head(saved) == b"PK"
    (job,) = _jobs(fake)
    assert job["enshrineDocuments"] == "true" and job["scope"] == "EXTCD"
    # read back: the period is locked in the fake
    assert all(v.enshrined is not None for v in fake.store.vouchers)
    assert fake.store.transactions.get(transaction).enshrined is not None
    client = fake_client(fake, load_config({"SEVDESK_ALLOW": ALL}), token=TAX_YEAR_TOKEN)
    unpaid = facts.receipts["ER-T-1004"]
    with pytest.raises(UpstreamError, match="enshrined"):
        await client.send("PUT", f"/Voucher/{unpaid}/resetToDraft", tier=Tier.COMMIT)
    paid = facts.receipts["ER-T-1002"]
    with pytest.raises(UpstreamError, match="enshrined"):
        await client.send("PUT", f"/Voucher/{paid}/resetToOpen", tier=Tier.COMMIT)


async def test_without_the_export_the_same_change_is_allowed() -> None:
    fake, facts = build_tax_year()  # the control: it is the enshrining that refuses it
    client = fake_client(fake, load_config({"SEVDESK_ALLOW": ALL}), token=TAX_YEAR_TOKEN)
    unpaid = facts.receipts["ER-T-1004"]
    await client.send("PUT", f"/Voucher/{unpaid}/resetToDraft", tier=Tier.COMMIT)
    assert fake.store.vouchers.get(unpaid).status == 50


@pytest.mark.usefixtures("storage")
async def test_a_booking_added_after_the_approval_was_asked_voids_it(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, facts = year
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    params: dict[str, Any] = {"name": NAME, "arguments": {"period": "2026-10"}}
    async with open_wire(app) as wire:
        first = (await wire.modern("tools/call", params, caps=FORM))["result"]
        (form,) = first["inputRequests"].values()
        assert "Bank bookings locked: 0" in form["params"]["message"]
        _pay(fake, facts.receipts["ER-T-1004"], date(2026, 10, 30))  # in the period
        again = {**params, "requestState": first["requestState"], "inputResponses": approve()}
        second = (await wire.modern("tools/call", again, caps=FORM))["result"]
    (asked,) = second["inputRequests"].values()  # asked anew, not executed
    message = asked["params"]["message"]
    assert "changed since you were asked" in message and "'Bank bookings locked'" in message
    assert "Bank bookings locked: 1" in message
    assert _jobs(fake) == []
    assert all(v.enshrined is None for v in fake.store.vouchers)


async def test_without_a_place_for_the_file_nothing_is_started_or_asked(
    year: tuple[FakeSevdesk, TaxYearFacts],
) -> None:
    fake, _ = year
    app = _app(fake, {})
    text = await call_error(app, NAME, period="2026-10")
    assert "SEVDESK_OUTPUT_DIR" in text and "Nothing was exported or enshrined" in text
    dry = await call(app, NAME, period="2026-10", dryRun=True)
    assert _facts(dry["preview"])["The DATEV file"].startswith("nowhere")
    assert _jobs(fake) == [] and all(v.enshrined is None for v in fake.store.vouchers)


async def test_a_period_without_anything_to_export_is_refused(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, _ = year
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    text = await call_error(app, NAME, period="2025-03")
    assert "nothing to export or enshrine" in text
    assert _jobs(fake) == []


async def test_the_period_must_be_named(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    app = _app(year[0], {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    assert "period" in await call_error(app, NAME)


async def test_only_offered_with_the_commit_tier(year: tuple[FakeSevdesk, TaxYearFacts]) -> None:
    app = _app(year[0], {"SEVDESK_ALLOW": "write"})
    async with open_wire(app) as wire:
        listed = (await wire.modern("tools/list", {}))["result"]["tools"]
    names = {t["name"] for t in listed}
    assert "sevdesk_export_datev" in names and NAME not in names


async def test_the_enshrining_job_is_a_write_the_gate_refuses_without_the_commit_tier(
    client: SevdeskClient, year: tuple[FakeSevdesk, TaxYearFacts]
) -> None:
    with pytest.raises(WriteRefusedError, match="createDatevCsvZipExportJob"):
        await exports.datev_export(client, parse_period("2026-10"), images=False, enshrine=True)
    assert _jobs(year[0]) == []


@pytest.mark.parametrize(
    ("period", "said"),
    [
        ("2026-12", "2026-12 has not ended yet: it runs until 31.12.2026"),
        ("2026-Q4", "2026-Q4 has not ended yet: it runs until 31.12.2026"),
        ("2026", "2026 has not ended yet: it runs until 31.12.2026"),
        ("2027-01", "2027-01 has not even begun"),
        ("2030", "2030 has not even begun"),
    ],
)
@pytest.mark.parametrize("dry_run", [False, True])
async def test_a_running_or_future_period_is_refused_before_anything_is_read_or_asked(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path, period: str, said: str, dry_run: bool
) -> None:
    fake, _ = year
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    before = len(fake.requests)
    text = await call_error(app, NAME, period=period, dryRun=dry_run)  # an error, no form
    assert text.startswith(said) and "(today is 15.12.2026, Europe/Berlin)" in text
    assert "Nothing was exported or enshrined" in text
    assert "Wait until the period has ended" in text and "sevdesk_export_datev" in text
    assert len(fake.requests) == before  # not even read
    assert _saved(tmp_path) == []
    assert all(v.enshrined is None for v in fake.store.vouchers)


async def test_a_period_ends_with_its_last_day_in_the_books_today(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, _ = year
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    fake.today = date(2026, 10, 31)
    text = await call_error(app, NAME, period="2026-10")
    assert "runs until 31.10.2026 (today is 31.10.2026" in text and "from 01.11.2026" in text
    assert _jobs(fake) == []
    fake.today = date(2026, 11, 1)
    dry = await call(app, NAME, period="2026-10", dryRun=True)
    assert dry["status"] == "dry_run"


@pytest.mark.usefixtures("storage")
async def test_auto_booked_transactions_are_named_but_not_counted_as_locked(
    year: tuple[FakeSevdesk, TaxYearFacts], tmp_path: Path
) -> None:
    fake, facts = year
    booked = _pay(fake, facts.receipts["ER-T-1002"], date(2026, 10, 28))
    auto = _pay(fake, facts.receipts["ER-T-1003"], date(2026, 10, 29))
    fake.store.transactions.get(auto).status = 350  # sevDesk booked it; nobody confirmed it
    app = _app(fake, {"SEVDESK_OUTPUT_DIR": str(tmp_path)})
    message, result = await approved(app, NAME, period="2026-10")
    assert "Bank bookings locked: 1\n" in message
    assert f"Auto-booked bank transactions, not counted: {UNCONFIRMED.format(1)}" in message
    done = result["structuredContent"]["result"]
    assert done["enshrined"]["bookings"] == 1
    # the fake enshrines what the preview counted: the confirmed booking, not the auto-booked
    assert fake.store.transactions.get(booked).enshrined is not None
    assert fake.store.transactions.get(auto).enshrined is None
