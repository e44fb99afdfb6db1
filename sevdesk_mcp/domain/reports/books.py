"""The books a tax figure is computed from: invoices, credit notes and receipts with their
positions, the payments booked on them, contacts, countries and booking accounts.

Every list is read to the end (up to :data:`MAX_SCANNED` objects) with an explicit ``limit``,
all lists together (``together.py``), and filtered here: sevDesk ignores filters it does not
know (Q12), so nothing is left to its filters. Amounts stay exact decimals; a credit note's
positions are positive in sevDesk and count with the sign -1 here; a cancellation invoice
(SR) carries negative positions itself.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.sevdesk.together import each
from sevdesk_mcp.sevdesk.wire_finance import CheckAccountTransaction, Voucher, VoucherPos
from sevdesk_mcp.sevdesk.wire_tax import Country, Payment, TaxDocument, TaxPosition

MAX_SCANNED: Final = 20_000
NOT_BOOKED_INVOICE_TYPES: Final = frozenset({"MA", "WKR"})  # reminders, recurring templates
DOCUMENT_DRAFT: Final = 100
RECURRING_OFF: Final = 50
RECEIPT_DRAFT: Final = 50
CLOSED: Final = 1000  # invoices, credit notes and receipts: paid, nothing more expected
_LISTS: Final[tuple[tuple[str, dict[str, QueryValue]], ...]] = (
    ("/Invoice", {}),
    ("/CreditNote", {}),
    ("/Voucher", {}),
    ("/InvoicePos", {}),
    ("/CreditNotePos", {}),
    ("/VoucherPos", {}),
    ("/CheckAccountTransactionLog", {}),
    ("/CheckAccountTransaction", {}),
    ("/Contact", {"depth": 1}),
    ("/StaticCountry", {}),
    ("/AccountDatev", {}),
)
_KINDS: Final = {"Invoice": "invoice", "CreditNote": "credit_note", "Voucher": "receipt"}


class Line(msgspec.Struct, frozen=True):
    """One position, signed as it counts: net, tax, rate and (receipts) booking account and
    text."""

    net: Decimal
    tax: Decimal
    rate: Decimal
    account: int | None = None
    text: str | None = None  # a receipt position's text (``comment``); a document's name + text
    asset: bool = False  # a receipt position marked ``isAsset`` (an asset, depreciated)


class DocumentFigure(msgspec.Struct, frozen=True, kw_only=True):
    """A document or receipt in a report: which one, and its net and tax there."""

    kind: str
    id: int
    number: Untrusted | None
    date: dt.date
    net: Decimal
    tax: Decimal


class Record(msgspec.Struct, frozen=True):
    """An invoice, credit note or receipt as the tax figures see it."""

    kind: str  # invoice, credit_note, receipt
    id: int
    number: str | None
    day: dt.date
    delivered: dt.date | None
    draft: bool
    revenue: bool
    rule: int | None
    contact_id: int | None
    country_id: int | None
    currency: str
    gross: Decimal  # signed as it counts
    own_net: Decimal  # sevDesk's own totals, signed as they count
    own_tax: Decimal
    lines: tuple[Line, ...] = ()
    paid: tuple[tuple[dt.date, Decimal], ...] = ()
    delivered_until: dt.date | None = None  # the end of a service period
    invoice_type: str | None = None  # RE, SR (cancellation), AR, TR, ER, …
    closed: bool = False  # status paid (1000): nothing more is expected, whatever was paid
    skonto: tuple[Decimal, int] | None = None  # cash discount granted: percent, days
    small_settlement: bool = False  # sevDesk marks the account a small business (§19)
    party: str = ""  # a receipt's supplier name and number, for the foreign-supplier check
    ibans: tuple[str, ...] = ()  # the counterparties' IBANs of the bank bookings on it

    @property
    def label(self) -> str:
        """:returns: how the record is named to a person (number, or kind and id)."""
        return self.number or f"{self.kind.replace('_', ' ')} {self.id}"


class Books(msgspec.Struct, frozen=True):
    """Everything the tax figures read, and whether a list was cut short."""

    records: list[Record]
    contacts: dict[int, wire.Contact]
    countries: dict[int, str]
    accounts: dict[int, wire.AccountDatev]
    truncated: bool


async def read_books(client: SevdeskPort) -> Books:
    """:returns: the account's documents, receipts and what they refer to.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    pages = await each([_reader(client, path, query) for path, query in _LISTS])
    inv, notes, receipts, inv_pos, note_pos, rec_pos, logs, moves, people, lands, accounts = pages
    paid = _payments(logs.items)
    ibans = _ibans(logs.items, moves.items)
    positions = _document_lines(inv_pos.items + note_pos.items)
    receipt_lines = _receipt_lines(rec_pos.items)
    records = [
        *(_document(d, "invoice", positions, paid) for d in _docs(inv.items)),
        *(_document(d, "credit_note", positions, paid) for d in _docs(notes.items)),
        *(
            _receipt(v, receipt_lines, paid, ibans.get(v.id, ()))
            for v in wire.parse_all(receipts.items, Voucher)
        ),
    ]
    return Books(
        records=[r for r in records if r is not None],
        contacts={c.id: c for c in wire.parse_all(people.items, wire.Contact)},
        countries={c.id: (c.code or "").upper() for c in wire.parse_all(lands.items, Country)},
        accounts={a.id: a for a in wire.parse_all(accounts.items, wire.AccountDatev)},
        truncated=any(p.truncated for p in pages),
    )


def _reader(
    client: SevdeskPort, path: str, query: Mapping[str, QueryValue]
) -> Callable[[], Awaitable[Page]]:
    async def read() -> Page:
        return await client.get_all(path, query, max_items=MAX_SCANNED)

    return read


def _docs(raw: list[dict[str, JsonValue]]) -> list[TaxDocument]:
    return wire.parse_all(raw, TaxDocument)


def _payments(
    raw: list[dict[str, JsonValue]],
) -> dict[tuple[str, int], list[tuple[dt.date, Decimal]]]:
    out: defaultdict[tuple[str, int], list[tuple[dt.date, Decimal]]] = defaultdict(list)
    for log in wire.parse_all(raw, Payment):
        day = dates.berlin_date(log.bookingDate)
        kind = _KINDS.get(log.object.objectName) if log.object else None
        if log.object and kind and day and log.amountPaid:
            out[kind, log.object.id].append((day, log.amountPaid))
    return out


def _ibans(
    logs: list[dict[str, JsonValue]], moves: list[dict[str, JsonValue]]
) -> dict[int, tuple[str, ...]]:
    """:returns: per receipt, the counterparty IBANs of the bank transactions booked on it."""
    accounts = {
        t.id: t.payeePayerAcctNo.replace(" ", "").upper()
        for t in wire.parse_all(moves, CheckAccountTransaction)
        if t.payeePayerAcctNo
    }
    out: defaultdict[int, list[str]] = defaultdict(list)
    for log in wire.parse_all(logs, Payment):
        ref = log.checkAccountTransaction
        moved = accounts.get(ref.id) if ref else None
        if log.object and log.object.objectName == "Voucher" and moved:
            out[log.object.id].append(moved)
    return {key: tuple(dict.fromkeys(found)) for key, found in out.items()}


def _document_lines(raw: list[dict[str, JsonValue]]) -> dict[tuple[str, int], list[Line]]:
    out: defaultdict[tuple[str, int], list[Line]] = defaultdict(list)
    for pos in wire.parse_all(raw, TaxPosition):
        if pos.optional:
            continue
        owner = ("invoice", pos.invoice.id) if pos.invoice else None
        if pos.creditNote:
            owner = ("credit_note", pos.creditNote.id)
        if owner:
            net = pos.sumNet or ZERO
            text = " ".join(part for part in (pos.name, pos.text) if part) or None
            out[owner].append(Line(net, pos.sumTax or ZERO, pos.taxRate or ZERO, text=text))
    return out


def _receipt_lines(raw: list[dict[str, JsonValue]]) -> dict[int, list[Line]]:
    out: defaultdict[int, list[Line]] = defaultdict(list)
    for pos in wire.parse_all(raw, VoucherPos):
        if pos.voucher:
            account = pos.accountDatev.id if pos.accountDatev else None
            net, tax, rate = pos.sumNet or ZERO, pos.sumTax or ZERO, pos.taxRate or ZERO
            line = Line(net, tax, rate, account, pos.comment, bool(pos.isAsset))
            out[pos.voucher.id].append(line)
    return out


def _document(
    doc: TaxDocument,
    kind: str,
    positions: dict[tuple[str, int], list[Line]],
    paid: dict[tuple[str, int], list[tuple[dt.date, Decimal]]],
) -> Record | None:
    day = dates.berlin_date(doc.date())
    if day is None or doc.type() in NOT_BOOKED_INVOICE_TYPES or doc.status == RECURRING_OFF:
        return None
    sign = -1 if kind == "credit_note" else 1
    lines = tuple(
        Line(sign * x.net, sign * x.tax, x.rate, text=x.text) for x in positions[kind, doc.id]
    )
    return Record(
        kind=kind,
        id=doc.id,
        number=doc.number(),
        day=day,
        delivered=dates.berlin_date(doc.deliveryDate),
        draft=doc.status == DOCUMENT_DRAFT,
        revenue=True,
        rule=doc.taxRule.id if doc.taxRule else None,
        contact_id=doc.contact.id if doc.contact else None,
        country_id=doc.addressCountry.id if doc.addressCountry else None,
        currency=(doc.currency or "EUR").upper(),
        gross=sign * (doc.sumGross or ZERO),
        own_net=sign * (doc.sumNet or ZERO),
        own_tax=sign * (doc.sumTax or ZERO),
        lines=lines,
        paid=_paid_of(paid.get((kind, doc.id)), doc.payDate, doc.paidAmount, sign),
        delivered_until=dates.berlin_date(doc.deliveryDateUntil),
        invoice_type=doc.type(),
        closed=doc.status == CLOSED,
        skonto=_skonto(doc),
        small_settlement=bool(doc.smallSettlement),
    )


def _skonto(doc: TaxDocument) -> tuple[Decimal, int] | None:
    if doc.discount and doc.discount > ZERO and doc.discountTime:
        return doc.discount, doc.discountTime
    return None


def _receipt(
    voucher: Voucher,
    lines: dict[int, list[Line]],
    paid: dict[tuple[str, int], list[tuple[dt.date, Decimal]]],
    ibans: tuple[str, ...],
) -> Record | None:
    day = dates.berlin_date(voucher.voucherDate)
    if day is None:
        return None
    return Record(
        kind="receipt",
        id=voucher.id,
        number=voucher.description,
        day=day,
        delivered=dates.berlin_date(voucher.deliveryDate),
        draft=voucher.status == RECEIPT_DRAFT,
        revenue=voucher.creditDebit == "D",  # §3.2: D is revenue, C an expense
        rule=voucher.taxRule.id if voucher.taxRule else None,
        contact_id=voucher.supplier.id if voucher.supplier else None,
        country_id=None,
        currency=(voucher.currency or "EUR").upper(),
        gross=voucher.sumGross or ZERO,
        own_net=voucher.sumNet or ZERO,
        own_tax=voucher.sumTax or ZERO,
        lines=tuple(lines[voucher.id]),
        paid=_paid_of(paid.get(("receipt", voucher.id)), voucher.payDate, voucher.paidAmount, 1),
        delivered_until=dates.berlin_date(voucher.deliveryDateUntil),
        closed=voucher.status == CLOSED,
        party=" ".join(p for p in (voucher.supplierName, voucher.supplierNameAtSave) if p),
        ibans=ibans,
    )


def _paid_of(
    logged: list[tuple[dt.date, Decimal]] | None,
    pay_date: dt.datetime | None,
    paid_amount: Decimal | None,
    sign: int,
) -> tuple[tuple[dt.date, Decimal], ...]:
    # the booking log where it has entries; else the document's own pay date and paid amount
    if logged:
        return tuple(sorted((day, sign * abs(amount)) for day, amount in logged))
    day = dates.berlin_date(pay_date)
    if day is None or not paid_amount:
        return ()
    return ((day, sign * abs(paid_amount)),)
