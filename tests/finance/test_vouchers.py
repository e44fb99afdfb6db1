"""The vouchers toolset against the demo company, through the real dispatcher."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo_with_facts
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.wire import Ref, to_wire
from tests.finance.helpers import app_for, at, call, call_error, requests_to

pytestmark = pytest.mark.anyio

OPEN_STATUSES = (100, 150, 750)


def _money(amount: Decimal | str | int) -> dict[str, str]:
    return {"amount": str(Decimal(amount).quantize(Decimal("0.01"))), "currency": "EUR"}


async def test_search_lists_every_receipt_newest_first_with_exact_totals() -> None:
    fake, _ = build_demo_with_facts()
    data = await call(app_for(fake), "sevdesk_search_vouchers", limit=200)
    store_vouchers = list(fake.store.vouchers)
    assert data["total_matches"] == len(data["vouchers"]) == len(store_vouchers)
    assert data["gross_totals"] == [_money(sum(v.sumGross for v in store_vouchers))]
    open_sum = sum(v.sumGross - v.paidAmount for v in store_vouchers if v.status in OPEN_STATUSES)
    assert data["open_totals"] == [_money(open_sum)]
    days = [v["date"] for v in data["vouchers"]]
    assert days == sorted(days, reverse=True)
    assert data.get("note") is None
    assert all(v["receipt_number"].startswith("⟦") for v in data["vouchers"])


async def test_search_by_status_kind_supplier_number_and_dates() -> None:
    fake, facts = build_demo_with_facts()
    app = app_for(fake)
    unpaid = await call(app, "sevdesk_search_vouchers", status="open", kind="expense")
    expected = [
        i for i in facts.voucher_ids_by_status[100] if fake.store.vouchers.get(i).creditDebit == "C"
    ]
    assert sorted(v["id"] for v in unpaid["vouchers"]) == sorted(expected)
    assert all(v["open"] == v["gross"] and v["status"] == "open" for v in unpaid["vouchers"])
    rent = await call(app, "sevdesk_search_vouchers", supplier="gewerbehof", limit=200)
    assert rent["total_matches"] == 11
    march = await call(app, "sevdesk_search_vouchers", date_from="2026-03-01", date_to="2026-03-31")
    assert {v["date"][:7] for v in march["vouchers"]} == {"2026-03"}
    assert march["total_matches"] == 3  # rent, CAD licence, fittings
    number = await call(app, "sevdesk_search_vouchers", receipt_number="sk-26")
    assert {v["receipt_number"] for v in number["vouchers"]} == {
        "⟦SK-26-0142⟧",
        "⟦SK-26-0388⟧",
        "⟦SK-26-0711⟧",
    }
    query = requests_to(fake, "/Voucher")[-1]
    assert query["descriptionLike"] == "sk-26" and query["limit"] == "1000"


async def test_credit_debit_c_is_expense_and_d_is_revenue() -> None:
    """§3.2: C = expense, D = revenue (some clients have it reversed)."""
    fake, _ = build_demo_with_facts()
    app = app_for(fake)
    revenue = await call(app, "sevdesk_search_vouchers", kind="revenue", limit=200)
    expense = await call(app, "sevdesk_search_vouchers", kind="expense", limit=200)
    d_ids = {v.id for v in fake.store.vouchers if v.creditDebit == "D"}
    assert {v["id"] for v in revenue["vouchers"]} == d_ids and len(d_ids) == 3
    assert {v["kind"] for v in revenue["vouchers"]} == {"revenue"}
    assert {v["kind"] for v in expense["vouchers"]} == {"expense"}
    assert expense["total_matches"] + revenue["total_matches"] == len(fake.store.vouchers)
    sent = [q.get("creditDebit") for q in requests_to(fake, "/Voucher")]
    assert sent == ["D", "C"]


async def test_date_filters_go_out_as_berlin_unix_seconds() -> None:
    """Q19: ISO dates would give an empty list; the day starts at Berlin midnight."""
    fake, _ = build_demo_with_facts()
    await call(app_for(fake), "sevdesk_search_vouchers", date_from="2026-07-01")
    query = requests_to(fake, "/Voucher")[-1]
    assert query["startDate"] == str(int(at(date(2026, 7, 1), 0).timestamp()) - 1)
    assert query["startDate"] == "1782856799"  # 2026-06-30T21:59:59Z: "bigger than" keeps midnight


async def test_get_voucher_positions_add_up_and_accounts_are_resolved() -> None:
    fake, _ = build_demo_with_facts()
    telecom = next(v for v in fake.store.vouchers if v.description == "NST-0726-4471")
    data = await call(app_for(fake), "sevdesk_get_voucher", voucher_id=telecom.id)
    positions = data["positions"]
    assert [p["booking_account"]["number"] for p in positions] == ["4920", "4925"]
    assert [p["booking_account"]["name"] for p in positions] == ["Telefon", "Internet"]
    assert [p["text"] for p in positions] == ["⟦Festnetz 07/2026⟧", "⟦Glasfaser 07/2026⟧"]
    for key in ("net", "tax", "gross"):
        summed = sum(Decimal(p[key]["amount"]) for p in positions)
        assert _money(summed) == data["voucher"][key], key
    assert data["voucher"]["gross"] == _money("100.91")  # 47.48 + 53.43, rounded per position
    assert data["tax_rule"] == {
        "id": 9,
        "code": "VORST_ABZUGSF_AUFW",
        "name": "Vorsteuerabziehbare Aufwendungen",
    }
    assert data.get("tax_type") is None and data.get("note") is None
    assert [p["tax_rate"] for p in positions] == ["19", "19"]


async def test_an_account_used_twice_is_read_once() -> None:
    fake, _ = build_demo_with_facts()
    voucher = next(v for v in fake.store.vouchers if v.description == "DM-2026-05")
    extra = VoucherPos(
        voucher=voucher.ref(),
        accountDatev=Ref("AccountDatev", 3421),
        taxRate=Decimal(19),
        sumNet=Decimal("10.00"),
        comment="Nebenkosten",
    )
    extra.compute()
    fake.store.voucher_positions.insert(extra)
    voucher.set_sums(fake.store.voucher_positions_of(voucher))
    data = await call(app_for(fake), "sevdesk_get_voucher", voucher_id=voucher.id)
    assert [p["booking_account"]["number"] for p in data["positions"]] == ["4210", "4210"]
    # from the account's list of booking accounts (cached reference data), never one by one
    assert [r.path for r in fake.requests if r.path.startswith("/AccountDatev")] == [
        "/AccountDatev"
    ]


def _legacy_voucher(fake: FakeSevdesk) -> Voucher:
    """A receipt saved under bookkeeping 1.0: taxType on the voucher, accountingType on the
    positions, no accountDatev (§3.4, §3.5)."""
    store = fake.store
    voucher = Voucher(
        voucherDate=at(date(2023, 5, 2), 0),
        supplierName="Altlieferant GmbH",
        description="ALT-2023-17",
        status=1000,
        taxType="default",
        taxRule=None,
        paidAmount=Decimal("35.70"),
    )
    store.vouchers.insert(voucher)
    positions = []
    for account, net in ((21, "20.00"), (26, "10.00")):
        pos = VoucherPos(
            voucher=voucher.ref(),
            accountingType=Ref("AccountingType", account),
            taxRate=Decimal(19),
            sumNet=Decimal(net),
            comment=f"Alt {account}",
        )
        pos.compute()
        positions.append(store.voucher_positions.insert(pos))
    voucher.set_sums(positions)
    return voucher


async def test_bookkeeping_1_0_and_2_0_receipts_are_read_per_object() -> None:
    fake, _ = build_demo_with_facts()
    legacy = _legacy_voucher(fake)
    app = app_for(fake)
    old = await call(app, "sevdesk_get_voucher", voucher_id=legacy.id)
    assert old["voucher"]["bookkeeping_system"] == "1.0"
    assert old["tax_type"] == "default" and old.get("tax_rule") is None
    assert [p["booking_account"] for p in old["positions"]] == [
        {"system": "1.0", "id": 21, "number": "4210", "name": "Miete"},
        {"system": "1.0", "id": 26, "number": "4930", "name": "Bürobedarf"},
    ]
    assert {p["bookkeeping_system"] for p in old["positions"]} == {"1.0"}
    assert old["voucher"]["gross"] == _money("35.70") and old["voucher"]["paid"] == _money("35.70")
    new = await call(app, "sevdesk_get_voucher", voucher_id=800001)
    assert new["voucher"]["bookkeeping_system"] == "2.0"
    assert new["positions"][0]["booking_account"]["system"] == "2.0"
    listed = await call(app, "sevdesk_search_vouchers", limit=200)
    systems = {v["id"]: v["bookkeeping_system"] for v in listed["vouchers"]}
    assert systems[legacy.id] == "1.0" and systems[800001] == "2.0"


async def test_an_unknown_legacy_account_keeps_its_id() -> None:
    fake, _ = build_demo_with_facts()
    legacy = _legacy_voucher(fake)
    position = fake.store.voucher_positions_of(legacy)[0]
    position.accountingType = Ref("AccountingType", 999)
    data = await call(app_for(fake), "sevdesk_get_voucher", voucher_id=legacy.id)
    assert data["positions"][0]["booking_account"] == {
        "system": "1.0",
        "id": 999,
    }


async def test_the_account_version_decides_for_receipts_without_either_marker() -> None:
    fake = FakeSevdesk("0123456789abcdef0123456789abcdef", "1.0")
    fake.store.vouchers.insert(Voucher(voucherDate=at(date(2026, 2, 1), 0), status=50))
    data = await call(app_for(fake), "sevdesk_search_vouchers")
    assert [v["bookkeeping_system"] for v in data["vouchers"]] == ["1.0"]


async def test_an_unknown_receipt_is_a_clear_error() -> None:
    fake, _ = build_demo_with_facts()
    text = await call_error(app_for(fake), "sevdesk_get_voucher", voucher_id=999_999)
    assert "sevDesk has no such object (HTTP 404)" in text


async def test_positions_of_other_receipts_are_left_out_when_the_filter_is_ignored() -> None:
    """Q12: an ignored ``voucher[id]`` filter would return every position of the account."""
    fake, _ = build_demo_with_facts()

    def everything(path: str, objects: object) -> object:
        if path.endswith("/VoucherPos"):
            return [to_wire(p, fake.store.client_ref) for p in fake.store.voucher_positions]
        return objects

    data = await call(app_for(fake, everything), "sevdesk_get_voucher", voucher_id=800001)
    assert [p["id"] for p in data["positions"]] == [810001]
