"""Demo mode, end to end: a supplier invoice PDF from the receipt folder is uploaded, drafted
with guidance-checked positions, approved and finalized, then booked against an unmatched bank
transaction; the books show it."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.voucher_saves import files_of
from tests.documents.commit_helpers import approved, facts
from tests.receipts.helpers import (
    CREATE,
    FINALIZE,
    MERCATURA,
    MERCATURA_PDF,
    UPLOAD,
    book_mercatura,
    newest_voucher,
    receipt_folder,
    receipts_app,
)
from tests.writes.tool_helpers import call

pytestmark = pytest.mark.anyio

POSITION = "1 | 4930 ⟦Bürobedarf⟧ | 19 % | 75.62 EUR | 14.37 EUR | 89.99 EUR |"


async def _open_payables(app: object) -> Decimal:
    result = await call(app, "sevdesk_search_vouchers", status="open", kind="expense")  # type: ignore[arg-type]
    totals = result["structuredContent"]["open_totals"]
    return sum((Decimal(t["amount"]) for t in totals), Decimal(0))


async def test_a_supplier_invoice_goes_from_pdf_to_paid(tmp_path: Path) -> None:
    fake = build_demo()
    app = receipts_app(fake, receipt_folder(tmp_path))
    (tx,) = [t for t in fake.store.transactions if t.amount == Decimal("-89.99")]
    assert tx.status == 100
    payables_before = await _open_payables(app)

    uploaded = await call(app, UPLOAD, path=MERCATURA_PDF)
    done = uploaded["structuredContent"]
    assert done["status"] == "done", uploaded
    filename = done["result"]["filename"]
    assert done["result"]["media_type"] == "application/pdf"
    assert facts(done["preview"])["SHA-256"] == done["result"]["sha256"]

    drafted = await call(app, CREATE, **MERCATURA, file=filename)
    assert drafted["structuredContent"]["status"] == "done", drafted
    shown = facts(drafted["structuredContent"]["preview"])
    assert "NEW supplier" in shown["Supplier"]
    assert POSITION in shown["Positions"]
    voucher = newest_voucher(fake)
    assert (voucher.status, voucher.sumGross) == (50, Decimal("89.99"))
    assert voucher.document is not None
    assert files_of(fake.store).documents[voucher.document.id].media_type == "application/pdf"

    message, finalized = await approved(app, FINALIZE, voucher_id=voucher.id)
    assert "cannot be undone" in message
    assert finalized["structuredContent"]["result"]["status"] == "offen (open)", finalized
    assert voucher.status == 100
    assert await _open_payables(app) == payables_before + Decimal("89.99")

    await book_mercatura(app, voucher.id, tx.id)
    assert voucher.status == 1000
    assert voucher.paidAmount == Decimal("89.99")
    assert tx.status == 400
    assert await _open_payables(app) == payables_before
