"""Every list tool pages past 1,000 rows (a fake holding 2,500 records) and says when it
truncates its own output. sevDesk answers at most 1,000 rows per page and 100 without an
explicit ``limit`` (section 1), so a tool that reads one page would see 1,000 or 100."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.models import CheckAccountTransactionLog
from sevdesk_mcp.fake.wire import Ref
from tests.finance.helpers import (
    MANY,
    app_for,
    call,
    requests_to,
    seed_contacts,
    seed_open_invoices,
    seed_parts,
    seed_transactions,
    seed_vouchers,
)

pytestmark = pytest.mark.anyio

PAGES = [("1000", "0"), ("1000", "1000"), ("1000", "2000")]


def _empty() -> FakeSevdesk:
    return FakeSevdesk("0123456789abcdef0123456789abcdef", "2.0")


def _pages(fake: FakeSevdesk, path: str) -> list[tuple[str, str]]:
    return [(q["limit"], q["offset"]) for q in requests_to(fake, path)]


def _more(hidden: int, noun: str) -> str:
    return f"{hidden} more {noun} not shown; narrow the search or raise limit."


async def test_search_vouchers_sees_all_2500() -> None:
    fake = _empty()
    gross = seed_vouchers(fake)
    data = await call(app_for(fake), "sevdesk_search_vouchers", limit=200)
    assert data["total_matches"] == MANY and len(data["vouchers"]) == 200
    assert (
        data["gross_totals"]
        == data["open_totals"]
        == [{"amount": f"{gross:.2f}", "currency": "EUR"}]
    )
    assert data["note"] == _more(MANY - 200, "receipts")
    assert _pages(fake, "/Voucher") == PAGES


async def test_search_parts_sees_all_2500() -> None:
    fake = _empty()
    seed_parts(fake)
    data = await call(app_for(fake), "sevdesk_search_parts", query="schraube")
    assert data["total_matches"] == MANY and len(data["parts"]) == 25
    assert data["parts"][0]["part_number"] == "SCH-00000"
    assert data["note"] == _more(MANY - 25, "articles")
    assert _pages(fake, "/Part") == PAGES


async def test_list_bank_accounts_counts_all_2500_unmatched() -> None:
    fake = _empty()
    account = seed_transactions(fake)
    data = await call(app_for(fake), "sevdesk_list_bank_accounts")
    (row,) = data["accounts"]
    assert row["id"] == account.id and row["unmatched_transactions"] == MANY
    assert row["balance"] == {"amount": f"{MANY}.00", "currency": "EUR"}
    assert _pages(fake, "/CheckAccountTransaction") == PAGES


async def test_search_transactions_sees_all_2500_and_their_bookings() -> None:
    fake = _empty()
    account = seed_transactions(fake, status=400)
    store = fake.store
    for tx in list(store.transactions):
        store.add(
            store.transaction_logs,
            CheckAccountTransactionLog(
                checkAccountTransaction=tx.ref(),
                amountPaid=tx.amount,
                bookingDate=tx.valueDate,
                object=Ref("Voucher", 800001),
            ),
        )
    data = await call(
        app_for(fake), "sevdesk_search_transactions", account_id=account.id, limit=200
    )
    assert data["total_matches"] == MANY
    assert (
        data["totals"] == data["incoming_totals"] == [{"amount": f"{MANY}.00", "currency": "EUR"}]
    )
    assert data["note"] == _more(MANY - 200, "transactions")
    assert all(len(t["booked_against"]) == 1 for t in data["transactions"])
    assert _pages(fake, "/CheckAccountTransaction") == PAGES
    assert _pages(fake, "/CheckAccountTransactionLog") == PAGES  # the newest are on the last page


async def test_open_items_cover_all_2500_invoices() -> None:
    fake = _empty()
    gross = seed_open_invoices(fake)
    data = await call(app_for(fake), "sevdesk_open_items", as_of="2026-11-27")
    receivables = data["receivables"]
    assert receivables["items"] == MANY
    assert receivables["totals"] == [{"amount": f"{gross:.2f}", "currency": "EUR"}]
    (customer,) = receivables["top_contacts"]
    assert customer["items"] == MANY and customer["name"] == "⟦Großkunde AG⟧"
    assert receivables.get("note") is None
    # status 200 (three pages) and 750 (one) are read together, so they interleave
    assert sorted(_pages(fake, "/Invoice")) == sorted([*PAGES, ("1000", "0")])


async def test_cash_position_covers_all_2500_payables() -> None:
    fake = _empty()
    gross = seed_vouchers(fake)
    data = await call(app_for(fake), "sevdesk_cash_position", on_date="2026-11-27")
    assert data["payables"] == [{"amount": f"{gross:.2f}", "currency": "EUR"}]
    assert data["net_position"] == [{"amount": f"{-gross:.2f}", "currency": "EUR"}]


async def test_changed_since_counts_all_2500_and_says_what_it_left_out() -> None:
    fake = _empty()
    seed_contacts(fake)
    data = await call(app_for(fake), "sevdesk_changed_since", since="2026-11-26", limit=5)
    contacts = next(k for k in data["kinds"] if k["kind"] == "contact")
    assert contacts["count"] == MANY and len(contacts["items"]) == 5
    assert contacts["note"] == _more(MANY - 5, "contact changes")
    assert _pages(fake, "/Contact") == PAGES
