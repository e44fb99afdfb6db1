"""Vouchers, voucher positions and parts."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from sevdesk_mcp.fake.wire import BERLIN
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio


async def test_voucher_filters(demo: FakeSevdesk, facts: DemoFacts) -> None:
    supplier = facts.supplier_ids[0]
    start = int(datetime(2026, 6, 1, tzinfo=BERLIN).timestamp())
    end = int(datetime(2026, 6, 30, tzinfo=BERLIN).timestamp())
    async with api(demo) as client:
        drafts = await objects(client, "/Voucher", status=50)
        revenue = await objects(client, "/Voucher", creditDebit="D")
        rent = await objects(client, "/Voucher", descriptionLike="dm-2026")
        june = await objects(client, "/Voucher", startDate=start, endDate=end)
        iso = await objects(client, "/Voucher", startDate="2026-06-01")
        by_supplier = await objects(client, "/Voucher", **{"contact[id]": supplier})
    assert {v["id"] for v in drafts} == {str(i) for i in facts.voucher_ids_by_status[50]}
    assert revenue and all(v["creditDebit"] == "D" for v in revenue)
    assert len(rent) == 11
    assert june and all(v["voucherDate"].startswith("2026-06") for v in june)
    assert iso == []  # Q19
    assert by_supplier and all(v["supplier"]["id"] == str(supplier) for v in by_supplier)


async def test_embed_voucher_pos_is_ignored(demo: FakeSevdesk) -> None:
    """Q15."""
    async with api(demo) as client:
        plain = await objects(client, "/Voucher", limit=3)
        embedded = await objects(client, "/Voucher", limit=3, embed="voucherPos")
    assert plain == embedded
    assert "voucherPos" not in embedded[0]


async def test_voucher_shape(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q11 (both recurring spellings), Q39 (description is the receipt number), Q40."""
    async with api(demo) as client:
        (voucher,) = await objects(client, f"/Voucher/{facts.voucher_ids_by_status[1000][0]}")
        assert_error(await client.get("/Voucher/1"), 404, code=151)
    assert "recurringIntervall" in voucher and "recurringInterval" in voucher
    assert voucher["currency"] == "EUR"
    assert voucher["description"] == "DM-2026-01"
    assert isinstance(voucher["paidAmount"], int | float)


async def test_voucher_positions_carry_the_account(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q43: the booking account is a ref on each position."""
    ident = facts.reverse_charge_voucher_id
    async with api(demo) as client:
        (voucher,) = await objects(client, f"/Voucher/{ident}")
        positions = await objects(
            client, "/VoucherPos", **{"voucher[id]": ident, "voucher[objectName]": "Voucher"}
        )
    assert voucher["taxRule"] == {"id": "14", "objectName": "TaxRule"}
    assert [p["accountDatev"] for p in positions] == [{"id": "3486", "objectName": "AccountDatev"}]
    assert positions[0]["taxRate"] == "0"
    assert sum(Decimal(p["sumGross"]) for p in positions) == Decimal(voucher["sumGross"])


async def test_parts_and_stock(demo: FakeSevdesk) -> None:
    """Q6: getStock is a numeric string."""
    async with api(demo) as client:
        parts = await objects(client, "/Part")
        exact = await objects(client, "/Part", partNumber="HS-3001")
        named = await objects(client, "/Part", name="eiche")
        (one,) = await objects(client, f"/Part/{exact[0]['id']}")
        stock = await objects(client, f"/Part/{exact[0]['id']}/getStock")
        assert_error(await client.get("/Part/1/getStock"), 404, code=151)
        assert_error(await client.get("/Part/1"), 404, code=151)
    assert len(parts) == len(demo.store.parts)
    assert one == exact[0]
    assert stock == "38"
    assert {p["taxRate"] for p in parts} == {"19", "7"}
    assert len(named) == 2
