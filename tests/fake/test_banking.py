"""Check accounts, transactions and the booking log."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from sevdesk_mcp.fake.models import CheckAccount, CheckAccountTransaction
from sevdesk_mcp.fake.wire import BERLIN
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio


def _seed(fake: FakeSevdesk) -> CheckAccount:
    """An account with transactions around midnight and value dates unlike entry dates."""
    store = fake.store
    account = store.add(store.check_accounts, CheckAccount(name="Bank", type="online"))
    rows = [
        (datetime(2026, 8, 31, 23, 30), datetime(2026, 8, 1), "100.00", 400, "Miete August"),
        (datetime(2026, 9, 1, 0, 30), datetime(2026, 9, 1), "-15.00", 100, "Gebühr"),
        (datetime(2026, 9, 2, 12), datetime(2026, 7, 1), "50.10", 100, "Zins"),
    ]
    for entry, value, amount, status, purpose in rows:
        tx = CheckAccountTransaction(
            entryDate=entry.replace(tzinfo=BERLIN),
            valueDate=value.replace(tzinfo=BERLIN),
            amount=Decimal(amount),
            checkAccount=account.ref(),
            status=status,
            paymtPurpose=purpose,
            payeePayerName="Probe GmbH",
        )
        store.add(store.transactions, tx)
    return account


async def test_balance_at_date_cuts_the_day_in_berlin(fake: FakeSevdesk) -> None:
    """§2.8, Q20: 00:30 Berlin on 1 Sep (still 31 Aug in UTC) belongs to 1 Sep."""
    account = _seed(fake)
    path = f"/CheckAccount/{account.id}/getBalanceAtDate"
    async with api(fake) as client:
        before = await objects(client, path, date="2026-08-30")
        august = await objects(client, path, date="2026-08-31")
        september = await objects(client, path, date="2026-09-01")
        assert_error(await client.get(path), 400)
        assert_error(await client.get(path, params={"date": "31.08.2026"}), 400)
        assert_error(await client.get("/CheckAccount/1/getBalanceAtDate?date=2026-01-01"), 404, 151)
    assert (before, august, september) == ("0", "100", "85")


async def test_balance_is_computed_from_transactions(fake: FakeSevdesk) -> None:
    account = _seed(fake)
    async with api(fake) as client:
        (one,) = await objects(client, f"/CheckAccount/{account.id}")
        listed = await objects(client, "/CheckAccount")
        assert_error(await client.get("/CheckAccount/1"), 404, code=151)
    assert one["balance"] == "135.1" and listed == [one]
    assert one["autoMapTransaction"] == "1" and "autoMapTransactions" not in one  # Q14


async def test_is_booked_true_works_and_false_is_ignored(fake: FakeSevdesk) -> None:
    """Q13."""
    _seed(fake)
    async with api(fake) as client:
        booked = await objects(client, "/CheckAccountTransaction", isBooked="true")
        ignored = await objects(client, "/CheckAccountTransaction", isBooked="false")
        open_ = await objects(client, "/CheckAccountTransaction", status=100)
    assert [t["paymtPurpose"] for t in booked] == ["Miete August"]
    assert len(ignored) == 3
    assert len(open_) == 2


async def test_transaction_date_filters_use_the_entry_date(fake: FakeSevdesk) -> None:
    """Q19: Unix seconds or ISO, on ``entryDate`` (not ``valueDate``)."""
    _seed(fake)
    september = int(datetime(2026, 9, 1, tzinfo=BERLIN).timestamp())
    async with api(fake) as client:
        unix = await objects(client, "/CheckAccountTransaction", startDate=september)
        iso = await objects(client, "/CheckAccountTransaction", startDate="2026-09-01")
        until = await objects(client, "/CheckAccountTransaction", endDate="2026-09-01T12:00:00")
        garbage = await objects(client, "/CheckAccountTransaction", endDate="tomorrow")
    assert (
        [t["paymtPurpose"] for t in unix] == ["Gebühr", "Zins"] == [t["paymtPurpose"] for t in iso]
    )
    assert [t["paymtPurpose"] for t in until] == ["Miete August", "Gebühr"]
    assert garbage == []


async def test_transaction_text_and_sign_filters(fake: FakeSevdesk) -> None:
    account = _seed(fake)
    async with api(fake) as client:
        purpose = await objects(client, "/CheckAccountTransaction", paymtPurpose="MIETE")
        payer = await objects(client, "/CheckAccountTransaction", payeePayerName="probe")
        credit = await objects(client, "/CheckAccountTransaction", onlyCredit="1")
        debit = await objects(client, "/CheckAccountTransaction", onlyDebit="true")
        mine = await objects(client, "/CheckAccountTransaction", **{"checkAccount[id]": account.id})
        other = await objects(client, "/CheckAccountTransaction", **{"checkAccount[id]": 1})
    assert len(purpose) == 1 and len(payer) == 3 and len(mine) == 3 and other == []
    assert {t["amount"] for t in credit} == {"100", "50.1"}  # Q5: strings
    assert [t["amount"] for t in debit] == ["-15"]


async def test_deleted_transactions_only_by_id(fake: FakeSevdesk) -> None:
    _seed(fake)
    gone = next(iter(fake.store.transactions))
    gone.deletedAt = datetime(2026, 9, 3, tzinfo=BERLIN)
    async with api(fake) as client:
        listed = await objects(client, "/CheckAccountTransaction")
        (one,) = await objects(client, f"/CheckAccountTransaction/{gone.id}")
        assert_error(await client.get("/CheckAccountTransaction/1"), 404, code=151)
    assert str(gone.id) not in {t["id"] for t in listed}
    assert one["deletedAt"] == "2026-09-03T00:00:00+02:00"


async def test_booking_log_filters_only_on_the_transaction(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q17: ``object[id]`` and friends are ignored; Q26: ``amountPaid`` has the sign."""
    entry = next(iter(demo.store.transaction_logs))
    async with api(demo) as client:
        everything = await objects(client, "/CheckAccountTransactionLog", limit=1000)
        mine = await objects(
            client,
            "/CheckAccountTransactionLog",
            **{"checkAccountTransaction[id]": entry.checkAccountTransaction.id},
        )
        ignored = await objects(
            client, "/CheckAccountTransactionLog", limit=1000, **{"object[id]": entry.object.id}
        )
        (tx,) = await objects(
            client, f"/CheckAccountTransaction/{entry.checkAccountTransaction.id}"
        )
    assert len(ignored) == len(everything) == len(demo.store.transaction_logs)
    assert len(mine) == 1
    log = mine[0]
    assert isinstance(log["amountPaid"], int | float)
    assert Decimal(str(log["amountPaid"])) == Decimal(tx["amount"])
    assert "update" not in log
    assert (log["fromStatus"], log["toStatus"]) == ("100", "400")
    assert int(tx["checkAccount"]["id"]) in {facts.bank_account_id, facts.register_id}
