"""A PDF read over HTTP while the grant's transfer records are full still answers (review
finding of issue 23): the PDF stays a resource, the note says why there is no download page,
and the refusal names the limit that was reached."""

from __future__ import annotations

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.safety.transfers import CALLER, Caller, Limits, MemoryTransferStore, Owner
from sevdesk_mcp.server import ServerFactory
from tests.demo_account import DEMO_URL, fake_client
from tests.finance.helpers import call

pytestmark = pytest.mark.anyio


async def test_a_full_grant_still_gets_its_pdf_without_a_download_page() -> None:
    fake = build_demo()
    config = load_config({"SEVDESK_API_URL": DEMO_URL})
    account = AccountContext(config=config, client=fake_client(fake, config), principal="grant-1")
    app = ServerFactory(config).build(account)
    store = MemoryTransferStore(Limits(max_records_per_grant=1))
    token = CALLER.set(Caller(store, Owner("grant-1", "account-1"), "https://books.example"))
    try:
        first = await call(app, "sevdesk_document_pdf", document_id=700037)
        second = await call(app, "sevdesk_document_pdf", document_id=700037)
    finally:
        CALLER.reset(token)
    assert first["download_page"].startswith("https://books.example/download?id=")
    assert "download_page" not in second and second["resource_uri"] == first["resource_uri"]
    assert "This connection (grant) already holds 1 files" in second["note"]
    assert "its limit of 1" in second["note"]
