"""The receipt tools on the demo books, with a folder of receipt files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Final

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.receipts import Voucher
from sevdesk_mcp.mcp.app import McpApp
from tests.documents.commit_helpers import ONLINE, approved, commit_app

FIXTURES: Final = Path(__file__).parents[2] / "fixtures" / "receipts"
MERCATURA_PDF: Final = "mercatura-302-5521907.pdf"
UPLOAD = "sevdesk_upload_receipt"
CREATE = "sevdesk_create_receipt_draft"
UPDATE = "sevdesk_update_receipt_draft"
DELETE = "sevdesk_delete_receipt_draft"
FINALIZE = "sevdesk_finalize_receipt"
SUGGEST = "sevdesk_suggest_booking_account"
MERCATURA: Final[dict[str, Any]] = {
    "date": "2026-10-20",
    "supplier_name": "Versandhaus Mercatura GmbH",
    "receipt_number": "302-5521907",
    "tax_rule_id": 9,
    "positions": [
        {
            "account_number": "4930",
            "tax_rate": 19,
            "net": "75.62",
            "gross": "89.99",
            "text": "Ordner, Druckerpapier, Toner",
        }
    ],
}


def receipt_folder(tmp_path: Path) -> Path:
    """:returns: a folder holding copies of the project's receipt fixtures."""
    folder = tmp_path / "belege"
    folder.mkdir()
    for item in FIXTURES.iterdir():
        shutil.copy(item, folder / item.name)
    return folder


def receipts_app(fake: FakeSevdesk, folder: Path | None, **env: str) -> McpApp:
    """:returns: the server with every tier on ``fake``, reading receipts from ``folder``."""
    files = {"SEVDESK_FILE_DIRS": str(folder)} if folder is not None else {}
    return commit_app(fake, {**files, **env})


def newest_voucher(fake: FakeSevdesk) -> Voucher:
    """:returns: the receipt created last."""
    return max(fake.store.vouchers, key=lambda v: v.id)


async def book_mercatura(app: McpApp, voucher_id: int, transaction_id: int) -> dict[str, Any]:
    """Book the Mercatura receipt (89.99) against the demo's unmatched card payment and
    approve it; the booking must be done.

    :returns: the tool call's final result.
    """
    _, booked = await approved(
        app,
        "sevdesk_book_payment",
        kind="voucher",
        document_id=voucher_id,
        amount="89.99",
        date="2026-10-20",
        check_account_id=ONLINE,
        transaction_id=transaction_id,
    )
    assert booked["structuredContent"]["status"] == "done", booked
    return booked
