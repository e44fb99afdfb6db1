"""The demo receipts folder (``fake/demo_receipts.py``) and the issue's demo scenario as a user
runs it in demo mode: a supplier invoice PDF from the folder is uploaded, drafted with
guidance-checked positions, approved and finalized, then booked against the unmatched bank
transaction that paid it; the books show it (receipt paid, transaction booked, open payables
down)."""

from __future__ import annotations

import os
import stat
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.domain.einvoice.check import check
from sevdesk_mcp.domain.einvoice.read import read_bytes
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.demo_bank import UNMATCHED
from sevdesk_mcp.fake.demo_receipts import (
    EINVOICE,
    RECEIPTS,
    DemoReceipt,
    receipt_bytes,
    write_demo_receipts,
)
from sevdesk_mcp.mcp.app import McpApp
from tests.demo_account import demo_app
from tests.documents.commit_helpers import approved, facts
from tests.receipts.helpers import CREATE, FINALIZE, SUGGEST, UPLOAD, newest_voucher
from tests.writes.tool_helpers import call

pytestmark = pytest.mark.anyio
MERCATURA = RECEIPTS[0]

POSITION = "1 | 4930 ⟦Bürobedarf⟧ | 19 % | 75.62 EUR | 14.37 EUR | 89.99 EUR |"


def _draft(receipt: DemoReceipt) -> dict[str, Any]:
    return {
        "date": receipt.day,
        "supplier_name": receipt.supplier,
        "receipt_number": receipt.number,
        "positions": [
            {
                "account_number": receipt.account,
                "tax_rate": receipt.tax_rate,
                "net": str(receipt.net),
                "gross": str(receipt.gross),
                "text": f"Rechnung {receipt.number}",
            }
        ],
    }


def _app(folder: Path) -> tuple[McpApp, Any]:
    fake = build_demo()
    env = {"SEVDESK_FILE_DIRS": str(folder), "SEVDESK_ALLOW": "write,commit"}
    return demo_app(env, fake), fake


async def _open_payables(app: McpApp) -> Decimal:
    result = await call(app, "sevdesk_search_vouchers", status="open", kind="expense")
    totals = result["structuredContent"]["open_totals"]
    return sum((Decimal(t["amount"]) for t in totals), Decimal(0))


def test_the_folder_holds_every_receipt_once_private_and_deterministic(tmp_path: Path) -> None:
    folder = write_demo_receipts(tmp_path / "demo-belege")
    assert folder == Path(os.path.realpath(tmp_path / "demo-belege"))
    assert sorted(p.name for p in folder.iterdir()) == sorted(r.filename for r in RECEIPTS)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for receipt in RECEIPTS:
        path = folder / receipt.filename
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert path.read_bytes() == receipt_bytes(receipt)
        assert path.read_bytes().startswith(b"%PDF-1.")
    assert write_demo_receipts(folder) == folder  # the same bytes again: left alone
    (folder / MERCATURA.filename).write_bytes(b"%PDF-1.4\n%%EOF\n")
    with pytest.raises(FileExistsError, match="never overwrite"):
        write_demo_receipts(folder)


def test_the_paid_receipts_have_their_unmatched_transaction_in_the_demo_books() -> None:
    amounts = [u.amount for u in UNMATCHED]
    paid = [r for r in RECEIPTS if r.paid_by is not None]
    assert len(paid) == 3
    for receipt in paid:
        assert amounts.count(receipt.paid_by) == 1, receipt.filename  # type: ignore[arg-type]
        assert receipt.paid_by == -receipt.gross


def test_the_e_invoice_is_a_valid_zugferd_pdf_of_its_receipt() -> None:
    read = read_bytes(receipt_bytes(EINVOICE))
    assert (read.container, read.attachment) == ("pdf", "factur-x.xml")
    assert check(read.invoice).valid
    assert read.invoice.number == EINVOICE.number


@pytest.mark.parametrize("receipt", RECEIPTS, ids=lambda r: r.filename)
async def test_every_demo_receipt_uploads_and_drafts_cleanly(
    tmp_path: Path, receipt: DemoReceipt
) -> None:
    app, fake = _app(write_demo_receipts(tmp_path / "belege"))
    uploaded = (await call(app, UPLOAD, path=receipt.filename))["structuredContent"]
    assert uploaded["status"] == "done", uploaded
    arguments = {**_draft(receipt), "file": uploaded["result"]["filename"]}
    drafted = (await call(app, CREATE, **arguments))["structuredContent"]
    assert drafted["status"] == "done", drafted
    assert newest_voucher(fake).sumGross == receipt.gross


async def test_demo_mode_files_a_supplier_invoice_from_pdf_to_paid(tmp_path: Path) -> None:
    app, fake = _app(write_demo_receipts(tmp_path / "belege"))
    payables_before = await _open_payables(app)
    suggested = await call(app, SUGGEST, description="Bürobedarf", tax_rate=19)
    assert MERCATURA.account in str(suggested["structuredContent"])

    uploaded = (await call(app, UPLOAD, path=MERCATURA.filename))["structuredContent"]
    assert uploaded["status"] == "done", uploaded
    sha = uploaded["result"]["sha256"]
    file = uploaded["result"]["filename"]
    drafted = await call(app, CREATE, **_draft(MERCATURA), file=file, file_sha256=sha)
    assert drafted["structuredContent"]["status"] == "done", drafted
    positions = facts(drafted["structuredContent"]["preview"])["Positions"]
    assert POSITION in positions
    voucher = newest_voucher(fake)

    message, finalized = await approved(app, FINALIZE, voucher_id=voucher.id)
    assert sha in message and MERCATURA.filename in message
    assert finalized["structuredContent"]["status"] == "done", finalized
    assert await _open_payables(app) == payables_before + MERCATURA.gross

    found = await call(app, "sevdesk_search_transactions", state="unmatched", purpose="302-5521907")
    (tx,) = found["structuredContent"]["transactions"]
    assert Decimal(tx["amount"]["amount"]) == MERCATURA.paid_by
    _, booked = await approved(
        app,
        "sevdesk_book_payment",
        kind="voucher",
        document_id=voucher.id,
        amount=str(MERCATURA.gross),
        date=tx["value_date"],
        check_account_id=tx["account_id"],
        transaction_id=tx["id"],
    )
    assert booked["structuredContent"]["status"] == "done", booked
    assert (voucher.status, voucher.paidAmount) == (1000, MERCATURA.gross)
    assert fake.store.transactions.get(tx["id"]).status == 400
    assert await _open_payables(app) == payables_before
    after = await call(app, "sevdesk_search_transactions", state="unmatched", purpose="302-5521907")
    assert after["structuredContent"]["transactions"] == []
