"""Check accounts (bank accounts, cash registers), balances at a date, and transactions with
their counterparties, purposes and bookings (``docs/sevdesk-api.md`` §2.8, §5.4).

- getBalanceAtDate takes ``YYYY-MM-DD``, cuts the day in Berlin time and answers a numeric
  string scalar (Q18, Q20, §5.8).
- Unmatched transactions are asked for with ``status=100``: ``isBooked=false`` is ignored and
  would return everything (Q13).
- ``startDate``/``endDate`` filter on the entry date, not the value date (Q19).
- ``amount`` is signed and a string, sometimes a number (Q5); bookings carry its sign (Q26).
- What a transaction was booked against is only in the CheckAccountTransactionLog, which
  filters on the transaction and nothing else (Q17).
- Counterparty and purpose are matched here, on cleaned text: sevDesk's own text filters would
  miss text with invisible characters in it.
- Reads that do not depend on each other (the accounts, the transactions, one balance per
  account, one booking log per transaction) are made together (``together.py``).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.domain.common import omitted_note
from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.errors import Action, Phrase, plain, say
from sevdesk_mcp.domain.money import ZERO, Money, money, totals_by_currency
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.vouchers import contains, in_range, start_bound
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.paths import QueryValue, api_path
from sevdesk_mcp.sevdesk.together import both, each
from sevdesk_mcp.sevdesk.wire_finance import (
    CheckAccount,
    CheckAccountTransaction,
    CheckAccountTransactionLog,
)

MAX_ACCOUNTS: Final = 1_000
MAX_SCANNED: Final = 50_000
MAX_LOG: Final = 100_000
PER_TRANSACTION_LOOKUPS: Final = 5
UNMATCHED: Final = 100
ACTIVE: Final = 100
ONLINE: Final = "online"
ACCOUNT_STATUSES: Final = {0: "archived", ACTIVE: "active"}
STATES: Final = {
    100: "unmatched",
    200: "linked",
    300: "private",
    350: "booked_automatically",
    400: "booked",
}
BOOKED: Final = frozenset({350, 400})
State = Literal["any", "unmatched", "booked", "private", "linked"]
Direction = Literal["any", "incoming", "outgoing"]
_STATE_CODES: Final[dict[str, frozenset[int]]] = {
    "unmatched": frozenset({UNMATCHED}),
    "linked": frozenset({200}),
    "private": frozenset({300}),
    "booked": BOOKED,
}
_OBJECT_KINDS: Final = {"Invoice": "invoice", "Voucher": "voucher", "CreditNote": "credit_note"}
BookedKind = Literal["invoice", "credit_note", "voucher"]
_MODELS: Final[dict[str, str]] = {kind: model for model, kind in _OBJECT_KINDS.items()}


class BankAccount(msgspec.Struct, frozen=True, kw_only=True):
    """A bank account or cash register with its balance at the asked date."""

    id: int
    name: Untrusted | None
    type: Annotated[
        str, msgspec.Meta(description="online (bank feed), offline (manual) or register (cash)")
    ]
    online: Annotated[
        bool,
        msgspec.Meta(
            description="Transactions arrive from the bank; a payment booked on it names the "
            "bank transaction it comes from"
        ),
    ]
    iban: str | None
    accounting_number: str | None
    currency: str
    status: str
    balance: Money
    unmatched_transactions: int


class BankAccountList(msgspec.Struct, frozen=True, kw_only=True):
    """Every check account; ``balance_totals`` add up the active ones per currency."""

    on_date: dt.date
    accounts: list[BankAccount]
    balance_totals: list[Money]
    note: str | None


class Booking(msgspec.Struct, frozen=True, kw_only=True):
    """What a transaction was booked against; the amount has the transaction's sign (Q26)."""

    object_kind: str
    object_id: int
    amount_paid: Money
    booking_date: dt.date | None


class Transaction(msgspec.Struct, frozen=True, kw_only=True):
    """A bank or cash transaction; ``amount`` is negative for money going out."""

    id: int
    value_date: dt.date | None
    entry_date: dt.date | None
    amount: Money
    counterparty: Untrusted | None
    counterparty_iban: str | None
    purpose: Untrusted | None
    state: str
    account_id: int | None
    booked_against: list[Booking]


class TransactionList(msgspec.Struct, frozen=True, kw_only=True):
    """Transactions matching a search, newest entry first; the sums cover every match."""

    transactions: list[Transaction]
    total_matches: int
    totals: list[Money]
    incoming_totals: list[Money]
    outgoing_totals: list[Money]
    note: str | None


class TransactionSearch(msgspec.Struct, frozen=True):
    """What to look for."""

    account_id: int | None = None
    state: State = "any"
    counterparty: str | None = None
    purpose: str | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    direction: Direction = "any"
    limit: int = 25
    amount: Decimal | None = None  # the amount either way: 1190 finds +1190 and -1190
    amount_min: Decimal | None = None
    amount_max: Decimal | None = None
    booked_on: tuple[BookedKind, int] | None = None  # the document it was booked on


def checked_search(search: TransactionSearch) -> TransactionSearch:
    """:returns: ``search`` if its amount filters fit together.

    :raises ToolInputError: for an exact amount with a range, a negative bound, or a range
        whose low end is above its high end.
    """
    bounds = [a for a in (search.amount, search.amount_min, search.amount_max) if a is not None]
    if search.amount is not None and len(bounds) > 1:
        raise ToolInputError("Give amount (exact) or amount_min/amount_max (a range), not both.")
    if any(a < 0 for a in bounds):
        raise ToolInputError(
            "Amounts are compared without their sign (1190 finds +1190 and -1190): give them "
            "positive, and direction=incoming or outgoing for the sign."
        )
    low, high = search.amount_min, search.amount_max
    if low is not None and high is not None and low > high:
        raise ToolInputError(f"amount_min {low} is above amount_max {high}; swap them.")
    return search


async def read_accounts(client: SevdeskPort) -> list[CheckAccount]:
    """:returns: every check account of the sevDesk account.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    page = await client.get_all("/CheckAccount", max_items=MAX_ACCOUNTS)
    return wire.parse_all(page.items, CheckAccount)


async def balance_at(client: SevdeskPort, account: CheckAccount, day: dt.date) -> Money:
    """:returns: the balance at the end of the Berlin ``day`` (sevDesk cuts days in Berlin, Q20).

    :raises UpstreamError: if sevDesk cannot be read or sends no number.
    """
    path = api_path("CheckAccount", account.id, "getBalanceAtDate")
    value = await client.get(path, {"date": day.isoformat()})  # Q18: YYYY-MM-DD here
    return money(decimal_scalar(value, "balance"), account.currency)


def decimal_scalar(value: JsonValue, what: str) -> Decimal:
    """:returns: a scalar answer (``{"objects": "-1391.18"}``, a string or a number) as a decimal.

    :raises MalformedResponseError: if it is not a finite number below 10^15 in size.
    """
    return wire.decimal_value(value, what)


async def list_bank_accounts(client: SevdeskPort, on_date: dt.date) -> BankAccountList:
    """:returns: every check account with its balance at ``on_date`` and unmatched count.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    accounts, (unmatched, truncated) = await both(
        lambda: read_accounts(client), lambda: _unmatched_counts(client)
    )
    balances = await each([_balance(client, a, on_date) for a in accounts])
    rows = [
        _bank_account(a, balance, unmatched[a.id])
        for a, balance in zip(accounts, balances, strict=True)
    ]
    active = [r.balance for r in rows if r.status == "active"]
    note = f"Only {MAX_SCANNED} unmatched transactions were counted." if truncated else None
    return BankAccountList(
        on_date=on_date, accounts=rows, balance_totals=totals_by_currency(active), note=note
    )


async def search_transactions(
    client: SevdeskPort, search: TransactionSearch, *, phrase: Phrase = plain
) -> TransactionList:
    """:returns: the matching transactions, newest entry first, with sums of every match; the
        note names the next step of an unknown account with ``phrase``.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    accounts, page = await both(
        lambda: read_accounts(client),
        lambda: client.get_all("/CheckAccountTransaction", _query(search), max_items=MAX_SCANNED),
    )
    booked_on, booked_truncated = await _booked_on(client, search.booked_on)
    currencies = {a.id: a.currency for a in accounts}
    rows = wire.parse_all(page.items, CheckAccountTransaction)
    rows = [t for t in rows if booked_on is None or t.id in booked_on]
    matches = sorted((t for t in rows if _matches(t, search)), key=_newest, reverse=True)
    amounts = [money(t.amount, _currency(t, currencies)) for t in matches]
    shown = matches[: search.limit]
    logs, log_truncated = await bookings_for(client, [t.id for t in shown if t.status in BOOKED])
    return TransactionList(
        transactions=[_transaction(t, _currency(t, currencies), logs[t.id]) for t in shown],
        total_matches=len(matches),
        totals=totals_by_currency(amounts),
        incoming_totals=totals_by_currency(a for a in amounts if a.amount > 0),
        outgoing_totals=totals_by_currency(a for a in amounts if a.amount < 0),
        note=_warning(search, currencies, page.truncated, log_truncated or booked_truncated, phrase)
        or omitted_note(len(shown), len(matches), "transactions"),
    )


async def bookings_for(
    client: SevdeskPort, transaction_ids: list[int]
) -> tuple[defaultdict[int, list[CheckAccountTransactionLog]], bool]:
    """:returns: the booking-log entries of the given transactions, and whether the log was cut.

    A few transactions are asked for one by one; more read the whole log once, as the log
    filters on nothing but the transaction (Q17).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    entries: list[CheckAccountTransactionLog] = []
    truncated = False
    if 0 < len(transaction_ids) <= PER_TRANSACTION_LOOKUPS:
        pages = await each([_log_of(client, ident) for ident in transaction_ids])
        entries = [e for p in pages for e in wire.parse_all(p.items, CheckAccountTransactionLog)]
    elif transaction_ids:
        page = await client.get_all("/CheckAccountTransactionLog", max_items=MAX_LOG)
        entries, truncated = wire.parse_all(page.items, CheckAccountTransactionLog), page.truncated
    wanted = set(transaction_ids)
    found: defaultdict[int, list[CheckAccountTransactionLog]] = defaultdict(list)
    for entry in {e.id: e for e in entries}.values():  # one entry once, however it came
        if entry.checkAccountTransaction and entry.checkAccountTransaction.id in wanted:
            found[entry.checkAccountTransaction.id].append(entry)  # checked again (Q17)
    return found, truncated


async def _booked_on(
    client: SevdeskPort, document: tuple[BookedKind, int] | None
) -> tuple[set[int] | None, bool]:
    """:returns: the ids of the transactions booked on ``document`` (``None``: no such filter),
        and whether the booking log was cut. The log filters on nothing but the transaction
        (Q17), so it is read once and the document looked for in it.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    if document is None:
        return None, False
    kind, ident = document
    page = await client.get_all("/CheckAccountTransactionLog", max_items=MAX_LOG)
    entries = wire.parse_all(page.items, CheckAccountTransactionLog)
    found = {
        e.checkAccountTransaction.id
        for e in entries
        if e.checkAccountTransaction is not None
        and e.object is not None
        and (e.object.objectName, e.object.id) == (_MODELS[kind], ident)
    }
    return found, page.truncated


def _log_of(client: SevdeskPort, ident: int) -> Callable[[], Awaitable[Page]]:
    query: dict[str, QueryValue] = {
        "checkAccountTransaction[id]": ident,
        "checkAccountTransaction[objectName]": "CheckAccountTransaction",
    }
    return lambda: client.get_all("/CheckAccountTransactionLog", query, max_items=1_000)


def _balance(
    client: SevdeskPort, account: CheckAccount, day: dt.date
) -> Callable[[], Awaitable[Money]]:
    return lambda: balance_at(client, account, day)


async def _unmatched_counts(client: SevdeskPort) -> tuple[Counter[int], bool]:
    # Q13: isBooked=false is ignored; status=100 is what selects the unmatched ones
    query: dict[str, QueryValue] = {"status": UNMATCHED}
    page = await client.get_all("/CheckAccountTransaction", query, max_items=MAX_SCANNED)
    rows = wire.parse_all(page.items, CheckAccountTransaction)
    counts = Counter(t.checkAccount.id for t in rows if t.status == UNMATCHED and t.checkAccount)
    return counts, page.truncated


def _bank_account(account: CheckAccount, balance: Money, unmatched: int) -> BankAccount:
    return BankAccount(
        id=account.id,
        name=fence(account.name),
        type=clean(account.type or "") or "unknown",
        online=is_online(account),
        iban=clean(account.iban) or None if account.iban else None,
        accounting_number=account.accountingNumber,
        currency=(account.currency or "EUR").upper(),
        status=ACCOUNT_STATUSES.get(account.status or 0, f"status {account.status}"),
        balance=balance,
        unmatched_transactions=unmatched,
    )


def _query(search: TransactionSearch) -> dict[str, QueryValue]:
    query: dict[str, QueryValue] = {}
    if search.account_id is not None:
        query["checkAccount[id]"] = search.account_id
        query["checkAccount[objectName]"] = "CheckAccount"
    codes = _STATE_CODES.get(search.state, frozenset())
    if len(codes) == 1:
        query["status"] = next(iter(codes))  # Q13: status=100, never isBooked=false
    if search.date_from:
        query["startDate"] = start_bound(search.date_from)  # Q19: on the entry date
    if search.date_to:
        query["endDate"] = dates.unix_end(search.date_to)
    if search.direction != "any":
        query["onlyCredit" if search.direction == "incoming" else "onlyDebit"] = True
    return query


def _matches(tx: CheckAccountTransaction, search: TransactionSearch) -> bool:
    # every filter again: sevDesk ignores filters it does not know (Q12)
    if search.account_id is not None and (
        tx.checkAccount is None or tx.checkAccount.id != search.account_id
    ):
        return False
    if search.state != "any" and tx.status not in _STATE_CODES[search.state]:
        return False
    if not in_range(dates.berlin_date(tx.entryDate), search.date_from, search.date_to):
        return False
    amount = tx.amount or ZERO
    if (search.direction == "incoming" and amount <= 0) or (
        search.direction == "outgoing" and amount >= 0
    ):
        return False
    if not _amount_fits(abs(amount), search):
        return False
    return contains(tx.payeePayerName, search.counterparty) and contains(
        tx.paymtPurpose, search.purpose
    )


def _amount_fits(size: Decimal, search: TransactionSearch) -> bool:
    if search.amount is not None and size != search.amount:
        return False
    low, high = search.amount_min, search.amount_max
    return (low is None or size >= low) and (high is None or size <= high)


def _transaction(
    tx: CheckAccountTransaction, currency: str, logs: list[CheckAccountTransactionLog]
) -> Transaction:
    return Transaction(
        id=tx.id,
        value_date=dates.berlin_date(tx.valueDate),
        entry_date=dates.berlin_date(tx.entryDate),
        amount=money(tx.amount, currency),
        counterparty=fence(tx.payeePayerName),
        counterparty_iban=clean(tx.payeePayerAcctNo) or None if tx.payeePayerAcctNo else None,
        purpose=fence(tx.paymtPurpose),
        state=STATES.get(tx.status or 0, f"status {tx.status}"),
        account_id=tx.checkAccount.id if tx.checkAccount else None,
        booked_against=[_booking(e, currency) for e in logs if e.object is not None],
    )


def _booking(entry: CheckAccountTransactionLog, currency: str) -> Booking:
    target = entry.object
    assert target is not None  # filtered by the caller
    return Booking(
        object_kind=_OBJECT_KINDS.get(target.objectName, clean(target.objectName) or "unknown"),
        object_id=target.id,
        amount_paid=money(entry.amountPaid, currency),
        booking_date=dates.berlin_date(entry.bookingDate),
    )


def _currency(tx: CheckAccountTransaction, currencies: dict[int, str | None]) -> str:
    # Q40: transactions carry no currency; it is the account's
    found = currencies.get(tx.checkAccount.id) if tx.checkAccount else None
    return (found or "EUR").upper()


def _newest(tx: CheckAccountTransaction) -> tuple[dt.date, int]:
    return dates.berlin_date(tx.entryDate) or dt.date.min, tx.id


def _warning(
    search: TransactionSearch,
    currencies: dict[int, str | None],
    truncated: bool,
    log_cut: bool,
    phrase: Phrase,
) -> str | None:
    if search.account_id is not None and search.account_id not in currencies:
        unknown = f"There is no check account {search.account_id}; see "
        return say((unknown, Action.LIST_BANK_ACCOUNTS, "."), phrase)
    if truncated:
        return f"Only the first {MAX_SCANNED} transactions sevDesk listed were searched."
    if log_cut:
        return f"Only {MAX_LOG} booking-log entries were read; some bookings may be missing."
    return None


def is_online(account: CheckAccount) -> bool:
    """:returns: whether the bank feeds the account (a payment on it needs its transaction)."""
    return clean(account.type or "").casefold() == ONLINE
