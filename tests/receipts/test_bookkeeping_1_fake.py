"""The fake's bookkeeping 1.0 mode: the demo books turned 1.0 (``as_bookkeeping_1``) and
``saveVoucher`` with ``taxType`` and ``accountingType``, validated as spec/DEVIATIONS.md D-086
and D-087 say."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.receipts import as_bookkeeping_1
from sevdesk_mcp.fake.wire import Ref
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio
SAVE = "/Voucher/Factory/saveVoucher"


def _legacy() -> FakeSevdesk:
    fake = build_demo()
    as_bookkeeping_1(fake.store)
    return fake


def _position(rate: str = "19", accounting_type: int | None = 26, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"objectName": "VoucherPos", "mapAll": True, "taxRate": rate}
    if accounting_type is not None:
        row["accountingType"] = {"id": accounting_type, "objectName": "AccountingType"}
    return {**row, "net": True, "sumNet": "10.00", **extra}


def _save(*positions: dict[str, Any], status: int = 50, **head: Any) -> dict[str, Any]:
    voucher = {
        "objectName": "Voucher",
        "mapAll": True,
        "voucherDate": "20.10.2026",
        "supplierName": "Versandhaus Mercatura GmbH",
        "status": status,
        "creditDebit": "C",
        "voucherType": "VOU",
        "taxType": "default",
        **head,
    }
    return {"voucher": voucher, "voucherPosSave": list(positions), "voucherPosDelete": None}


async def test_the_demo_turned_1_0_reports_1_0_and_keeps_1_0_receipts() -> None:
    fake = _legacy()
    async with api(fake) as client:
        assert (await objects(client, "/Tools/bookkeepingSystemVersion")) == {"version": "1.0"}
    expense = fake.store.vouchers.get(800026)
    assert (expense.taxType, expense.taxRule) == ("default", None)
    rent = [
        p for p in fake.store.voucher_positions if p.accountingType == Ref("AccountingType", 21)
    ]
    assert rent and all(p.accountDatev is None for p in rent)


async def test_a_1_0_save_takes_tax_type_and_accounting_type_and_drops_the_2_0_fields() -> None:
    fake = _legacy()
    position = _position(accountDatev={"id": 3494, "objectName": "AccountDatev"})
    async with api(fake) as client:
        response = await client.post(
            SAVE, json=_save(position, taxRule={"id": 9, "objectName": "TaxRule"})
        )
    assert response.status_code == 201, response.text
    saved = response.json()["objects"]
    assert saved["voucher"]["taxType"] == "default" and saved["voucher"]["taxRule"] is None
    (pos,) = saved["voucherPos"]
    assert pos["accountingType"] == {"id": "26", "objectName": "AccountingType"}
    assert pos["accountDatev"] is None
    assert (pos["sumTax"], pos["sumGross"]) == ("1.9", "11.9")


@pytest.mark.parametrize(
    ("save", "said"),
    [
        (_save(_position(), taxType=None), "The field 'taxType' is required"),
        (_save(_position(), taxType="vat"), "taxType must be one of default, eu, noteu"),
        (_save(_position(accounting_type=None)), "accountingType expected array"),
    ],
)
async def test_a_1_0_save_is_400_without_its_fields(save: dict[str, Any], said: str) -> None:
    fake = _legacy()
    async with api(fake) as client:
        error = assert_error(await client.post(SAVE, json=save), 400)
    assert said in error["message"]


@pytest.mark.parametrize(
    ("save", "status"),
    [
        (_save(_position(accounting_type=999)), 50),  # a draft takes anything
        (_save(_position(rate="19"), taxType="custom", status=100), 100),  # a tax set decides
        (_save(_position(rate="0"), taxType="noteu", status=100), 100),
    ],
)
async def test_a_1_0_save_that_passes(save: dict[str, Any], status: int) -> None:
    fake = _legacy()
    async with api(fake) as client:
        response = await client.post(SAVE, json=save)
    assert response.status_code == 201, response.text
    assert response.json()["objects"]["voucher"]["status"] == str(status)


@pytest.mark.parametrize(
    "save",
    [
        _save(_position(accounting_type=999), status=100),
        _save(_position(rate="19"), taxType="noteu", status=100),
        _save(_position(rate="7"), taxType="ss", status=100),
    ],
)
async def test_a_1_0_finalize_is_422_for_what_1_0_does_not_allow(save: dict[str, Any]) -> None:
    fake = _legacy()
    async with api(fake) as client:
        error = assert_error(await client.post(SAVE, json=save), 422)
    assert "is not allowed" in error["message"]
    assert not [v for v in fake.store.vouchers if v.sumNet == Decimal("10.00")]
