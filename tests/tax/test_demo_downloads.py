"""In demo mode a DATEV download reaches the demo books' export storage, never the network."""

from __future__ import annotations

import httpx
import pytest

from sevdesk_mcp.cli import demo
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake.exports import STORAGE_HOST
from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT

pytestmark = pytest.mark.anyio


async def test_demo_mode_serves_export_files_from_the_demo_books() -> None:
    token = FILE_TRANSPORT.set(None)
    try:
        demo.demo_account(load_config({}))
        transport = FILE_TRANSPORT.get()
        assert transport is not None
        request = httpx.Request("GET", f"https://{STORAGE_HOST}/no-such-export.zip")
        answer = await transport.handle_async_request(request)
    finally:
        FILE_TRANSPORT.reset(token)
    assert answer.status_code == 404 and answer.content == b"NoSuchKey"
