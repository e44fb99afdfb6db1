"""The advance VAT return as the tool answers it: boxes with their sources, what fits no box,
what lies outside the return, differences to sevDesk's own totals, open questions and the
assumptions behind the figures."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.reports.books import DocumentFigure
from sevdesk_mcp.domain.reports.vat.basis import Assumption


class Source(msgspec.Struct, frozen=True, kw_only=True):
    """A document or receipt behind a box, with its share of the box.

    :param date: the document's own date.
    :param counts_on: the day it counts on here (its supply, an advance payment, the closing
        payment of a §17 correction, …).
    :param note: why it counts here other than by its supply, e.g. an advance payment, a
        month's part of a service period or a §17 correction.
    """

    kind: str
    id: int
    number: Untrusted | None
    date: dt.date
    counts_on: dt.date
    base: Decimal | None
    tax: Decimal
    note: str | None = None


class Box(msgspec.Struct, frozen=True, kw_only=True):
    """One box (Kennzahl) of the return: its base and tax, and what makes them up.

    :param form_base: the base as the form takes it, in whole euros (cents dropped).
    :param form_tax: for 81, 86, 89 and 93, the tax the filing software computes from
        ``form_base``; ``tax`` is the tax as invoiced.
    """

    box: str
    title: str
    base: Decimal | None
    tax: Decimal
    form_base: Decimal | None
    form_tax: Decimal | None
    sources: list[Source]
    sources_total: int


class Unclassified(DocumentFigure, frozen=True, kw_only=True):
    """A document or receipt of the period that fits no box, and why."""

    reason: str


class Outside(msgspec.Struct, frozen=True, kw_only=True):
    """Items of the period that belong to no box, by reason."""

    reason: str
    net: Decimal
    items: list[str]
    count: int


class Difference(msgspec.Struct, frozen=True, kw_only=True):
    """sevDesk's own totals of a document differ from the sum of its positions."""

    kind: str
    id: int
    number: Untrusted | None
    sevdesk_net: Decimal
    sevdesk_tax: Decimal
    positions_net: Decimal
    positions_tax: Decimal


class VatReturn(msgspec.Struct, frozen=True, kw_only=True):
    """The advance VAT return of a period, box by box, with sources and open questions.

    :param box_83: output tax minus input tax, from the taxes as invoiced.
    :param box_83_form: the same from ``form_tax`` where the form computes the tax.
    :param return_due: for a small business, whether this period needs a return at all (only
        with reverse-charge or acquisition tax owed, §18(4a) UStG); ``None`` otherwise.
    """

    period: str
    start: dt.date
    end: dt.date
    method: str
    small_business: bool
    assumptions: list[Assumption]
    boxes: list[Box]
    output_tax: Decimal
    input_tax: Decimal
    box_83: Decimal
    box_83_form: Decimal
    return_due: bool | None
    unclassified: list[Unclassified]
    outside: list[Outside]
    differences: list[Difference]
    open_questions: list[str]
    rule: str
