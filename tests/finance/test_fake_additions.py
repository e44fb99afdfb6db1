"""What the fake gained for the finance tools: legacy (1.0) booking accounts and ``updateAfter``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import pytest

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.wire import Ref, Row
from tests.fake.helpers import api, assert_error, objects
from tests.finance.helpers import at

pytestmark = pytest.mark.anyio


async def test_accounting_types_list_and_by_id(demo: FakeSevdesk) -> None:
    """§3.5: the 1.0 booking accounts legacy positions point at; undocumented now."""
    async with api(demo) as client:
        listed = await objects(client, "/AccountingType", limit=1000)
        (rent,) = await objects(client, "/AccountingType/21")
        assert_error(await client.get("/AccountingType/999"), 404, code=151)
        assert_error(await client.get("/AccountingType/abc"), 404, code=151)
    assert rent in listed
    assert rent == {
        "id": "21",
        "objectName": "AccountingType",
        "additionalInformation": None,
        "name": "Miete",
        "skr03": "4210",
        "skr04": "6310",
        "status": "100",
    }
    assert all(isinstance(a["skr03"], str) and len(a["skr03"]) == 4 for a in listed)


async def test_legacy_positions_carry_accounting_type_and_no_account_datev(
    demo: FakeSevdesk,
) -> None:
    store = demo.store
    voucher = store.vouchers.insert(
        Voucher(voucherDate=at(date(2023, 3, 1), 0), taxType="default", status=1000)
    )
    store.voucher_positions.insert(
        VoucherPos(voucher=voucher.ref(), accountingType=Ref("AccountingType", 26))
    )
    async with api(demo) as client:
        (raw,) = await objects(client, f"/Voucher/{voucher.id}")
        (pos,) = await objects(client, "/VoucherPos", **{"voucher[id]": voucher.id})
        modern = await objects(client, "/VoucherPos", limit=1)
    assert raw["taxType"] == "default" and raw["taxRule"] is None
    assert pos["accountingType"] == {"id": "26", "objectName": "AccountingType"}
    assert pos["accountDatev"] is None
    assert modern[0]["accountingType"] is None and modern[0]["accountDatev"] is not None


@pytest.mark.parametrize("path", ["/Contact", "/Invoice", "/Order", "/Voucher"])
async def test_update_after_takes_unix_seconds_and_is_strict(demo: FakeSevdesk, path: str) -> None:
    """Documented in the spec's filter tables for these four lists; ISO matches nothing (as the
    date filters of Q19, UNVERIFIED for this one)."""
    tables: dict[str, Iterable[Row]] = {
        "/Contact": demo.store.contacts,
        "/Invoice": demo.store.invoices,
        "/Order": demo.store.orders,
        "/Voucher": demo.store.vouchers,
    }
    table = tables[path]
    demo.store.save(next(iter(table)))  # demo contacts all share one stamp
    stamps = sorted(row.update for row in table)
    moment = stamps[len(stamps) // 2]
    async with api(demo) as client:
        extra = {"depth": 1} if path == "/Contact" else {}
        everything = await objects(client, path, limit=1000, **extra)
        after = await objects(
            client, path, limit=1000, updateAfter=int(moment.timestamp()), **extra
        )
        iso = await objects(client, path, limit=1000, updateAfter="2026-11-10", **extra)
        exact = await objects(
            client, path, limit=1000, updateAfter=int(stamps[-1].timestamp()), **extra
        )
    expected = sum(1 for row in table if row.update > moment)
    assert len(after) == expected and 0 < expected < len(everything)
    assert iso == [] and exact == []


async def test_credit_notes_and_transactions_ignore_update_after(demo: FakeSevdesk) -> None:
    """Not documented there, so ignored like every unknown filter (Q12)."""
    async with api(demo) as client:
        for path in ("/CreditNote", "/CheckAccountTransaction"):
            plain = await objects(client, path, limit=1000)
            filtered = await objects(client, path, limit=1000, updateAfter=1893452400)
            assert filtered == plain and plain
