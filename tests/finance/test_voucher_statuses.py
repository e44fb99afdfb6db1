"""sevdesk_search_vouchers by several statuses: the demo has four open receipts (800026,
800028, 800029, 800030) and three drafts (800031-800033)."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import build_demo
from tests.finance.helpers import app_for, call, call_error, requests_to

pytestmark = pytest.mark.anyio
SEARCH = "sevdesk_search_vouchers"


async def test_drafts_and_open_receipts_in_one_search() -> None:
    fake = build_demo()
    data = await call(app_for(fake), SEARCH, statuses=["draft", "open"], limit=50)
    found = sorted((v["id"], v["status"]) for v in data["vouchers"])
    assert found == [
        (800026, "open"),
        (800028, "open"),
        (800029, "open"),
        (800030, "open"),
        (800031, "draft"),
        (800032, "draft"),
        (800033, "draft"),
    ]
    assert all("status" not in q for q in requests_to(fake, "/Voucher"))  # one status only


async def test_one_status_in_the_list_is_sent_to_sevdesk() -> None:
    fake = build_demo()
    data = await call(app_for(fake), SEARCH, statuses=["draft"])
    assert sorted(v["id"] for v in data["vouchers"]) == [800031, 800032, 800033]
    assert [q.get("status") for q in requests_to(fake, "/Voucher")] == ["50"]


async def test_status_and_statuses_together_are_refused() -> None:
    text = await call_error(app_for(build_demo()), SEARCH, status="paid", statuses=["open"])
    assert "Give status or statuses, not both" in text
