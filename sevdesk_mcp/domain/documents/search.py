"""Invoices, credit notes and orders: search, read with positions, related documents.

Filters the API offers (status, contact, date range as Berlin Unix seconds, Q19) are sent, and
every filter is applied again here, because sevDesk silently ignores filters it does not know
(Q12). Lists are read to the end with an explicit ``limit`` (the silent 100-row default, section
1). The documents and the cancellation invoices are read together (``together.py``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.common import omitted_note, web_link
from sevdesk_mcp.domain.contacts.read import search_contacts
from sevdesk_mcp.domain.documents.kinds import (
    KINDS,
    DocumentKind,
    DocumentList,
    DocumentSummary,
    KindName,
    StatusWord,
)
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.lifecycle_table import open_statuses
from sevdesk_mcp.domain.money import ZERO, money, totals_by_currency
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.whole_lists import read_whole
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.safety.fence import fence, unfenced
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.sevdesk.together import both
from sevdesk_mcp.sevdesk.wire_documents import Document

MAX_SCANNED: Final = 20_000


class Search(msgspec.Struct, frozen=True):
    """What to look for."""

    kind: KindName
    status: tuple[StatusWord, ...] = ("any",)
    number: str | None = None
    number_contains: str | None = None
    order_type: str | None = None
    contact_id: int | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    open_only: bool = False
    overdue_only: bool = False
    limit: int = 25
    contact_name: str | None = None  # resolved to contact_id by the contact search


async def search(
    client: SevdeskPort, api_url: str, query: Search, *, today: dt.date
) -> DocumentList:
    """:returns: the matching documents, newest first, with totals over every match.

    :raises ToolError: if the status does not exist for this kind of document.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    kind = KINDS[query.kind]
    for status in query.status:
        if status not in ("any", "cancelled") and status not in kind.statuses.values():
            allowed = ", ".join(["any", *kind.statuses.values()])
            raise ToolError(
                f"The status {status!r} does not exist for {kind.label}s; use one of {allowed}."
            )
    if query.contact_name is not None:
        contact = await contact_by_name(client, api_url, query)
        query = msgspec.structs.replace(query, contact_id=contact, contact_name=None)
    documents, cancelled = await both(
        lambda: list_documents(client, kind, _server_filters(query, kind)),
        lambda: cancelled_ids(client, kind),
    )
    rows = [summarize(d, kind, api_url, today, cancelled) for d in documents]
    matches = sorted(
        (r for r in rows if _matches(r, query, today)),
        key=lambda r: (r.date or dt.date.min, r.id),
        reverse=True,
    )
    names = await contact_names(client, {r.contact_id for r in matches[: query.limit]})
    shown = [with_contact_name(r, names) for r in matches[: query.limit]]
    return DocumentList(
        documents=shown,
        total_matches=len(matches),
        gross_total=totals_by_currency(r.gross for r in matches),
        open_total=totals_by_currency(r.open for r in matches),
        note=omitted_note(len(shown), len(matches), f"{kind.label}s"),
    )


MAX_NAMED: Final = 5


async def contact_by_name(client: SevdeskPort, api_url: str, query: Search) -> int:
    """:returns: the id of the one contact whose name or customer number contains
        ``query.contact_name`` (one whose whole name it is wins over the others).

    :raises ToolInputError: with ``contact_id`` as well.
    :raises PreconditionError: if no contact or several match, naming them and what to do.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    wanted = unfenced(query.contact_name or "").strip()
    if query.contact_id is not None or not wanted:
        raise ToolInputError("Give contact_id or contact_name (not empty), not both.")
    found = await search_contacts(client, api_url, query=wanted, category="any", limit=1000)
    whole = [c for c in found.contacts if unfenced(c.name or "").casefold() == wanted.casefold()]
    matches = whole if len(whole) == 1 else found.contacts
    if len(matches) == 1:
        return matches[0].id
    if not matches:
        raise PreconditionError(
            f"No contact's name or customer number contains {fence(wanted)}; ",
            Action.FIND_CONTACT,
            " with part of the name finds it.",
            field="contact_name",
        )
    named = ", ".join(f"{c.name} (id {c.id})" for c in matches[:MAX_NAMED])
    more = f" and {len(matches) - MAX_NAMED} more" if len(matches) > MAX_NAMED else ""
    raise PreconditionError(
        f"{found.total_matches} contacts match {fence(wanted)}: {named}{more}. Which one is "
        "meant? Search again with its contact_id.",
        field="contact_name",
    )


async def list_documents(
    client: SevdeskPort, kind: DocumentKind, filters: dict[str, QueryValue], *, whole: bool = False
) -> list[Document]:
    """:returns: the documents of ``kind`` matching the server-side ``filters``: the first
        :data:`MAX_SCANNED` for a search, or every one (``whole``) for a check that decides.

    :raises ListTooLongError: with ``whole``, for more than a whole list may hold.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    path = f"/{kind.model}"
    if whole:
        return wire.parse_all(
            await read_whole(client, path, filters, what=f"{kind.label}s"), Document
        )
    page = await client.get_all(path, filters, max_items=MAX_SCANNED)
    return wire.parse_all(page.items, Document)


async def cancelled_ids(client: SevdeskPort, kind: DocumentKind) -> frozenset[int]:
    """:returns: ids of invoices that a cancellation invoice (``SR``) refers to.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    if kind.name != "invoice":
        return frozenset()
    storno = await list_documents(client, kind, {"invoiceType": "SR"})
    return frozenset(d.origin.id for d in storno if d.type() == "SR" and d.origin is not None)


async def contact_names(client: SevdeskPort, ids: set[int | None]) -> dict[int, str | None]:
    """:returns: fenced display names of the contacts with these ids.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    from sevdesk_mcp.domain.contacts.read import display_name  # noqa: PLC0415 - avoids a cycle

    wanted = {i for i in ids if i is not None}
    if not wanted:
        return {}
    page = await client.get_all("/Contact", {"depth": 1}, max_items=MAX_SCANNED)
    contacts = [c for c in wire.parse_all(page.items, wire.Contact) if c.id in wanted]
    return {c.id: fence(display_name(c)) for c in contacts}


def summarize(
    doc: Document, kind: DocumentKind, api_url: str, today: dt.date, cancelled: frozenset[int]
) -> DocumentSummary:
    """:returns: the list form of a document (contact name not yet filled in)."""
    day = dates.berlin_date(doc.date())
    due = day + dt.timedelta(days=doc.timeToPay) if day and doc.timeToPay is not None else None
    open_amount = _open_amount(doc, kind)
    overdue = (today - due).days if due and open_amount > ZERO and due < today else None
    return DocumentSummary(
        id=doc.id,
        kind=kind.name,
        number=doc.number(),
        type=doc.type(),
        date=day,
        due_date=due if kind.name == "invoice" else None,
        status=_status(doc, kind, cancelled),
        contact_id=doc.contact.id if doc.contact else None,
        contact_name=None,
        enshrined=doc.enshrined is not None,
        net=money(doc.sumNet, doc.currency),
        gross=money(doc.sumGross, doc.currency),
        paid=money(doc.paidAmount, doc.currency),
        open=money(open_amount, doc.currency),
        days_overdue=overdue,
        link=web_link(api_url, f"fi/detail/type/{doc.type() or kind.web_type}/id/{doc.id}"),
    )


def _open_amount(doc: Document, kind: DocumentKind) -> Decimal:
    if not kind.payable or doc.status not in open_statuses(kind.name):
        return ZERO
    return (doc.sumGross or ZERO) - (doc.paidAmount or ZERO)


def _status(doc: Document, kind: DocumentKind, cancelled: frozenset[int]) -> str:
    if doc.id in cancelled:
        return "cancelled"
    return kind.statuses.get(doc.status or 0, f"status {doc.status}")


def _server_filters(query: Search, kind: DocumentKind) -> dict[str, QueryValue]:
    filters: dict[str, QueryValue] = {}
    codes = [c for c, word in kind.statuses.items() if (word,) == query.status]
    if len(codes) == 1:  # one status of one code; "cancelled" is no status code of sevDesk's
        filters["status"] = codes[0]
    if query.contact_id is not None:
        filters |= {"contact[id]": query.contact_id, "contact[objectName]": "Contact"}
    if query.date_from is not None:
        filters["startDate"] = dates.unix_start(query.date_from)
    if query.date_to is not None:
        filters["endDate"] = dates.unix_end(query.date_to)
    return filters


def _matches(row: DocumentSummary, query: Search, today: dt.date) -> bool:
    checks = (
        "any" in query.status or row.status in query.status,
        query.contact_id is None or row.contact_id == query.contact_id,
        query.number is None or query.number.casefold() == (row.number or "").casefold(),
        query.number_contains is None
        or query.number_contains.casefold() in (row.number or "").casefold(),
        query.order_type is None or row.type == query.order_type,
        query.date_from is None or (row.date is not None and row.date >= query.date_from),
        query.date_to is None or (row.date is not None and row.date <= query.date_to),
        not query.open_only or row.open.amount != ZERO,
        not query.overdue_only or row.days_overdue is not None,
    )
    return all(checks)


def with_contact_name(row: DocumentSummary, names: dict[int, str | None]) -> DocumentSummary:
    """:returns: ``row`` with its contact's name from ``names``."""
    name = names.get(row.contact_id) if row.contact_id is not None else None
    return msgspec.structs.replace(row, contact_name=name)
