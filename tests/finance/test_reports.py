"""The reports toolset: open items with aging, cash position, changes since a moment."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo_with_facts
from sevdesk_mcp.fake.wire import BERLIN, Row, to_wire
from tests.finance.helpers import app_for, call, call_error, requests_to

pytestmark = pytest.mark.anyio

TODAY = date(2026, 11, 27)
BUCKETS = ("not_due", "days_0_30", "days_31_60", "days_61_90", "days_over_90")


def _eur(amount: Decimal | str | int) -> dict[str, str]:
    return {"amount": str(Decimal(amount).quantize(Decimal("0.01"))), "currency": "EUR"}


def _bucket(due: date, as_of: date) -> str:
    days = (as_of - due).days
    if days <= 0:
        return "not_due"
    return next(
        b for b, upper in zip(BUCKETS[1:], (30, 60, 90, 10**6), strict=True) if days <= upper
    )


def _expected_receivables(fake: FakeSevdesk, as_of: date) -> dict[str, Decimal]:
    buckets: defaultdict[str, Decimal] = defaultdict(Decimal)
    for inv in fake.store.invoices:
        if inv.status in (200, 750) and inv.invoiceDate.date() <= as_of:
            due = inv.invoiceDate.date() + timedelta(days=inv.timeToPay or 0)
            buckets[_bucket(due, as_of)] += inv.sumGross - inv.paidAmount
    for note in fake.store.credit_notes:
        if note.status in (200, 750) and note.creditNoteDate.date() <= as_of:
            buckets[_bucket(note.creditNoteDate.date(), as_of)] -= note.sumGross - note.paidAmount
    return buckets


def _expected_payables(fake: FakeSevdesk, as_of: date) -> dict[str, Decimal]:
    buckets: defaultdict[str, Decimal] = defaultdict(Decimal)
    for v in fake.store.vouchers:
        if v.creditDebit == "C" and v.status in (100, 750) and v.voucherDate.date() <= as_of:
            due = (v.paymentDeadline or v.voucherDate).date()
            buckets[_bucket(due, as_of)] += v.sumGross - v.paidAmount
    return buckets


def _check_side(side: dict[str, Any], expected: dict[str, Decimal]) -> None:
    if not any(expected.values()):
        assert side["aging"] == side["totals"] == side["top_contacts"] == []
        assert side["items"] == side["contacts_total"] == 0
        return
    (aging,) = side["aging"]
    for name in BUCKETS:
        assert aging[name] == _eur(expected.get(name, Decimal(0))), name
    summed = sum(Decimal(aging[name]["amount"]) for name in BUCKETS)
    assert aging["total"] == side["totals"][0] == _eur(summed) == _eur(sum(expected.values()))
    contact_total = sum(Decimal(c["aging"]["total"]["amount"]) for c in side["top_contacts"])
    assert _eur(contact_total) == aging["total"]  # top 200 covers every contact here


@pytest.mark.parametrize("as_of", [TODAY, date(2026, 10, 1), date(2026, 6, 30)])
async def test_open_items_match_the_books_and_the_buckets_add_up(as_of: date) -> None:
    fake, _ = build_demo_with_facts()
    data = await call(app_for(fake), "sevdesk_open_items", as_of=as_of.isoformat(), top=200)
    assert data["as_of"] == as_of.isoformat()
    assert any(_expected_receivables(fake, as_of).values())
    _check_side(data["receivables"], _expected_receivables(fake, as_of))
    _check_side(data["payables"], _expected_payables(fake, as_of))
    assert "timeToPay" not in data["rule"] and "payment days" in data["rule"]


async def test_open_items_default_to_today_with_overdue_invoices_and_a_credit_note() -> None:
    fake, facts = build_demo_with_facts()
    data = await call(app_for(fake), "sevdesk_open_items", top=3)
    assert data["as_of"] == TODAY.isoformat()
    receivables = data["receivables"]
    overdue = sum(Decimal(receivables["aging"][0][b]["amount"]) for b in BUCKETS[1:])
    assert overdue > 0 and len(facts.overdue_invoice_ids) >= 4
    assert len(receivables["top_contacts"]) == 3
    totals = [Decimal(c["aging"]["total"]["amount"]) for c in receivables["top_contacts"]]
    assert totals == sorted(totals, reverse=True)
    hidden = receivables["contacts_total"] - 3
    assert receivables["note"] == f"{hidden} more contacts not shown; raise top to see them."
    assert all(c["name"].startswith("⟦") for c in receivables["top_contacts"])
    open_note = next(n for n in fake.store.credit_notes if n.status == 200)
    assert open_note.contact is not None
    owner = next(c for c in fake.store.contacts if c.id == open_note.contact.id)
    row = next(
        c
        for c in (await call(app_for(fake), "sevdesk_open_items", top=200))["receivables"][
            "top_contacts"
        ]
        if c["contact_id"] == owner.id
    )
    assert row["name"] == f"⟦{owner.name}⟧"


async def test_open_items_ask_by_status_and_check_again() -> None:
    """Q12: the status filters are sent, and an ignored filter changes nothing."""
    fake, _ = build_demo_with_facts()
    plain = await call(app_for(fake), "sevdesk_open_items", top=200)
    # the six lists are read together: which status comes first is up to the event loop
    assert sorted(q["status"] for q in requests_to(fake, "/Invoice")) == ["200", "750"]
    assert sorted(q["status"] for q in requests_to(fake, "/CreditNote")) == ["200", "750"]
    assert sorted((q["status"], q["creditDebit"]) for q in requests_to(fake, "/Voucher")) == [
        ("100", "C"),
        ("750", "C"),
    ]

    def ignore_filters(path: str, objects: Any) -> Any:
        tables: dict[str, Iterable[Row]] = {
            "/Invoice": fake.store.invoices,
            "/CreditNote": fake.store.credit_notes,
            "/Voucher": fake.store.vouchers,
        }
        for suffix, table in tables.items():
            if path.endswith(suffix):
                return [to_wire(row, fake.store.client_ref) for row in table]
        return objects

    everything = await call(app_for(fake, ignore_filters), "sevdesk_open_items", top=200)
    assert everything["receivables"]["totals"] == plain["receivables"]["totals"]
    assert everything["payables"]["totals"] == plain["payables"]["totals"]
    assert everything["receivables"]["items"] == plain["receivables"]["items"]


async def test_revenue_receipts_are_no_payables() -> None:
    """§3.2: the unpaid revenue receipt (creditDebit D) is money coming in, not going out."""
    fake, _ = build_demo_with_facts()
    data = await call(app_for(fake), "sevdesk_open_items", top=200)
    names = {c["name"] for c in data["payables"]["top_contacts"]}
    assert "⟦Privatkundin Restholz⟧" not in names
    assert "⟦Steuerkanzlei Wehrle⟧" in names


async def test_cash_position_adds_cash_and_receivables_and_takes_off_payables() -> None:
    fake, facts = build_demo_with_facts()
    app = app_for(fake)
    data = await call(app, "sevdesk_cash_position")
    items = await call(app, "sevdesk_open_items", top=1)
    accounts = await call(app, "sevdesk_list_bank_accounts")
    assert data["on_date"] == TODAY.isoformat()
    assert [a["balance"] for a in data["accounts"]] == [a["balance"] for a in accounts["accounts"]]
    assert data["cash_totals"] == accounts["balance_totals"]
    assert data["receivables"] == items["receivables"]["totals"]
    assert data["payables"] == items["payables"]["totals"]
    net = sum(Decimal(x[0]["amount"]) for x in (data["cash_totals"], data["receivables"]))
    assert data["net_position"] == [_eur(net - Decimal(data["payables"][0]["amount"]))]
    assert data["rule"].startswith("Net position = cash + open receivables - open payables.")
    fake.store.check_accounts.get(facts.register_id).status = 0
    without_register = await call(app, "sevdesk_cash_position")
    assert [a["id"] for a in without_register["accounts"]] == [facts.bank_account_id]


async def test_cash_position_at_an_earlier_date() -> None:
    fake, _ = build_demo_with_facts()
    data = await call(app_for(fake), "sevdesk_cash_position", on_date="2026-06-30")
    cut = datetime(2026, 7, 1, tzinfo=BERLIN)
    cash = sum((t.amount for t in fake.store.transactions if t.entryDate < cut), Decimal(0))
    assert data["cash_totals"] == [_eur(cash)]
    assert data["receivables"] == [
        _eur(sum(_expected_receivables(fake, date(2026, 6, 30)).values()))
    ]


def _changed(fake: FakeSevdesk, since: datetime) -> dict[str, int]:
    store = fake.store
    tables: dict[str, Iterable[Row]] = {
        "contact": store.contacts,
        "invoice": store.invoices,
        "credit_note": store.credit_notes,
        "order": store.orders,
        "voucher": store.vouchers,
        "transaction": store.transactions,
    }
    return {kind: sum(1 for row in table if row.update > since) for kind, table in tables.items()}


async def test_changed_since_counts_every_kind_and_lists_the_newest() -> None:
    fake, _ = build_demo_with_facts()
    since = datetime(2026, 11, 10, tzinfo=BERLIN)
    data = await call(app_for(fake), "sevdesk_changed_since", since="2026-11-10", limit=3)
    assert data["since"] == "2026-11-10T00:00:00+01:00"
    counts = {k["kind"]: k["count"] for k in data["kinds"]}
    assert counts == _changed(fake, since)
    assert all(counts[k] > 0 for k in ("invoice", "voucher", "transaction"))
    for kind in data["kinds"]:
        stamps = [i["updated_at"] for i in kind["items"]]
        assert stamps == sorted(stamps, reverse=True) and len(stamps) == min(3, kind["count"])
        assert all(i["label"].startswith("⟦") and i["kind"] == kind["kind"] for i in kind["items"])
        hidden = kind["count"] - len(stamps)
        assert kind.get("note") == (
            f"{hidden} more {kind['kind']} changes not shown; narrow the search or raise limit."
            if hidden
            else None
        )
    assert "no webhooks" in data["rule"]


async def test_changed_since_sends_update_after_where_documented_and_checks_locally() -> None:
    """Q12: CreditNote and CheckAccountTransaction document no updateAfter; the fake ignores
    it there like sevDesk would, so only the local check on ``update`` keeps the answer right."""
    fake, _ = build_demo_with_facts()
    since = datetime(2026, 11, 24, 12, 30, tzinfo=BERLIN)
    data = await call(app_for(fake), "sevdesk_changed_since", since="2026-11-24T12:30:00+01:00")
    unix = str(int(since.timestamp()))
    for path in ("/Contact", "/Invoice", "/Order", "/Voucher"):
        assert requests_to(fake, path)[0]["updateAfter"] == unix, path
    for path in ("/CreditNote", "/CheckAccountTransaction"):
        assert "updateAfter" not in requests_to(fake, path)[0], path
    assert {k["kind"]: k["count"] for k in data["kinds"]} == _changed(fake, since)
    assert len(fake.store.credit_notes) > _changed(fake, since)["credit_note"]


async def test_changed_since_defaults_to_seven_days_and_takes_naive_times_as_berlin() -> None:
    fake, _ = build_demo_with_facts()
    app = app_for(fake)
    default = await call(app, "sevdesk_changed_since")
    assert default["since"] == "2026-11-20T00:00:00+01:00"
    naive = await call(app, "sevdesk_changed_since", since="2026-11-20T00:00")
    assert naive["kinds"] == default["kinds"]
    old = next(iter(fake.store.contacts))
    fake.store.save(old)
    touched = await call(app, "sevdesk_changed_since")
    contacts = next(k for k in touched["kinds"] if k["kind"] == "contact")
    assert contacts["items"][0]["id"] == old.id and contacts["items"][0]["updated_at"].startswith(
        "2026-11-27T09:"
    )


async def test_changed_since_refuses_what_is_no_date() -> None:
    fake, _ = build_demo_with_facts()
    text = await call_error(app_for(fake), "sevdesk_changed_since", since="last tuesday")
    assert "since must be an ISO date" in text
