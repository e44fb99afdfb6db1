"""Reading what reconciliation needs: the unbooked transactions, the open invoices, credit
notes and receipts, the contacts with their IBANs, and the check accounts' currencies.

- Unbooked transactions are asked for with ``status=100`` (Q13: ``isBooked=false`` is ignored)
  and checked again here; ``startDate``/``endDate`` filter on the entry date (Q19).
- Open documents: invoices and credit notes 200/750, receipts 100/150/750, statuses checked
  again (Q12). Cancellation invoices (SR) take no payments.
- The independent lists are read together (``together.py``), inside the pacing budget.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.vouchers import start_bound
from sevdesk_mcp.domain.reconciliation.model import HOME, DocKind, OpenDoc, Party, Terms, Tx
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.sevdesk.together import both, each
from sevdesk_mcp.sevdesk.wire_finance import CheckAccount, CheckAccountTransaction

MAX_SCANNED: Final = 20_000
UNBOOKED: Final = 100
OPEN_DOCUMENTS: Final = (200, 750)
OPEN_RECEIPTS: Final = (100, 150, 750)


class DocRow(msgspec.Struct, frozen=True):
    """The fields of an invoice, credit note or receipt the scorer needs."""

    id: int
    status: int | None = None
    contact: wire.Ref | None = None
    supplier: wire.Ref | None = None
    invoiceNumber: str | None = None
    creditNoteNumber: str | None = None
    description: str | None = None
    supplierName: str | None = None
    invoiceDate: dt.datetime | None = None
    creditNoteDate: dt.datetime | None = None
    voucherDate: dt.datetime | None = None
    invoiceType: str | None = None
    creditDebit: str | None = None
    currency: str | None = None
    sumGross: Decimal | None = None
    sumGrossAccounting: Decimal | None = None
    paidAmount: Decimal | None = None
    timeToPay: wire.Days | None = None
    discount: Decimal | None = None
    discountTime: wire.Days | None = None


class ContactRow(msgspec.Struct, frozen=True):
    """A contact's name parts, customer number and IBAN (``bankAccount``)."""

    id: int
    name: str | None = None
    surename: str | None = None
    familyname: str | None = None
    customerNumber: str | None = None
    bankAccount: str | None = None


class Books(msgspec.Struct, frozen=True):
    """What the scorer works on, and whether a list was cut short."""

    txs: list[Tx]
    docs: list[OpenDoc]
    parties: list[Party]
    accounts: dict[int, CheckAccount]
    truncated: bool


class Filter(msgspec.Struct, frozen=True):
    """Which transactions to reconcile."""

    account_id: int | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None


async def read_books(client: SevdeskPort, where: Filter) -> Books:
    """:returns: the unbooked transactions of ``where`` and every open document and contact.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    accounts, txs, (docs, cut), contacts = await both(
        lambda: _accounts(client),
        lambda: client.get_all("/CheckAccountTransaction", _query(where), max_items=MAX_SCANNED),
        lambda: _documents(client),
        lambda: client.get_all("/Contact", {"depth": 1}, max_items=MAX_SCANNED),
    )
    rows = wire.parse_all(txs.items, CheckAccountTransaction)
    kept = [_tx(t, accounts) for t in rows if _wanted(t, where)]
    parties = [_party(c) for c in wire.parse_all(contacts.items, ContactRow)]
    return Books(kept, docs, parties, accounts, cut or txs.truncated or contacts.truncated)


async def _accounts(client: SevdeskPort) -> dict[int, CheckAccount]:
    page = await client.get_all("/CheckAccount", max_items=1_000)
    return {a.id: a for a in wire.parse_all(page.items, CheckAccount)}


def _query(where: Filter) -> dict[str, QueryValue]:
    query: dict[str, QueryValue] = {"status": UNBOOKED}  # Q13
    if where.account_id is not None:
        query["checkAccount[id]"] = where.account_id
        query["checkAccount[objectName]"] = "CheckAccount"
    if where.date_from:
        query["startDate"] = start_bound(where.date_from)
    if where.date_to:
        query["endDate"] = dates.unix_end(where.date_to)
    return query


def _wanted(tx: CheckAccountTransaction, where: Filter) -> bool:
    # every filter again (Q12); an amount of 0 pays nothing
    if tx.status != UNBOOKED or not tx.amount or tx.checkAccount is None:
        return False
    if where.account_id is not None and tx.checkAccount.id != where.account_id:
        return False
    day = dates.berlin_date(tx.entryDate)
    if where.date_from and (day is None or day < where.date_from):
        return False
    return not (where.date_to and (day is None or day > where.date_to))


def _tx(tx: CheckAccountTransaction, accounts: dict[int, CheckAccount]) -> Tx:
    assert tx.checkAccount is not None  # kept by _wanted
    assert tx.amount is not None
    account = accounts.get(tx.checkAccount.id)
    return Tx(
        id=tx.id,
        account_id=tx.checkAccount.id,
        amount=tx.amount,
        rest=abs(tx.amount),
        day=dates.berlin_date(tx.valueDate),
        counterparty=tx.payeePayerName,
        iban=tx.payeePayerAcctNo,
        purpose=tx.paymtPurpose,
        currency=((account.currency if account else None) or HOME).upper(),
    )


async def _documents(client: SevdeskPort) -> tuple[list[OpenDoc], bool]:
    reads = [("/Invoice", "invoice", s) for s in OPEN_DOCUMENTS]
    reads += [("/CreditNote", "credit_note", s) for s in OPEN_DOCUMENTS]
    reads += [("/Voucher", "voucher", s) for s in OPEN_RECEIPTS]
    pages = await each([_listing(client, path, {"status": s}) for path, _, s in reads])
    found: dict[tuple[str, int], OpenDoc] = {}
    for (_, kind, _), page in zip(reads, pages, strict=True):
        for row in wire.parse_all(page.items, DocRow):
            doc = open_doc(kind, row)  # type: ignore[arg-type]
            if doc is not None:
                found.setdefault(doc.key, doc)
    return list(found.values()), any(p.truncated for p in pages)


def _listing(
    client: SevdeskPort, path: str, query: dict[str, QueryValue]
) -> Callable[[], Awaitable[Page]]:
    return lambda: client.get_all(path, query, max_items=MAX_SCANNED)


def open_doc(kind: DocKind, row: DocRow) -> OpenDoc | None:
    """:returns: the document as the scorer sees it, or ``None`` if it takes no payment."""
    statuses = OPEN_RECEIPTS if kind == "voucher" else OPEN_DOCUMENTS
    gross, paid = row.sumGross or ZERO, row.paidAmount or ZERO
    if row.status not in statuses or row.invoiceType == "SR" or gross - paid <= 0:
        return None
    currency = (row.currency or HOME).upper()
    rate = None
    if currency != HOME and row.sumGrossAccounting and gross:
        rate = (row.sumGrossAccounting / gross).quantize(Decimal("0.000001"))
    return OpenDoc(
        kind=kind,
        id=row.id,
        number=row.invoiceNumber or row.creditNoteNumber or row.description,
        contact_id=_contact_id(row),
        party=row.supplierName,
        sign=_sign(kind, row),
        gross=gross,
        open=gross - paid,
        currency=currency,
        issued=dates.berlin_date(row.invoiceDate or row.creditNoteDate or row.voucherDate),
        terms=Terms(row.timeToPay or 0, row.discount or ZERO, row.discountTime or 0),
        rate=rate,
    )


def _contact_id(row: DocRow) -> int | None:
    ref = row.contact or row.supplier
    return ref.id if ref is not None else None


def _sign(kind: DocKind, row: DocRow) -> int:
    # Q26: the sign of the bank flow that pays the document
    if kind == "voucher":
        return 1 if row.creditDebit == "D" else -1
    return 1 if kind == "invoice" else -1


def _party(contact: ContactRow) -> Party:
    person = " ".join(p for p in (contact.surename, contact.familyname) if p)
    return Party(
        contact.id, contact.name or person or None, contact.bankAccount, contact.customerNumber
    )
