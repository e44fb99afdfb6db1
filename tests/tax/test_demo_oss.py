"""The demo's One-Stop-Shop sale: RE-1041 to Katharina Hofer in Bregenz, one bench at 690.00 net
under tax rule 18 at the Austrian 20 % (138.00 VAT, 828.00 gross), delivered 2026-11-23."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import build_demo
from tests.finance.helpers import app_for, call

pytestmark = pytest.mark.anyio


async def test_the_oss_figures_of_the_fourth_quarter_show_austria_at_20_percent() -> None:
    fake = build_demo()
    data = await call(app_for(fake), "sevdesk_oss_figures", period="2026-Q4")
    (line,) = data["lines"]
    assert (line["country"], line["rate"]) == ("AT", "20.00")
    assert (line["net"], line["tax"]) == ("690.00", "138.00")
    (source,) = line["sources"]
    assert source["number"] == "⟦RE-1041⟧"
    assert data["total_tax"] == "138.00" and data["without_country"] == []


async def test_the_third_quarter_has_no_oss_sale() -> None:
    data = await call(app_for(build_demo()), "sevdesk_oss_figures", period="2026-Q3")
    assert data["lines"] == [] and data["total_tax"] == "0.00"
