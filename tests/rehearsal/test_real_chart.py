"""Receipts in a rehearsal are checked against the real account's chart: the "real" account
(the demo books on SKR04, whose AccountDatev ids differ from the fake's default SKR03 ones)
has its booking accounts and receipt guidance read into the overlay, so a receipt on one of
its accounts is filed in the overlay, and one on an account it lacks is refused as sevDesk
would refuse it, with no write upstream."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
import pytest

from sevdesk_mcp.errors import UpstreamValidationError
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, build_demo_with_facts
from sevdesk_mcp.fake.account_rules import SKR03, SKR04
from sevdesk_mcp.fake.accounts import account_by_id, chart_accounts
from sevdesk_mcp.fake.receipts import as_bookkeeping_1
from sevdesk_mcp.rehearsal.chart import GUIDANCE_PATH, real_accounts
from sevdesk_mcp.rehearsal.guard import Guard
from sevdesk_mcp.rehearsal.tables import CREATED_ID_BASE
from sevdesk_mcp.rehearsal.transport import Rehearsal
from sevdesk_mcp.rehearsal.upstream import Upstream
from sevdesk_mcp.safety.tiers import Tier
from tests.demo_account import DEMO_URL
from tests.rehearsal.helpers import SAVE, CountingProxy, client_on, many, obj, one, ref

pytestmark = pytest.mark.anyio

OFFICE_SKR04 = 16815  # "6815 Bürobedarf" in the fake's SKR04 chart
OFFICE_SKR03 = 3494  # "4930 Bürobedarf" in SKR03: no account of an SKR04 company


def skr04_books() -> FakeSevdesk:
    fake, _ = build_demo_with_facts()
    fake.store.chart = SKR04
    return fake


def receipt(account: int, net: str = "75.62") -> dict[str, Any]:
    return {
        "voucher": {
            "objectName": "Voucher",
            "mapAll": True,
            "voucherDate": "20.11.2026",
            "supplierName": "Bürowelt Hansen KG",
            "description": "BW-77120",
            "status": 100,
            "creditDebit": "C",
            "voucherType": "VOU",
            "taxRule": ref("TaxRule", 9),
            "currency": "EUR",
        },
        "voucherPosSave": [
            {
                "objectName": "VoucherPos",
                "mapAll": True,
                "accountDatev": ref("AccountDatev", account),
                "taxRate": "19",
                "net": True,
                "sumNet": net,
            }
        ],
        "voucherPosDelete": None,
    }


class Run:
    def __init__(self) -> None:
        self.fake = skr04_books()
        self.proxy = CountingProxy(self.fake.transport())
        self.rehearsal = Rehearsal(self.proxy, today=lambda: self.fake.today)  # SKR03 default
        self.client = client_on(self.rehearsal)


def test_the_real_account_ids_are_not_the_overlay_default_ones() -> None:
    assert account_by_id(OFFICE_SKR04, SKR03) is None
    assert account_by_id(OFFICE_SKR03, SKR04) is None


async def test_a_receipt_on_the_real_chart_is_filed_in_the_overlay_only() -> None:
    run = Run()
    revision = run.fake.store.revision
    saved = obj(await run.client.send("POST", SAVE, tier=Tier.COMMIT, json=receipt(OFFICE_SKR04)))
    ident = int(saved["voucher"]["id"])
    assert ident >= CREATED_ID_BASE
    voucher = one(await run.client.get(f"/Voucher/{ident}"))
    assert (voucher["status"], voucher["sumGross"]) == ("100", "89.99")
    (position,) = many(
        await run.client.get(
            "/VoucherPos", {"voucher[id]": ident, "voucher[objectName]": "Voucher"}
        )
    )
    assert position["accountDatev"]["id"] == str(OFFICE_SKR04)
    assert set(run.proxy.methods) == {"GET"} and run.rehearsal.upstream_refused() == 0
    assert run.fake.store.revision == revision and run.fake.store.vouchers.find(ident) is None
    (change,) = run.rehearsal.changes()
    assert (change.object_name, change.object_id) == ("Voucher", ident)
    straight = obj(
        await client_on(skr04_books().transport()).send(
            "POST", SAVE, tier=Tier.COMMIT, json=receipt(OFFICE_SKR04)
        )
    )
    assert straight["voucher"]["sumGross"] == saved["voucher"]["sumGross"]


async def test_an_account_the_real_chart_lacks_is_refused_as_sevdesk_refuses_it() -> None:
    run = Run()
    with pytest.raises(UpstreamValidationError) as straight:
        await client_on(skr04_books().transport()).send(
            "POST", SAVE, tier=Tier.COMMIT, json=receipt(OFFICE_SKR03)
        )
    with pytest.raises(UpstreamValidationError) as rehearsed:
        await run.client.send("POST", SAVE, tier=Tier.COMMIT, json=receipt(OFFICE_SKR03))
    assert str(OFFICE_SKR03) in str(rehearsed.value) and str(OFFICE_SKR03) in str(straight.value)
    assert run.rehearsal.changes() == ()
    assert set(run.proxy.methods) == {"GET"}


async def test_the_real_accounts_are_read_once_per_rehearsal() -> None:
    run = Run()
    for net in ("10.00", "20.00"):
        await run.client.send("POST", SAVE, tier=Tier.COMMIT, json=receipt(OFFICE_SKR04, net))
    reads = [p for m, p in run.proxy.seen if p.endswith(GUIDANCE_PATH)]
    assert len(reads) == 1 and len(run.rehearsal.changes()) == 2


async def test_the_real_chart_is_read_with_its_guidance_as_the_account_holds_it() -> None:
    fake = skr04_books()
    like = httpx.Request("GET", DEMO_URL + "/Invoice", headers={"Authorization": DEMO_TOKEN})
    found = await real_accounts(Upstream(Guard(fake.transport()), like))
    expected = {a.id: a for a in chart_accounts(SKR04) if not a.hidden}
    assert found == expected
    assert found[OFFICE_SKR04].rules and found[OFFICE_SKR04].receipt_types == ("EXPENSE",)


class ShiftedTypes(httpx.AsyncBaseTransport):
    """A real bookkeeping 1.0 account whose AccountingType ids are its own (the fake's + 9000)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if not request.url.path.endswith("/AccountingType"):
            return response
        body = msgspec.json.decode(await response.aread())
        for record in body["objects"]:
            record["id"] = str(int(record["id"]) + SHIFT)
        return httpx.Response(response.status_code, json=body, request=request)


SHIFT = 9000
OFFICE_TYPE = 26  # "Bürobedarf" among the fake's accounting types


def legacy_receipt(accounting_type: int) -> dict[str, Any]:
    body = receipt(0)
    head = body["voucher"]
    del head["taxRule"]
    head["taxType"] = "default"
    (position,) = body["voucherPosSave"]
    del position["accountDatev"]
    position["accountingType"] = ref("AccountingType", accounting_type)
    return body


async def test_a_1_0_receipt_is_checked_against_the_real_accounting_types() -> None:
    fake, _ = build_demo_with_facts()
    as_bookkeeping_1(fake.store)
    proxy = CountingProxy(ShiftedTypes(fake.transport()))
    client = client_on(Rehearsal(proxy, today=lambda: fake.today))
    saved = obj(
        await client.send("POST", SAVE, tier=Tier.COMMIT, json=legacy_receipt(OFFICE_TYPE + SHIFT))
    )
    assert saved["voucher"]["status"] == "100" and saved["voucher"]["sumGross"] == "89.99"
    with pytest.raises(UpstreamValidationError, match=f"accounting type {OFFICE_TYPE},"):
        await client.send("POST", SAVE, tier=Tier.COMMIT, json=legacy_receipt(OFFICE_TYPE))
    assert set(proxy.methods) == {"GET"}
