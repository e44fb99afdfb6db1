"""Summaries computed here with exact decimals: open items with aging, the cash position, and
what changed since a moment (sevDesk has no webhooks).

Lists are read to the end with an explicit ``limit``; status filters are sent and applied again
here, because sevDesk ignores filters it does not know (Q12). ``updateAfter`` (Unix seconds) is
sent only where the API documents it (contacts, invoices, orders, vouchers) and the ``update``
timestamp is always checked here as well. The lists of one report do not depend on each other
and are read together (``together.py``), inside the account's pacing budget.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Final

import anyio
import msgspec

from sevdesk_mcp.domain.banking import accounts as banking
from sevdesk_mcp.domain.common import omitted_note
from sevdesk_mcp.domain.contacts import read as contacts
from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.money import ZERO, Money, money, rounded_totals, totals_by_currency
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import vouchers
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.sevdesk import dates, parsed, wire
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.sevdesk.together import both, each
from sevdesk_mcp.sevdesk.wire_documents import Document, OpenDocument
from sevdesk_mcp.sevdesk.wire_finance import CheckAccount, CheckAccountTransaction, Voucher

MAX_SCANNED: Final = 20_000
MAX_LABEL: Final = 120
OPEN_DOCUMENTS: Final = (200, 750)
OPEN_PAYABLES: Final = (100, 750)
BUCKETS: Final = ("not_due", "days_0_30", "days_31_60", "days_61_90", "days_over_90")
OPEN_ITEMS_RULE: Final = (
    "Receivables: invoices open (200) or partially paid (750), open = gross - paid, due = "
    "invoice date + payment days, less open or partially paid credit notes, due on their date. "
    "Payables: expense receipts (creditDebit C) open (100) or partially paid (750), open = gross "
    "- paid, due = payment deadline, else receipt date; revenue receipts are not counted. Left "
    "out: documents dated after the as-of date; paid amounts are those sevDesk shows now. Days "
    "overdue = as-of date - due date: 0 or less not yet due, then 0-30 (1-30), 31-60, 61-90, >90."
)
CHANGES_RULE: Final = (
    "sevDesk has no webhooks: lists were read with updateAfter where documented (contacts, "
    "invoices, orders, receipts), and each object's last update was checked here."
)


class Aging(msgspec.Struct, frozen=True, kw_only=True):
    """Open amounts of one currency by days overdue; the buckets add up to ``total``."""

    currency: str
    not_due: Money
    days_0_30: Money
    days_31_60: Money
    days_61_90: Money
    days_over_90: Money
    total: Money


class ContactOpen(msgspec.Struct, frozen=True, kw_only=True):
    """What one contact owes or is owed, in one currency."""

    contact_id: int | None
    name: Untrusted | None
    items: int
    aging: Aging


class OpenSide(msgspec.Struct, frozen=True, kw_only=True):
    """Receivables or payables: totals, aging overall, and the contacts with most open."""

    totals: list[Money]
    items: int
    aging: list[Aging]
    top_contacts: list[ContactOpen]
    contacts_total: int
    note: str | None


class OpenItems(msgspec.Struct, frozen=True, kw_only=True):
    """Open receivables and payables as of a date, with the rule used."""

    as_of: dt.date
    rule: str
    receivables: OpenSide
    payables: OpenSide


class AccountBalance(msgspec.Struct, frozen=True, kw_only=True):
    """The balance of one active check account."""

    id: int
    name: Untrusted | None
    type: str
    balance: Money


class CashPosition(msgspec.Struct, frozen=True, kw_only=True):
    """Cash at a date plus open receivables minus open payables, per currency."""

    on_date: dt.date
    accounts: list[AccountBalance]
    cash_totals: list[Money]
    receivables: list[Money]
    payables: list[Money]
    net_position: list[Money]
    rule: str


class Change(msgspec.Struct, frozen=True, kw_only=True):
    """One object that changed."""

    id: int
    kind: str
    label: Untrusted | None
    updated_at: dt.datetime | None


class KindChanges(msgspec.Struct, frozen=True, kw_only=True):
    """The changes of one kind of object, newest first."""

    kind: str
    count: int
    items: list[Change]
    note: str | None


class Changes(msgspec.Struct, frozen=True, kw_only=True):
    """What changed since a moment, per kind."""

    since: dt.datetime
    kinds: list[KindChanges]
    rule: str


class Item(msgspec.Struct, frozen=True):
    """One open document: who, how much (exact, signed), when issued and when due."""

    contact_id: int | None
    name: str | None
    currency: str
    amount: Decimal
    issued: dt.date
    due: dt.date


async def open_items(client: SevdeskPort, as_of: dt.date, top: int) -> OpenItems:
    """:returns: open receivables and payables as of ``as_of`` with aging and top contacts.

    The contact list (the names) is needed only when there is an open item: it is read as soon
    as the first list shows one, together with the rest of the documents, and not at all
    without one.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    signal = _Wanted()
    (receivables, payables, cut), names = await both(
        lambda: _read_and_tell(client, as_of, signal), lambda: _names_when_wanted(client, signal)
    )
    note = f"Only the first {MAX_SCANNED} objects of a list were read." if cut else None
    return OpenItems(
        as_of=as_of,
        rule=OPEN_ITEMS_RULE,
        receivables=_side(receivables, as_of, top, names, note),
        payables=_side(payables, as_of, top, names, note),
    )


class _Wanted:
    """Whether the contact names are needed, told once the first open item is seen or once
    every list was read without one."""

    def __init__(self) -> None:
        self.told = anyio.Event()
        self.wanted = False

    def found(self) -> None:
        """An open item was seen: the names are needed."""
        self.wanted = True
        self.told.set()


async def _read_and_tell(
    client: SevdeskPort, as_of: dt.date, signal: _Wanted
) -> tuple[list[Item], list[Item], bool]:
    """:returns: what :func:`read_open_items` returns, telling ``signal`` on the way.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    try:
        return await read_open_items(client, as_of, signal.found)
    finally:
        signal.told.set()


async def _names_when_wanted(client: SevdeskPort, signal: _Wanted) -> dict[int, str]:
    """:returns: the contact names once an open item was seen; none without one.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    await signal.told.wait()
    return await _contact_names(client) if signal.wanted else {}


async def read_open_items(
    client: SevdeskPort, as_of: dt.date, found: Callable[[], None] | None = None
) -> tuple[list[Item], list[Item], bool]:
    """:returns: the open receivables, the open payables, and whether a list was cut short.

    :param found: told each time a list (invoices, credit notes, receipts) was read and holds
        an open item.
    :raises UpstreamError: if sevDesk cannot be read.
    """

    def kept(items: list[Item]) -> list[Item]:
        chosen = [i for i in items if i.issued <= as_of and i.amount]
        if chosen and found is not None:
            found()
        return chosen

    (invoices, cut_invoices), (notes, cut_notes), (receipts, cut_receipts) = await both(
        lambda: _open_document_items(client, "/Invoice", 1, kept),
        lambda: _open_document_items(client, "/CreditNote", -1, kept),
        lambda: _open_payable_items(client, kept),
    )
    return invoices + notes, receipts, cut_invoices or cut_notes or cut_receipts


async def _open_document_items(
    client: SevdeskPort, path: str, sign: int, kept: Callable[[list[Item]], list[Item]]
) -> tuple[list[Item], bool]:
    """:returns: the open items of the documents at ``path`` as ``kept`` keeps them, and
    whether a list was cut short.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    documents, cut = await _open_documents(client, path)
    return kept(_document_items(documents, sign)), cut


async def _open_payable_items(
    client: SevdeskPort, kept: Callable[[list[Item]], list[Item]]
) -> tuple[list[Item], bool]:
    """:returns: the open payables as ``kept`` keeps them, and whether a list was cut short.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    receipts, cut = await _open_payables(client)
    return kept([_voucher_item(v) for v in receipts]), cut


async def cash_position(client: SevdeskPort, on_date: dt.date) -> CashPosition:
    """:returns: the balances of the active check accounts at ``on_date``, the open receivables
    and payables (the rule of :func:`open_items`) and the net position, per currency.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    balances, (receivables, payables, _) = await both(
        lambda: _balances(client, on_date), lambda: read_open_items(client, on_date)
    )
    cash = totals_by_currency(b.balance for b in balances)
    owed = rounded_totals((i.amount, i.currency) for i in receivables)
    owing = rounded_totals((i.amount, i.currency) for i in payables)
    negated = (Money(amount=-m.amount, currency=m.currency) for m in owing)
    return CashPosition(
        on_date=on_date,
        accounts=balances,
        cash_totals=cash,
        receivables=owed,
        payables=owing,
        net_position=totals_by_currency([*cash, *owed, *negated]),
        rule="Net position = cash + open receivables - open payables. " + OPEN_ITEMS_RULE,
    )


async def _balances(client: SevdeskPort, on_date: dt.date) -> list[AccountBalance]:
    active = [a for a in await banking.read_accounts(client) if a.status == banking.ACTIVE]
    amounts = await each([_balance_of(client, a, on_date) for a in active])
    return [
        AccountBalance(id=a.id, name=fence(a.name), type=a.type or "unknown", balance=amount)
        for a, amount in zip(active, amounts, strict=True)
    ]


def _balance_of(
    client: SevdeskPort, account: CheckAccount, on_date: dt.date
) -> Callable[[], Awaitable[Money]]:
    return lambda: banking.balance_at(client, account, on_date)


def bucket(due: dt.date, as_of: dt.date) -> str:
    """:returns: the aging bucket of an item due on ``due``, seen on ``as_of``."""
    overdue = (as_of - due).days
    if overdue <= 0:
        return "not_due"
    if overdue <= 30:
        return "days_0_30"
    if overdue <= 60:
        return "days_31_60"
    return "days_61_90" if overdue <= 90 else "days_over_90"


async def _open_documents(client: SevdeskPort, path: str) -> tuple[list[OpenDocument], bool]:
    # each status is asked for, then checked again and each document kept once (Q12)
    lists = await each([_listing(client, path, {"status": s}) for s in OPEN_DOCUMENTS])
    docs = {d.id: d for found, _ in lists for d in found}
    return [d for d in docs.values() if d.status in OPEN_DOCUMENTS], any(cut for _, cut in lists)


async def _open_payables(client: SevdeskPort) -> tuple[list[Voucher], bool]:
    # §3.2: C is an expense; status and kind are checked again here (Q12)
    reads = await each(
        [_receipts(client, {"status": s, "creditDebit": "C"}) for s in OPEN_PAYABLES]
    )
    found = {r.voucher.id: r.voucher for rows, _ in reads for r in rows}  # once, however listed
    open_ones = [v for v in found.values() if v.status in OPEN_PAYABLES and v.creditDebit == "C"]
    return open_ones, any(cut for _, cut in reads)


def _listing(
    client: SevdeskPort, path: str, query: dict[str, QueryValue]
) -> Callable[[], Awaitable[tuple[list[OpenDocument], bool]]]:
    return lambda: _documents(client, path, query)


async def _documents(
    client: SevdeskPort, path: str, query: dict[str, QueryValue]
) -> tuple[list[OpenDocument], bool]:
    """:returns: the documents of one list (converted page by page as they arrive), and
    whether it was cut short.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    with parsed.pages_as(path, OpenDocument):
        page = await client.get_all(path, query, max_items=MAX_SCANNED)
    return parsed.records(page, OpenDocument), page.truncated


def _receipts(
    client: SevdeskPort, query: dict[str, QueryValue]
) -> Callable[[], Awaitable[tuple[list[vouchers.Read], bool]]]:
    return lambda: vouchers.read_vouchers(client, query)


def _document_items(documents: list[OpenDocument], sign: int) -> list[Item]:
    """:returns: an item per document; the Berlin day of a document date is worked out once
    per date (thousands of documents have few dates)."""
    days: dict[dt.datetime | None, dt.date] = {}
    items = []
    for doc in documents:
        moment = doc.date()
        issued = days.get(moment)
        if issued is None:
            issued = days[moment] = dates.berlin_date(moment) or dt.date.min
        items.append(_document_item(doc, sign, issued))
    return items


def _document_item(doc: OpenDocument, sign: int, issued: dt.date) -> Item:
    dated = issued != dt.date.min  # an undated document has no due date to move
    return Item(
        contact_id=doc.contact.id if doc.contact else None,
        name=None,
        currency=(doc.currency or "EUR").upper(),
        amount=sign * ((doc.sumGross or ZERO) - (doc.paidAmount or ZERO)),
        issued=issued,
        due=issued + dt.timedelta(days=doc.timeToPay or 0) if sign > 0 and dated else issued,
    )


def _voucher_item(voucher: Voucher) -> Item:
    issued = dates.berlin_date(voucher.voucherDate) or dt.date.min
    return Item(
        contact_id=voucher.supplier.id if voucher.supplier else None,
        name=vouchers.supplier_name(voucher),
        currency=(voucher.currency or "EUR").upper(),
        amount=vouchers.open_amount(voucher),
        issued=issued,
        due=dates.berlin_date(voucher.paymentDeadline) or issued,
    )


def _side(
    items: list[Item], as_of: dt.date, top: int, names: dict[int, str], note: str | None
) -> OpenSide:
    overall = _Tally()
    groups: defaultdict[tuple[int | None, str | None, str], _Tally] = defaultdict(_Tally)
    for item in items:
        name = names.get(item.contact_id, item.name) if item.contact_id else item.name
        bucket_of = bucket(item.due, as_of)
        overall.add(item, bucket_of)
        groups[item.contact_id, name, item.currency].add(item, bucket_of)
    rows = [
        ContactOpen(contact_id=ident, name=fence(name), items=tally.count, aging=tally.aging()[0])
        for (ident, name, _), tally in groups.items()
    ]
    rows.sort(key=lambda r: (-r.aging.total.amount, r.contact_id or 0))
    return OpenSide(
        totals=rounded_totals((i.amount, i.currency) for i in items),
        items=len(items),
        aging=overall.aging(),
        top_contacts=rows[:top],
        contacts_total=len(rows),
        note=note or _more(len(rows) - top),
    )


def _more(hidden: int) -> str | None:
    return f"{hidden} more contacts not shown; raise top to see them." if hidden > 0 else None


class _Tally:
    """Open amounts by currency and aging bucket (exact), and how many items were added."""

    def __init__(self) -> None:
        self.count = 0
        self._sums: dict[str, dict[str, Decimal]] = {}

    def add(self, item: Item, bucket_of: str) -> None:
        """Count ``item`` in ``bucket_of``."""
        self.count += 1
        sums = self._sums.get(item.currency)
        if sums is None:
            sums = self._sums[item.currency] = dict.fromkeys(BUCKETS, ZERO)
        sums[bucket_of] += item.amount

    def aging(self) -> list[Aging]:
        """:returns: the aging per currency, sorted by currency."""
        return [_aging(currency, sums) for currency, sums in sorted(self._sums.items())]


def _aging(currency: str, sums: dict[str, Decimal]) -> Aging:
    return Aging(
        currency=currency,
        not_due=money(sums["not_due"], currency),
        days_0_30=money(sums["days_0_30"], currency),
        days_31_60=money(sums["days_31_60"], currency),
        days_61_90=money(sums["days_61_90"], currency),
        days_over_90=money(sums["days_over_90"], currency),
        total=money(sum(sums.values(), ZERO), currency),
    )


async def _contact_names(client: SevdeskPort) -> dict[int, str]:
    with parsed.pages_as("/Contact", wire.ContactName):
        page = await client.get_all(
            "/Contact", {"depth": 1}, max_items=contacts.MAX_SCANNED_CONTACTS
        )
    return {c.id: contacts.display_name(c) for c in parsed.records(page, wire.ContactName)}


class _Source(msgspec.Struct, frozen=True):
    kind: str
    path: str
    query: dict[str, QueryValue]
    update_after: bool  # documented for this list (spec: Contact, Invoice, Order, Voucher)
    label: Callable[[dict[str, JsonValue]], str]


def _document_label(raw: dict[str, JsonValue]) -> str:
    doc = wire.parse(raw, Document)
    return doc.number() or f"draft {doc.header or ''}"


def _voucher_label(raw: dict[str, JsonValue]) -> str:
    voucher = wire.parse(raw, Voucher)
    parts = (voucher.description, vouchers.supplier_name(voucher))
    return " ".join(p for p in parts if p)


def _transaction_label(raw: dict[str, JsonValue]) -> str:
    tx = wire.parse(raw, CheckAccountTransaction)
    amount = "" if tx.amount is None else f"{tx.amount} "
    return f"{amount}{tx.payeePayerName or ''}: {tx.paymtPurpose or ''}"


def _contact_label(raw: dict[str, JsonValue]) -> str:
    return contacts.display_name(wire.parse(raw, wire.Contact))


SOURCES: Final = (
    _Source("contact", "/Contact", {"depth": 1}, True, _contact_label),
    _Source("invoice", "/Invoice", {}, True, _document_label),
    _Source("credit_note", "/CreditNote", {}, False, _document_label),
    _Source("order", "/Order", {}, True, _document_label),
    _Source("voucher", "/Voucher", {}, True, _voucher_label),
    _Source("transaction", "/CheckAccountTransaction", {}, False, _transaction_label),
)


class _Stamp(msgspec.Struct, frozen=True):
    id: int
    update: dt.datetime | None = None


async def changed_since(client: SevdeskPort, since: dt.datetime, limit: int) -> Changes:
    """:returns: per kind of object, how many changed after ``since`` and the newest of them.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    kinds = await each([_changes_of(client, source, since, limit) for source in SOURCES])
    return Changes(since=since.astimezone(dates.BERLIN), kinds=kinds, rule=CHANGES_RULE)


def _changes_of(
    client: SevdeskPort, source: _Source, since: dt.datetime, limit: int
) -> Callable[[], Awaitable[KindChanges]]:
    return lambda: _changes(client, source, since, limit)


async def _changes(
    client: SevdeskPort, source: _Source, since: dt.datetime, limit: int
) -> KindChanges:
    query = dict(source.query)
    if source.update_after:
        query["updateAfter"] = int(since.timestamp())
    page = await client.get_all(source.path, query, max_items=MAX_SCANNED)
    stamps = [(wire.parse(raw, _Stamp), raw) for raw in page.items]
    changed = [(_aware(s.update).astimezone(dates.BERLIN), s.id, r) for s, r in stamps if s.update]
    changed = sorted((c for c in changed if c[0] > since), key=lambda c: c[:2], reverse=True)  # Q12
    items = [
        Change(id=i, kind=source.kind, label=fence(source.label(r)[:MAX_LABEL]), updated_at=m)
        for m, i, r in changed[:limit]
    ]
    note = omitted_note(len(items), len(changed), f"{source.kind} changes")
    if page.truncated:
        note = f"Only the first {MAX_SCANNED} objects of this kind were read."
    return KindChanges(kind=source.kind, count=len(changed), items=items, note=note)


def _aware(moment: dt.datetime) -> dt.datetime:
    return moment.replace(tzinfo=dates.BERLIN) if moment.tzinfo is None else moment
