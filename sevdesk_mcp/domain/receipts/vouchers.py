"""Receipts (vouchers): search them with totals, read one with its positions and booking accounts.

- The filters sevDesk offers (``status``, ``creditDebit``, ``descriptionLike``, ``startDate``/
  ``endDate`` as Berlin Unix seconds, Q19) are sent, and every filter is applied again here,
  because unknown filters are silently ignored (Q12). The supplier is matched here only.
- ``creditDebit`` C is an expense, D revenue (§3.2); ``description`` is the receipt number (Q39).
- The booking account lives on each position (Q43): ``accountDatev`` on bookkeeping 2.0,
  ``accountingType`` on 1.0. Each object is read by what it carries (§3.4, §3.5). Booking
  accounts come from the account's list (reference data, cached; it lists visible accounts
  only, Q42), a hidden or legacy one by its id.
- The receipt, its positions and the system version are read together, then the tax rule and
  the booking accounts together (``together.py``).
"""

from __future__ import annotations

import datetime as dt
import functools
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.common import omitted_note, web_link
from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.lifecycle_table import names, open_statuses
from sevdesk_mcp.domain.money import ZERO, Money, money, total, totals_by_currency
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.errors import NotFoundError, UpstreamValidationError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.sevdesk.together import both, each
from sevdesk_mcp.sevdesk.version import System, object_system
from sevdesk_mcp.sevdesk.wire_finance import AccountingType, Voucher, VoucherPos

MAX_SCANNED: Final = 20_000
MAX_POSITIONS: Final = 1_000
MAX_ACCOUNTS: Final = 5_000  # as ``reference.MAX_REFERENCE_ITEMS``: one cached list for both
STATUSES: Final = names("voucher")
OPEN_STATUSES: Final = open_statuses("voucher")
KINDS: Final = {"C": "expense", "D": "revenue"}
StatusFilter = Literal["any", "draft", "open", "transferred", "partially_paid", "paid"]
KindFilter = Literal["any", "expense", "revenue"]
_STATUS_CODES: Final = {word: code for code, word in STATUSES.items()}
_CREDIT_DEBIT: Final = {word: code for code, word in KINDS.items()}


class VoucherSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One receipt. ``open`` is what is still to pay on an open, transferred or partly paid one."""

    id: int
    date: dt.date | None
    supplier: Untrusted | None
    supplier_id: int | None
    receipt_number: Untrusted | None
    status: str
    kind: str
    gross: Money
    net: Money
    tax: Money
    paid: Money
    open: Money
    payment_deadline: dt.date | None
    bookkeeping_system: str
    link: str | None


class VoucherList(msgspec.Struct, frozen=True, kw_only=True):
    """Receipts matching a search, newest first; the totals cover every match."""

    vouchers: list[VoucherSummary]
    total_matches: int
    gross_totals: list[Money]
    open_totals: list[Money]
    note: str | None


class BookingAccount(msgspec.Struct, frozen=True, kw_only=True):
    """A booking account: ``AccountDatev`` (2.0) or ``AccountingType`` (1.0)."""

    system: str
    id: int
    number: str | None
    name: str | None


class TaxRule(msgspec.Struct, frozen=True, kw_only=True):
    """The tax rule of a 2.0 receipt."""

    id: int
    code: str | None
    name: str | None


class VoucherPosition(msgspec.Struct, frozen=True, kw_only=True):
    """A position of a receipt with its booking account."""

    id: int
    text: Untrusted | None
    tax_rate: Decimal | None
    net: Money
    tax: Money
    gross: Money
    booking_account: BookingAccount | None
    bookkeeping_system: str


class VoucherDetail(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt with its positions, its tax rule (2.0) or tax type (1.0)."""

    voucher: VoucherSummary
    tax_rule: TaxRule | None
    tax_type: str | None
    positions: list[VoucherPosition]
    note: str | None


class Search(msgspec.Struct, frozen=True):
    """What to look for; ``status`` is one status or several (any of them)."""

    status: StatusFilter | tuple[StatusFilter, ...] = "any"
    kind: KindFilter = "any"
    supplier: str | None = None
    receipt_number: str | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    limit: int = 25


class Read(msgspec.Struct, frozen=True):
    """A voucher as sent and as parsed, with its bookkeeping generation."""

    voucher: Voucher
    system: System


async def read_vouchers(
    client: SevdeskPort, query: dict[str, QueryValue]
) -> tuple[list[Read], bool]:
    """:returns: every voucher sevDesk lists for ``query``, and whether the scan was cut short.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    account, page = await both(
        lambda: _account_system(client),
        lambda: client.get_all("/Voucher", query, max_items=MAX_SCANNED),
    )
    rows = [Read(wire.parse(r, Voucher), object_system(r, account)) for r in page.items]
    return rows, page.truncated


async def search_vouchers(client: SevdeskPort, api_url: str, search: Search) -> VoucherList:
    """:returns: the matching receipts, newest first, with gross and open totals of all matches.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    rows, truncated = await read_vouchers(client, _query(search))
    matches = sorted((r for r in rows if _matches(r.voucher, search)), key=_newest, reverse=True)
    summaries = [summarize(r, api_url) for r in matches]
    note = omitted_note(min(search.limit, len(matches)), len(matches), "receipts")
    if truncated:
        note = f"Only the first {MAX_SCANNED} receipts sevDesk listed were searched."
    return VoucherList(
        vouchers=summaries[: search.limit],
        total_matches=len(matches),
        gross_totals=totals_by_currency(s.gross for s in summaries),
        open_totals=totals_by_currency(s.open for s in summaries),
        note=note,
    )


async def get_voucher(client: SevdeskPort, api_url: str, voucher_id: int) -> VoucherDetail:
    """:returns: the receipt with its positions, booking accounts and tax rule or tax type.

    :raises NotFoundError: if there is no such receipt.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    query: dict[str, QueryValue] = {"voucher[id]": voucher_id, "voucher[objectName]": "Voucher"}
    raw, page, account = await both(
        lambda: read_raw(client, "Voucher", voucher_id),
        lambda: client.get_all("/VoucherPos", query, max_items=MAX_POSITIONS),
        lambda: _account_system(client),
    )
    read = Read(wire.parse(raw, Voucher), object_system(raw, account))
    parsed = [(r, p) for r in page.items if _belongs(p := wire.parse(r, VoucherPos), voucher_id)]
    resolver = AccountResolver(client)
    tax_rule, _ = await both(
        lambda: _tax_rule(client, read.voucher.taxRule),
        lambda: resolver.load([p for _, p in parsed]),
    )
    positions = [
        _position(r, pos, read.voucher.currency, read.system, resolver.resolve(pos))
        for r, pos in parsed
    ]
    summary = summarize(read, api_url)
    return VoucherDetail(
        voucher=summary,
        tax_rule=tax_rule,
        tax_type=clean(read.voucher.taxType) or None if read.voucher.taxType else None,
        positions=positions,
        note=_sum_note(summary.gross, [p.gross for p in positions]),
    )


def summarize(read: Read, api_url: str) -> VoucherSummary:
    """:returns: the list form of a receipt, supplier and receipt number fenced."""
    v = read.voucher
    return VoucherSummary(
        id=v.id,
        date=dates.berlin_date(v.voucherDate),
        supplier=fence(supplier_name(v)),
        supplier_id=v.supplier.id if v.supplier else None,
        receipt_number=fence(v.description),
        status=STATUSES.get(v.status or 0, f"status {v.status}"),
        kind=KINDS.get(v.creditDebit or "", "unknown"),
        gross=money(v.sumGross, v.currency),
        net=money(v.sumNet, v.currency),
        tax=money(v.sumTax, v.currency),
        paid=money(v.paidAmount, v.currency),
        open=money(open_amount(v), v.currency),
        payment_deadline=dates.berlin_date(v.paymentDeadline),
        bookkeeping_system=read.system,
        link=web_link(api_url, f"fi/edit/type/VOU/id/{v.id}"),
    )


def supplier_name(voucher: Voucher) -> str | None:
    """:returns: the supplier's name as saved on the receipt."""
    return voucher.supplierName or voucher.supplierNameAtSave


def open_amount(voucher: Voucher) -> Decimal:
    """:returns: gross minus paid for an open, transferred or partly paid receipt, else zero."""
    if voucher.status not in OPEN_STATUSES:
        return ZERO
    return (voucher.sumGross or ZERO) - (voucher.paidAmount or ZERO)


class AccountResolver:
    """Resolves the booking accounts of positions to number and name: 2.0 accounts from the
    account's list (cached reference data), a hidden or 1.0 account by its id (Q42)."""

    def __init__(self, client: SevdeskPort) -> None:
        self._client = client
        self._found: dict[tuple[str, int], BookingAccount] = {}

    async def load(self, positions: list[VoucherPos]) -> None:
        """Read the booking accounts of ``positions``, each once; the by-id reads together.

        :raises UpstreamError: if sevDesk cannot be read (an unknown account is no error).
        """
        keys = {k for k in map(_account_key, positions) if k is not None}
        if any(model == "AccountDatev" for model, _ in keys):
            rows = await self._client.get_all("/AccountDatev", max_items=MAX_ACCOUNTS)
            for datev in wire.parse_all(rows.items, wire.AccountDatev):
                self._found["AccountDatev", datev.id] = _datev(datev)
        missing = sorted(k for k in keys if k not in self._found)
        loaded = await each([functools.partial(self._load, *k) for k in missing])
        self._found.update(zip(missing, loaded, strict=True))

    def resolve(self, position: VoucherPos) -> BookingAccount | None:
        """:returns: the position's booking account (after :meth:`load`), ``None`` if none."""
        key = _account_key(position)
        return None if key is None else self._found.get(key)

    async def _load(self, model: str, ident: int) -> BookingAccount:
        system = "2.0" if model == "AccountDatev" else "1.0"
        try:
            raw = await read_raw(self._client, model, ident)
        except (NotFoundError, UpstreamValidationError):
            return BookingAccount(system=system, id=ident, number=None, name=None)
        if model == "AccountDatev":
            return _datev(wire.parse(raw, wire.AccountDatev))
        legacy = wire.parse(raw, AccountingType)
        number = None if legacy.skr03 is None else str(legacy.skr03)
        return BookingAccount(system=system, id=ident, number=number, name=_text(legacy.name))


def _account_key(position: VoucherPos) -> tuple[str, int] | None:
    if position.accountDatev is not None:
        return "AccountDatev", position.accountDatev.id
    if position.accountingType is not None:
        return "AccountingType", position.accountingType.id
    return None


def _datev(datev: wire.AccountDatev) -> BookingAccount:
    return BookingAccount(system="2.0", id=datev.id, number=datev.number, name=_text(datev.name))


def _position(
    raw: dict[str, JsonValue],
    pos: VoucherPos,
    currency: str | None,
    voucher_system: System,
    account: BookingAccount | None,
) -> VoucherPosition:
    return VoucherPosition(
        id=pos.id,
        text=fence(pos.comment),  # Q43: the position text is ``comment``
        tax_rate=pos.taxRate,
        net=money(pos.sumNet, currency),  # Q40: positions carry no currency of their own
        tax=money(pos.sumTax, currency),
        gross=money(pos.sumGross, currency),
        booking_account=account,
        bookkeeping_system=object_system(raw, voucher_system),  # a bare position: its receipt's
    )


async def _tax_rule(client: SevdeskPort, ref: wire.Ref | None) -> TaxRule | None:
    if ref is None:
        return None
    page = await client.get_all("/TaxRule", max_items=MAX_ACCOUNTS)  # the reference list's key
    rules = wire.parse_all(page.items, wire.TaxRule)
    rule = next((r for r in rules if r.id == ref.id), None)
    if rule is None:
        return TaxRule(id=ref.id, code=None, name=None)
    return TaxRule(id=rule.id, code=rule.code, name=_text(rule.name))


async def _account_system(client: SevdeskPort) -> System:
    return "2.0" if await client.system_version() == "2.0" else "1.0"


def _query(search: Search) -> dict[str, QueryValue]:
    query: dict[str, QueryValue] = {}
    codes = _codes(search)
    if codes is not None and len(codes) == 1:  # several: sevDesk filters on one status only
        query["status"] = next(iter(codes))
    if search.kind != "any":
        query["creditDebit"] = _CREDIT_DEBIT[search.kind]
    if search.receipt_number:
        query["descriptionLike"] = search.receipt_number
    if search.date_from:
        query["startDate"] = start_bound(search.date_from)
    if search.date_to:
        query["endDate"] = dates.unix_end(search.date_to)
    return query


def _matches(voucher: Voucher, search: Search) -> bool:
    # every filter again: sevDesk ignores filters it does not know (Q12)
    codes = _codes(search)
    if codes is not None and voucher.status not in codes:
        return False
    if search.kind != "any" and voucher.creditDebit != _CREDIT_DEBIT[search.kind]:
        return False
    if not in_range(dates.berlin_date(voucher.voucherDate), search.date_from, search.date_to):
        return False
    return contains(supplier_name(voucher), search.supplier) and contains(
        voucher.description, search.receipt_number
    )


def _codes(search: Search) -> frozenset[int] | None:
    """:returns: the status codes searched for; ``None`` for any status."""
    words = (search.status,) if isinstance(search.status, str) else search.status
    if "any" in words or not words:
        return None
    return frozenset(_STATUS_CODES[w] for w in words)


def start_bound(day: dt.date) -> int:
    """:returns: the ``startDate`` for a range from ``day``: Unix seconds (Q19), one second before
    the Berlin midnight that dates are stored at, as the spec says "bigger than"; the range is
    checked again here, exactly."""
    return dates.unix_start(day) - 1


def in_range(day: dt.date | None, start: dt.date | None, end: dt.date | None) -> bool:
    """:returns: whether ``day`` lies within the optional bounds (an unknown day lies nowhere)."""
    if start is None and end is None:
        return True
    if day is None:
        return False
    return (start is None or day >= start) and (end is None or day <= end)


def contains(text: str | None, needle: str | None) -> bool:
    """:returns: whether the cleaned ``text`` holds ``needle``, ignoring case (no needle: yes)."""
    if not needle:
        return True
    return clean(needle).casefold() in clean(text or "").casefold()


def _newest(read: Read) -> tuple[dt.date, int]:
    return dates.berlin_date(read.voucher.voucherDate) or dt.date.min, read.voucher.id


def _belongs(position: VoucherPos, voucher_id: int) -> bool:
    # the filter is applied by sevDesk; checked again because unknown filters are ignored (Q12)
    return position.voucher is not None and position.voucher.id == voucher_id


def _sum_note(gross: Money, positions: list[Money]) -> str | None:
    summed = total(p.amount for p in positions)
    if not positions or summed == gross.amount:
        return None
    return f"The positions add up to {summed} {gross.currency}, the receipt says {gross.amount}."


def _text(value: str | None) -> str | None:
    return clean(value) or None if value else None
