"""Check accounts, transactions and the booking log (``docs/sevdesk-api.md`` §2.8, §5.4).

- ``balance`` and getBalanceAtDate are computed from the transactions; the day of
  ``date=YYYY-MM-DD`` is cut in Berlin time (Q20) and the answer is a string scalar.
- Transaction lists omit deleted transactions, the GET by id still shows them with
  ``deletedAt``. ``isBooked=true`` works, ``false`` is ignored (Q13); ``startDate``/``endDate``
  take Unix seconds or ISO and filter on ``entryDate`` (Q19).
- The booking log filters only on ``checkAccountTransaction[id]`` (Q17).
- ``PUT /CheckAccountTransaction/{id}`` with ``status`` marks an unbooked transaction private
  (300) or sets a private one back to unbooked (100); a booked, enshrined or deleted one is
  refused (422), as is any other status (400). Other fields of the body are ignored.
"""

from __future__ import annotations

from datetime import date, timedelta

from sevdesk_mcp.fake.listing import (
    Filter,
    by_int,
    by_ref,
    containing,
    filtered,
    list_reply,
    object_reply,
    one_reply,
    since,
    until,
    when_true,
)
from sevdesk_mcp.fake.models import (
    CheckAccount,
    CheckAccountTransaction,
    CheckAccountTransactionLog,
)
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, berlin_midnight, money, to_wire
from sevdesk_mcp.jsontypes import JsonObject

router = Router()

OPEN_TRANSACTION = 100
PRIVATE_TRANSACTION = 300

_TX_FILTERS: dict[str, Filter[CheckAccountTransaction]] = {
    "checkAccount[id]": by_ref(lambda t: t.checkAccount),
    "status": by_int(lambda t: t.status),
    "isBooked": when_true(lambda t: t.status != OPEN_TRANSACTION),
    "paymtPurpose": containing(lambda t: t.paymtPurpose),
    "payeePayerName": containing(lambda t: t.payeePayerName),
    "startDate": since(lambda t: t.entryDate, iso_allowed=True),
    "endDate": until(lambda t: t.entryDate, iso_allowed=True),
    "onlyCredit": when_true(lambda t: t.amount > 0),
    "onlyDebit": when_true(lambda t: t.amount < 0),
}
_LOG_FILTERS: dict[str, Filter[CheckAccountTransactionLog]] = {
    "checkAccountTransaction[id]": by_ref(lambda entry: entry.checkAccountTransaction),
}


def account_wire(store: Store, account: CheckAccount) -> JsonObject:
    """:returns: the check account with its ``balance`` computed from the transactions."""
    out = to_wire(account, store.client_ref)
    out["balance"] = money(store.balance(account))
    return out


@router.route("GET", "/CheckAccount")
def list_accounts(ctx: Context) -> Reply:
    """:returns: the check accounts with their balances."""
    return list_reply(ctx, list(ctx.store.check_accounts), lambda a: account_wire(ctx.store, a))


@router.route("GET", "/CheckAccount/{id}")
def get_account(ctx: Context) -> Reply:
    """:returns: one check account as an array of one (Q2). :raises FakeError: 404."""
    account = ctx.store.check_accounts.get(ctx.path_id("CheckAccount"))
    return one_reply(account_wire(ctx.store, account))


@router.route("GET", "/CheckAccount/{id}/getBalanceAtDate")
def balance_at_date(ctx: Context) -> Reply:
    """:returns: the balance at the end of ``date`` (Berlin), as a string scalar (§5.8).

    :raises FakeError: 404 for an unknown account; 400 for a missing or malformed date.
    """
    account = ctx.store.check_accounts.get(ctx.path_id("CheckAccount"))
    try:
        day = date.fromisoformat(ctx.query.get("date", ""))
    except ValueError:
        raise FakeError(400, "Parameter 'date' must be a date like 2026-08-31") from None
    end = berlin_midnight(day + timedelta(days=1))
    return object_reply(money(ctx.store.balance(account, before=end)))


@router.route("GET", "/CheckAccountTransaction")
def list_transactions(ctx: Context) -> Reply:
    """:returns: the live transactions, filtered (deleted ones are omitted)."""
    live = [t for t in ctx.store.transactions if t.deletedAt is None]
    rows = filtered(live, ctx.query, _TX_FILTERS)
    return list_reply(ctx, rows, lambda t: to_wire(t, ctx.store.client_ref))


@router.route("GET", "/CheckAccountTransaction/{id}")
def get_transaction(ctx: Context) -> Reply:
    """:returns: one transaction, deleted ones included (Q2). :raises FakeError: 404."""
    transaction = ctx.store.transactions.get(ctx.path_id("CheckAccountTransaction"))
    return one_reply(to_wire(transaction, ctx.store.client_ref))


@router.route("GET", "/CheckAccountTransactionLog")
def list_transaction_logs(ctx: Context) -> Reply:
    """:returns: the booking log; only ``checkAccountTransaction[id]`` filters (Q17)."""
    rows = filtered(list(ctx.store.transaction_logs), ctx.query, _LOG_FILTERS)
    return list_reply(ctx, rows, lambda entry: to_wire(entry, ctx.store.client_ref))


@router.route("PUT", "/CheckAccountTransaction/{id}")
def update_transaction(ctx: Context) -> Reply:
    """Mark a transaction private (300) or unbooked again (100).

    :returns: the transaction. :raises FakeError: 404, 400 for another status, 422 for a
        booked, enshrined or deleted transaction.
    """
    transaction = ctx.store.transactions.get(ctx.path_id("CheckAccountTransaction"))
    status = ctx.json().get("status")
    wanted = {"100": OPEN_TRANSACTION, "300": PRIVATE_TRANSACTION}.get(str(status))
    if wanted is None:
        raise FakeError(400, "status must be 100 (open) or 300 (private)")
    movable = (OPEN_TRANSACTION, PRIVATE_TRANSACTION)
    if transaction.status not in movable or transaction.deletedAt or transaction.enshrined:
        raise FakeError(422, f"Transaction {transaction.id} can no longer change its status")
    transaction.status = wanted
    ctx.store.save(transaction)
    return object_reply(to_wire(transaction, ctx.store.client_ref))
