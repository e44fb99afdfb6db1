"""The fake's receipt writes (``fake/voucher_saves.py``): upload, saveVoucher create and update
with the draft-only rule, the total from the call's positions, DELETE, and the guidance check
of a finalize. Each quirk is in spec/DEVIATIONS.md."""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk
from tests.fake.helpers import api, assert_error

pytestmark = pytest.mark.anyio
PDF = b"%PDF-1.4\n% receipt\n%%EOF\n"
SAVE = "/Voucher/Factory/saveVoucher"
DRAFT = 800031  # FB-4410, a draft of the demo books
OPEN = 800026  # SK-26-0711, open


def _position(net: str, pos_id: int | None = None, account: int = 3494) -> dict[str, Any]:
    row: dict[str, Any] = {
        "objectName": "VoucherPos",
        "mapAll": True,
        "accountDatev": {"id": account, "objectName": "AccountDatev"},
        "taxRate": "19",
        "net": True,
        "sumNet": net,
    }
    if pos_id is not None:
        row["id"] = pos_id
    return row


def _save(*positions: dict[str, Any], status: int = 50, **head: Any) -> dict[str, Any]:
    voucher = {
        "objectName": "Voucher",
        "mapAll": True,
        "voucherDate": "20.10.2026",
        "supplierName": "Versandhaus Mercatura GmbH",
        "description": "302-5521907",
        "status": status,
        "creditDebit": "C",
        "voucherType": "VOU",
        "taxRule": {"id": 9, "objectName": "TaxRule"},
        "currency": "EUR",
        **head,
    }
    return {"voucher": voucher, "voucherPosSave": list(positions), "voucherPosDelete": None}


async def test_upload_answers_201_with_a_temp_filename_and_the_content_hash(
    demo: FakeSevdesk,
) -> None:
    async with api(demo) as client:
        response = await client.post(
            "/Voucher/Factory/uploadTempFile", files={"file": ("r.pdf", PDF, "application/pdf")}
        )
        assert response.status_code == 201
        answer = response.json()["objects"]
        assert answer["originMimeType"] == "application/pdf"
        assert answer["contentHash"] == hashlib.sha256(PDF).hexdigest()
        assert answer["filename"].endswith(".pdf")
        wrong = await client.post(
            "/Voucher/Factory/uploadTempFile", files={"file": ("r.pdf", b"MZ\x90", "x/y")}
        )
        assert_error(wrong, 400)
        saved = await client.post(
            SAVE, json={**_save(_position("10")), "filename": answer["filename"]}
        )
        assert saved.status_code == 201
        assert saved.json()["objects"]["voucher"]["document"]["objectName"] == "Document"


async def test_save_creates_a_draft_and_sums_its_positions(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        response = await client.post(SAVE, json=_save(_position("75.62")))
    assert response.status_code == 201
    voucher = response.json()["objects"]["voucher"]
    assert (voucher["status"], voucher["sumGross"], voucher["sumTax"]) == ("50", "89.99", "14.37")


async def test_an_update_of_a_non_draft_is_400_code_90400(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        response = await client.post(SAVE, json=_save(_position("10"), id=OPEN))
    assert_error(response, 400, 90400)


async def test_the_total_comes_from_the_positions_of_the_call_only(demo: FakeSevdesk) -> None:
    voucher = demo.store.vouchers.get(DRAFT)
    old = demo.store.voucher_positions_of(voucher)
    async with api(demo) as client:
        response = await client.post(SAVE, json=_save(_position("100"), id=DRAFT))
    assert response.status_code == 201
    assert voucher.sumNet == Decimal("100")  # the old position stays stored, uncounted
    assert len(demo.store.voucher_positions_of(voucher)) == len(old) + 1


async def test_a_finalize_with_a_combination_the_guidance_refuses_is_422(
    demo: FakeSevdesk,
) -> None:
    async with api(demo) as client:
        draft_ok = await client.post(SAVE, json=_save(_position("10", account=4340)))
        assert draft_ok.status_code == 201  # a draft takes any combination
        refused = await client.post(SAVE, json=_save(_position("10", account=4340), status=100))
        assert_error(refused, 422)
        fine = await client.post(SAVE, json=_save(_position("10"), status=100))
        assert fine.json()["objects"]["voucher"]["status"] == "100"


async def test_a_bare_integer_in_voucher_pos_delete_is_400(demo: FakeSevdesk) -> None:
    body = {**_save(_position("10"), id=DRAFT), "voucherPosDelete": [810001]}
    async with api(demo) as client:
        response = await client.post(SAVE, json=body)
    assert_error(response, 400)
    assert "expected array with 'id' and 'objectName'" in response.json()["error"]["message"]


async def test_delete_takes_drafts_only(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        assert_error(await client.delete(f"/Voucher/{OPEN}"), 409, 159)
        gone = await client.delete(f"/Voucher/{DRAFT}")
        assert gone.json() == {"objects": [None]}
        assert_error(await client.get(f"/Voucher/{DRAFT}"), 404, 151)
