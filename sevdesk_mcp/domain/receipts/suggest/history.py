"""What this company booked before, per supplier: the strongest evidence for a receipt's account
(german-tax-rules.md §3).

The finalized expense receipts (``GET /Voucher``, status 100 and above, ``creditDebit`` C) with
their positions (``/VoucherPos``), the contacts (VAT id, IBAN) and the booking accounts are read
as whole lists with explicit limits (as ``reports/books.py`` does), once per account: the result
is kept in the account's reference cache (``sevdesk/cache.py``, 5 minutes). Each receipt counts
once, with the account, tax rule and rate of its main position (the largest net); a supplier is
known by its contact, VAT id, IBAN and normalised name (legal-form words dropped).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterator
from decimal import Decimal
from typing import Final, Protocol, TypeVar, runtime_checkable

import msgspec

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.suggest.foreign import SupplierFacts
from sevdesk_mcp.domain.receipts.suggest.text import words
from sevdesk_mcp.domain.receipts.suppliers import SupplierContact
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.together import both
from sevdesk_mcp.sevdesk.wire_finance import Voucher, VoucherPos

MAX_RECEIPTS: Final = 20_000
MAX_CONTACTS: Final = 20_000
MAX_ACCOUNTS: Final = 5_000  # as ``vouchers.MAX_ACCOUNTS``: one cached list for all readers
FINALIZED_FROM: Final = 100  # 50 is a draft
CACHE_NAME: Final = "receipt-history"
LEGAL_FORMS: Final = frozenset(
    {"gmbh", "mbh", "ag", "kg", "ohg", "ug", "co", "se", "ek", "ev", "gbr", "haftungsbeschrankt",
     "ltd", "limited", "inc", "llc", "plc", "bv", "nv", "sa", "sas", "sarl", "srl", "spa", "ab",
     "as", "oy", "corp", "corporation", "company", "und", "the"}
)  # fmt: skip
T = TypeVar("T")
Key = tuple[str, str]


@runtime_checkable
class Remembers(Protocol):
    """A sevDesk port that keeps derived values in the account's reference cache."""

    async def remembered(self, name: str, fetch: Callable[[SevdeskPort], Awaitable[T]]) -> T:
        """:returns: the cached value of ``name``, or what ``fetch`` reads through the port it
        is given (then kept)."""
        ...


class Booked(msgspec.Struct, frozen=True, kw_only=True):
    """How the company booked a supplier's receipts: account, tax rule, rate, how often."""

    account: str
    rule: int | None
    rate: Decimal
    times: int
    last: dt.date | None


class Seen(msgspec.Struct, frozen=True, kw_only=True):
    """A supplier's earlier receipts: how the supplier was recognised and how they were booked,
    the most frequent first."""

    matched_by: str
    receipts: int
    booked: list[Booked]


class _Entry(msgspec.Struct, frozen=True):
    account: str
    rule: int | None
    rate: Decimal
    day: dt.date | None


class History:
    """The company's finalized expense receipts, indexed by supplier key."""

    def __init__(
        self,
        entries: dict[Key, list[_Entry]],
        truncated: bool,
        contacts: dict[int, SupplierContact] | None = None,
    ) -> None:
        self._entries = entries
        self._contacts = contacts or {}
        self.truncated = truncated
        self.receipts = len({id(e) for found in entries.values() for e in found})

    def completed(self, supplier: SupplierFacts) -> SupplierFacts:
        """:returns: ``supplier`` with the VAT id, IBAN and name of its contact where the
        caller gave only the contact."""
        contact = self._contacts.get(supplier.contact_id or 0)
        if contact is None:
            return supplier
        return msgspec.structs.replace(
            supplier,
            name=supplier.name or contact.name,
            vat_id=supplier.vat_id or contact.vatNumber,
            iban=supplier.iban or contact.bankAccount,
        )

    def seen(self, supplier: SupplierFacts) -> Seen | None:
        """:returns: the earlier receipts of ``supplier`` by the strongest key that finds any
        (contact, VAT id, IBAN, name), or ``None``."""
        for key, how in _keys(supplier):
            found = self._entries.get(key)
            if found:
                return Seen(matched_by=how, receipts=len(found), booked=_counted(found))
        return None


async def load_history(client: SevdeskPort) -> History:
    """:returns: the history, from the account's reference cache where the port keeps one.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    if isinstance(client, Remembers):
        return await client.remembered(CACHE_NAME, _read)
    return await _read(client)


async def _read(client: SevdeskPort) -> History:
    """:raises UpstreamError: if sevDesk cannot be read."""
    receipts, positions, contacts, accounts = await both(
        lambda: client.get_all("/Voucher", max_items=MAX_RECEIPTS),
        lambda: client.get_all("/VoucherPos", max_items=MAX_RECEIPTS),
        lambda: client.get_all("/Contact", {"depth": 1}, max_items=MAX_CONTACTS),
        lambda: client.get_all("/AccountDatev", max_items=MAX_ACCOUNTS),
    )
    numbers = {
        a.id: a.number for a in wire.parse_all(accounts.items, wire.AccountDatev) if a.number
    }
    people = {c.id: c for c in wire.parse_all(contacts.items, SupplierContact)}
    mains = _main_positions(wire.parse_all(positions.items, VoucherPos), numbers)
    entries: defaultdict[Key, list[_Entry]] = defaultdict(list)
    for voucher in wire.parse_all(receipts.items, Voucher):
        main = mains.get(voucher.id)
        if main is None or not _finalized_expense(voucher):
            continue
        entry = _Entry(main[0], voucher.taxRule.id if voucher.taxRule else None, main[1],
                       dates.berlin_date(voucher.voucherDate))  # fmt: skip
        for key in _voucher_keys(voucher, people):
            entries[key].append(entry)
    truncated = any(p.truncated for p in (receipts, positions, contacts))
    return History(dict(entries), truncated, people)


def _finalized_expense(voucher: Voucher) -> bool:
    return voucher.creditDebit == "C" and (voucher.status or 0) >= FINALIZED_FROM


def _main_positions(
    positions: list[VoucherPos], numbers: dict[int, str]
) -> dict[int, tuple[str, Decimal]]:
    """:returns: per receipt, the account number and rate of its largest position."""
    best: dict[int, tuple[Decimal, str, Decimal]] = {}
    for pos in positions:
        number = numbers.get(pos.accountDatev.id) if pos.accountDatev else None
        if pos.voucher is None or number is None:
            continue
        net = abs(pos.sumNet or ZERO)
        if pos.voucher.id not in best or net > best[pos.voucher.id][0]:
            best[pos.voucher.id] = (net, number, pos.taxRate or ZERO)
    return {voucher: (number, rate) for voucher, (_, number, rate) in best.items()}


def _voucher_keys(voucher: Voucher, people: dict[int, SupplierContact]) -> set[Key]:
    contact = people.get(voucher.supplier.id) if voucher.supplier else None
    facts = SupplierFacts(
        contact_id=contact.id if contact else None,
        name=voucher.supplierName or voucher.supplierNameAtSave,
        vat_id=contact.vatNumber if contact else None,
        iban=contact.bankAccount if contact else None,
    )
    keys = {key for key, _ in _keys(facts)}
    if contact is not None and contact.name:
        keys.add(("name", normalised(contact.name)))
    return {key for key in keys if key[1]}


def _keys(supplier: SupplierFacts) -> Iterator[tuple[Key, str]]:
    """:returns: the supplier's keys, strongest first, each with how it matches in words."""
    if supplier.contact_id is not None:
        yield ("contact", str(supplier.contact_id)), f"contact {supplier.contact_id}"
    if supplier.vat_id and _code(supplier.vat_id):
        yield ("vat", _code(supplier.vat_id)), "VAT id"
    if supplier.iban and _code(supplier.iban):
        yield ("iban", _code(supplier.iban)), "IBAN"
    if supplier.name and normalised(supplier.name):
        yield ("name", normalised(supplier.name)), "name"


def normalised(name: str) -> str:
    """:returns: a supplier name as history compares it: whole words, folded, without
    legal-form words ("Muster GmbH & Co. KG" is "muster")."""
    return " ".join(w for w in words(name) if w not in LEGAL_FORMS)


def _code(value: str) -> str:
    return "".join(value.split()).upper()


def _counted(found: list[_Entry]) -> list[Booked]:
    counts = Counter((e.account, e.rule, e.rate) for e in found)
    last: dict[tuple[str, int | None, Decimal], dt.date | None] = {}
    for e in found:
        key = (e.account, e.rule, e.rate)
        if e.day is not None and (last.get(key) is None or e.day > (last[key] or e.day)):
            last[key] = e.day
    return [
        Booked(account=a, rule=r, rate=rate, times=n, last=last.get((a, r, rate)))
        for (a, r, rate), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
    ]
