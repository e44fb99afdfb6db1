"""The e-invoice tools on the demo books: read and check, suggest, file as a draft, finalize
and pay (a ZUGFeRD PDF end to end); refusals as tool errors; the outgoing preflight."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import jsonschema
import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.voucher_saves import files_of
from tests.documents.commit_helpers import DRAFT_INVOICE, REGISTER, approved
from tests.einvoice.samples import SHARED, need_samples
from tests.receipts.helpers import FINALIZE, newest_voucher, receipts_app
from tests.wire import open_wire
from tests.writes.tool_helpers import call, error_text

pytestmark = pytest.mark.anyio
TAXI = "ferd233_BASIC_Taxifahrt.pdf"
KOSIT = "kosit_01.01a-INVOICE_ubl.xml"
BROKEN = "derived_cen_CII_example3_BR-CO-10.xml"


def folder(tmp_path: Path) -> Path:
    """:returns: a receipt folder holding copies of the shared samples used here."""
    need_samples()
    target = tmp_path / "einvoices"
    target.mkdir()
    for name in (TAXI, KOSIT, BROKEN):
        shutil.copy(SHARED / name, target / name)
    (target / "bomb.xml").write_bytes(
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><r>&b;</r>'
    )
    return target


async def test_read_reports_values_findings_and_fences_text(tmp_path: Path) -> None:
    app = receipts_app(build_demo(), folder(tmp_path))
    result = (await call(app, "sevdesk_read_einvoice", path=KOSIT))["structuredContent"]
    assert (result["profile"], result["valid"], result["xrechnung_valid"]) == (
        "XRECHNUNG",
        True,
        True,
    )
    assert result["invoice"]["seller"]["name"] == "⟦[Seller name]⟧"
    assert result["invoice"]["totals"]["gross"] == "336.9"
    broken = (await call(app, "sevdesk_read_einvoice", path=BROKEN))["structuredContent"]
    assert broken["valid"] is False
    assert {f["rule"] for f in broken["findings"]} == {"BR-CO-10", "BR-S-08"}
    assert all(f["xpath"].startswith("/rsm:CrossIndustryInvoice") for f in broken["findings"])


async def test_structured_output_matches_the_listed_schema(tmp_path: Path) -> None:
    app = receipts_app(build_demo(), folder(tmp_path), SEVDESK_OUTPUT_SCHEMAS="on")
    async with open_wire(app) as wire:
        listed = (await wire.modern("tools/list"))["result"]["tools"]
    schemas = {t["name"]: t["outputSchema"] for t in listed if "outputSchema" in t}  # reads
    for name in ("sevdesk_read_einvoice", "sevdesk_suggest_einvoice_receipt"):
        result = await call(app, name, path=TAXI)
        jsonschema.validate(result["structuredContent"], schemas[name])


async def test_an_unsafe_file_is_refused_naming_the_reason(tmp_path: Path) -> None:
    app = receipts_app(build_demo(), folder(tmp_path))
    text = error_text(await call(app, "sevdesk_read_einvoice", path="bomb.xml"))
    assert "DTD" in text and "aaaa" not in text


async def test_suggest_names_the_tax_case_and_accounts(tmp_path: Path) -> None:
    app = receipts_app(build_demo(), folder(tmp_path))
    result = (await call(app, "sevdesk_suggest_einvoice_receipt", path=TAXI))["structuredContent"]
    assert result["tax_rule_id"] == 9
    assert "domestic" in result["tax_case"]
    (position,) = result["positions"]
    assert (position["tax_rate"], position["net"], position["gross"]) == ("7", "16.90", "18.08")
    assert "NEW supplier" in result["supplier"]


async def test_an_invalid_einvoice_is_not_filed(tmp_path: Path) -> None:
    app = receipts_app(build_demo(), folder(tmp_path))
    text = error_text(await call(app, "sevdesk_file_einvoice", path=BROKEN, dryRun=True))
    assert "BR-CO-10" in text and "allow_invalid" in text


async def test_a_zugferd_invoice_goes_from_pdf_to_paid(tmp_path: Path) -> None:
    fake = build_demo()
    app = receipts_app(fake, folder(tmp_path))
    checked = (await call(app, "sevdesk_read_einvoice", path=TAXI))["structuredContent"]
    assert checked["valid"] is True
    suggested = await call(app, "sevdesk_suggest_einvoice_receipt", path=TAXI)
    account = suggested["structuredContent"]["positions"][0].get("account_number") or "4930"
    filed = await call(app, "sevdesk_file_einvoice", path=TAXI, account_numbers=[account])
    done = filed["structuredContent"]
    assert done["status"] == "done", filed
    voucher = newest_voucher(fake)
    assert (voucher.status, voucher.sumGross) == (50, Decimal("18.08"))
    assert voucher.document is not None
    assert files_of(fake.store).documents[voucher.document.id].media_type == "application/pdf"
    _, finalized = await approved(app, FINALIZE, voucher_id=voucher.id)
    assert finalized["structuredContent"]["result"]["status"] == "offen (open)", finalized
    _, booked = await approved(
        app,
        "sevdesk_book_payment",
        kind="voucher",
        document_id=voucher.id,
        amount="18.08",
        date="2026-10-20",
        check_account_id=REGISTER,  # a taxi ride paid in cash
    )
    assert "structuredContent" in booked, booked
    assert booked["structuredContent"]["status"] == "done", booked
    assert voucher.status == 1000


async def test_preflight_checks_a_draft_invoice(tmp_path: Path) -> None:
    fake = build_demo()
    app = receipts_app(fake, None)
    result = (await call(app, "sevdesk_preflight_einvoice", invoice_id=DRAFT_INVOICE))[
        "structuredContent"
    ]
    rules = {f["rule"] for f in result["findings"]}
    assert "BR-DE-15" in rules  # the demo contacts have no Leitweg-ID
    assert result["ready"] is False
    assert "settings" in result["not_checked"]
