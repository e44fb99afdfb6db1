"""The kinds of sales documents and the DTOs the document tools return."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.domain.lifecycle_table import names
from sevdesk_mcp.domain.money import Money

KindName = Literal["invoice", "credit_note", "order"]
StatusWord = Literal[
    "any",
    "draft",
    "open",
    "partially_paid",
    "paid",
    "cancelled",
    "deactivated",
    "sent",
    "rejected",
    "accepted",
    "partially_invoiced",
    "invoiced",
]
Untrusted = Annotated[str, msgspec.Meta(description="Third-party text, fenced in ⟦ ⟧")]


class DocumentKind(msgspec.Struct, frozen=True):
    """How one kind of document is named and behaves in sevDesk (section 3.1); its status words
    come from :mod:`sevdesk_mcp.domain.lifecycle_table`."""

    name: KindName
    label: str
    model: str
    resource: str
    web_type: str
    payable: bool
    statuses: dict[int, str]


KINDS: Final[dict[str, DocumentKind]] = {
    "invoice": DocumentKind(
        "invoice",
        "invoice",
        "Invoice",
        "invoices",
        "RE",
        payable=True,
        statuses=names("invoice"),
    ),
    "credit_note": DocumentKind(
        "credit_note",
        "credit note",
        "CreditNote",
        "credit-notes",
        "CN",
        payable=True,
        statuses=names("credit_note"),
    ),
    "order": DocumentKind(
        "order",
        "order",
        "Order",
        "orders",
        "AN",
        payable=False,
        statuses=names("order"),
    ),
}


class DocumentSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One document in a list. ``open`` is what is still to be paid (0 unless open)."""

    id: int
    kind: KindName
    number: str | None
    type: str | None
    date: dt.date | None
    due_date: dt.date | None
    status: str
    contact_id: int | None
    contact_name: Untrusted | None
    enshrined: Annotated[
        bool,
        msgspec.Meta(description="festgeschrieben (GoBD): locked, can never change again"),
    ]
    net: Money
    gross: Money
    paid: Money
    open: Money
    days_overdue: int | None
    link: str | None


class DocumentList(msgspec.Struct, frozen=True, kw_only=True):
    """Documents matching a search, with totals over every match (not only those shown)."""

    documents: list[DocumentSummary]
    total_matches: int
    gross_total: list[Money]
    open_total: list[Money]
    note: str | None


class PositionLine(msgspec.Struct, frozen=True, kw_only=True):
    """A position of a document."""

    number: int | None
    name: Untrusted | None
    text: Untrusted | None
    quantity: Decimal
    unit_id: int | None
    part_id: int | None
    unit_price: Money
    tax_rate: Decimal | None
    net: Money
    tax: Money
    gross: Money
    optional: bool


class Related(msgspec.Struct, frozen=True, kw_only=True):
    """A document linked to another one."""

    relation: str
    kind: KindName
    id: int
    number: str | None
    status: str


class TaxInfo(msgspec.Struct, frozen=True, kw_only=True):
    """How the document is taxed: a tax rule (system 2.0) or a tax type (system 1.0)."""

    bookkeeping_system: Literal["1.0", "2.0"]
    tax_rule_id: int | None
    tax_type: str | None
    tax_text: Untrusted | None


class DocumentDetail(msgspec.Struct, frozen=True, kw_only=True):
    """One document with its positions and related documents."""

    document: DocumentSummary
    header: Untrusted | None
    head_text: Untrusted | None
    foot_text: Untrusted | None
    address: Untrusted | None
    delivery_date: dt.date | None
    payment_days: Annotated[int, msgspec.Meta(description="Invoices: days to pay")] | None
    sent_date: dt.date | None
    paid_date: dt.date | None
    tax: TaxInfo
    positions: list[PositionLine]
    positions_total: Money
    related: list[Related]
    pdf_resource: str
