"""The advance VAT return (Umsatzsteuer-Voranmeldung) of a month or a quarter as its boxes,
each with the documents and receipts behind it, by accrual (Soll) or cash (Ist) accounting.

Where each position goes is :mod:`vat_rules`; what counts when:

- Soll (§16, §13(1) no. 1a UStG): a document counts in the period of its date.
- Ist (§20 UStG): the taxable sales of boxes 81, 86 and 35/36 count when paid, each payment
  with its share of the document; every other box and all input tax as under Soll (input tax
  is deductible with the invoice, §15, whatever the method).
- Credit notes count negative in the period of their own date (§17 UStG).

Nothing is dropped: positions no rule fits are listed as unclassified with the reason, items
outside the return (One-Stop-Shop, not taxable) are listed with theirs, drafts are named as open
questions. sevDesk has no endpoint for the VAT return; its own totals of each document
(``sumNet``, ``sumTax``) are compared with the sum of the document's positions, and any
difference is reported.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.contacts import Untrusted
from sevdesk_mcp.domain.money import ZERO, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports import vat_rules
from sevdesk_mcp.domain.reports.books import Books, DocumentFigure, Record, read_books
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.domain.reports.vat_rules import BOXES, Placement
from sevdesk_mcp.safety.fence import fence

Method = Literal["soll", "ist"]
MAX_NAMED: Final = 10
RULE: Final = (
    "Boxes of the UStVA form 2026 from sevDesk's tax rule and rate of each position. Soll: "
    "documents by their date; Ist: boxes 81, 86, 35/36 by payment date (each payment's share), "
    "the rest as Soll. Credit notes count negative on their own date. Reverse charge and "
    "intra-EU acquisitions: tax = base x rate (19 % where sevDesk records 0 %). Amounts are "
    "exact to the cent; the form takes bases in whole euros. Details: docs/tax.md."
)
BOXES_73_74: Final = (
    "Boxes 73/74: sevDesk's tax rules do not tell security transfers and real-estate sales "
    "(§13b(2) no. 2, 3) from other §13b(2) services. Only reverse-charge receipts whose position "
    "text names them (e.g. '§13b Abs. 2 Nr. 2 UStG', 'sicherungsübereignet', 'GrEStG') are in "
    "73/74; check the receipts of 84/85 for others and move them by hand."
)


class Source(msgspec.Struct, frozen=True, kw_only=True):
    """A document or receipt behind a box, with its share of the box."""

    kind: str
    id: int
    number: Untrusted | None
    date: dt.date
    base: Decimal | None
    tax: Decimal


class Box(msgspec.Struct, frozen=True, kw_only=True):
    """One box (Kennzahl) of the return: its base and tax, and what makes them up."""

    box: str
    title: str
    base: Decimal | None
    tax: Decimal
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
    """The advance VAT return of a period, box by box, with sources and open questions."""

    period: str
    start: dt.date
    end: dt.date
    method: str
    boxes: list[Box]
    output_tax: Decimal
    input_tax: Decimal
    box_83: Decimal
    unclassified: list[Unclassified]
    outside: list[Outside]
    differences: list[Difference]
    open_questions: list[str]
    rule: str


async def vat_return(
    client: SevdeskPort, period: Period, method: Method, max_sources: int
) -> VatReturn:
    """:returns: the return of ``period`` by ``method``, each box with up to ``max_sources``
        sources.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    return compute(await read_books(client), period, method, max_sources)


class _Tally:
    def __init__(self) -> None:
        self.boxes: defaultdict[str, dict[tuple[str, int], list[Decimal]]] = defaultdict(dict)
        self.records: dict[tuple[str, int], Record] = {}
        self.unclassified: dict[tuple[str, int, str], list[Decimal]] = {}
        self.outside: defaultdict[str, list[tuple[Record, Decimal]]] = defaultdict(list)
        self.counted: dict[tuple[str, int], Record] = {}

    def place(self, record: Record, placement: Placement, share: Decimal) -> None:
        key = (record.kind, record.id)
        self.records[key] = record
        self.counted[key] = record
        sums = self.boxes[placement.box].setdefault(key, [ZERO, ZERO])
        sums[0] += cents((placement.base or ZERO) * share)
        sums[1] += cents(placement.tax * share)

    def unplaced(self, record: Record, reason: str, net: Decimal, tax: Decimal) -> None:
        self.records[record.kind, record.id] = record
        sums = self.unclassified.setdefault((record.kind, record.id, reason), [ZERO, ZERO])
        sums[0] += net
        sums[1] += tax


def compute(books: Books, period: Period, method: Method, max_sources: int) -> VatReturn:
    """:returns: the return of ``period`` computed from ``books``."""
    tally = _Tally()
    for record in books.records:
        if not record.draft:
            _count(tally, record, period, method)
    boxes = [_box(code, tally, max_sources) for code in BOXES]
    output = sum((b.tax for b in boxes if b.box in vat_rules.OUTPUT_TAX_BOXES), ZERO)
    deductible = sum((b.tax for b in boxes if b.box in vat_rules.INPUT_TAX_BOXES), ZERO)
    return VatReturn(
        period=period.name,
        start=period.start,
        end=period.end,
        method=method,
        boxes=boxes,
        output_tax=output,
        input_tax=deductible,
        box_83=output - deductible,
        unclassified=_unclassified(tally),
        outside=_outside(tally),
        differences=differences(tally.counted.values()),
        open_questions=_questions(books, period, method, tally),
        rule=RULE,
    )


def _count(tally: _Tally, record: Record, period: Period, method: Method) -> None:
    shares = _cash_shares(record, period) if method == "ist" and record.revenue else []
    dated = record.day in period
    if record.currency != "EUR":
        if dated:
            reason = f"in {record.currency}: convert to EUR at the day's rate and enter by hand"
            tally.unplaced(record, reason, record.own_net, record.own_tax)
        return
    for line in record.lines:
        verdict = vat_rules.classify(
            record.rule, line.rate, line.net, line.tax, revenue=record.revenue, text=line.text
        )
        if verdict.unclassified and (dated or shares):
            tally.unplaced(record, verdict.unclassified, line.net, line.tax)
        if verdict.outside and dated:
            tally.outside[verdict.outside].append((record, line.net))
        for placement in verdict.placements:
            if method == "ist" and record.revenue and placement.box in vat_rules.CASH_BOXES:
                for share in shares:
                    tally.place(record, placement, share)
            elif dated:
                tally.place(record, placement, Decimal(1))


def _cash_shares(record: Record, period: Period) -> list[Decimal]:
    if record.gross == ZERO:
        return []
    return [amount / record.gross for day, amount in record.paid if day in period]


def _box(code: str, tally: _Tally, max_sources: int) -> Box:
    entries = tally.boxes.get(code, {})
    has_base = code not in vat_rules.INPUT_TAX_BOXES
    sources = [
        Source(
            kind=kind,
            id=ident,
            number=fence(tally.records[kind, ident].label),
            date=tally.records[kind, ident].day,
            base=base if has_base else None,
            tax=tax,
        )
        for (kind, ident), (base, tax) in entries.items()
    ]
    sources.sort(key=lambda s: (s.date, s.kind, s.id))
    return Box(
        box=code,
        title=BOXES[code],
        base=cents(sum((s.base or ZERO for s in sources), ZERO)) if has_base else None,
        tax=cents(sum((s.tax for s in sources), ZERO)),
        sources=sources[:max_sources],
        sources_total=len(sources),
    )


def _unclassified(tally: _Tally) -> list[Unclassified]:
    return [
        Unclassified(
            kind=kind,
            id=ident,
            number=fence(tally.records[kind, ident].label),
            date=tally.records[kind, ident].day,
            net=net,
            tax=tax,
            reason=reason,
        )
        for (kind, ident, reason), (net, tax) in sorted(tally.unclassified.items())
    ]


def _outside(tally: _Tally) -> list[Outside]:
    out = []
    for reason, entries in sorted(tally.outside.items()):
        labels = list(dict.fromkeys(r.label for r, _ in entries))
        out.append(
            Outside(
                reason=reason,
                net=sum((net for _, net in entries), ZERO),
                items=[fence(label) or "" for label in labels[:MAX_NAMED]],
                count=len(labels),
            )
        )
    return out


def differences(records: Iterable[Record]) -> list[Difference]:
    """:returns: the records whose own totals differ from the sum of their positions."""
    out = []
    for record in sorted(records, key=lambda r: (r.kind, r.id)):
        net = sum((line.net for line in record.lines), ZERO)
        tax = sum((line.tax for line in record.lines), ZERO)
        if (net, tax) != (record.own_net, record.own_tax):
            out.append(
                Difference(
                    kind=record.kind,
                    id=record.id,
                    number=fence(record.label),
                    sevdesk_net=record.own_net,
                    sevdesk_tax=record.own_tax,
                    positions_net=net,
                    positions_tax=tax,
                )
            )
    return out


def _questions(books: Books, period: Period, method: Method, tally: _Tally) -> list[str]:
    questions = []
    drafts = [r.label for r in books.records if r.draft and r.day in period]
    if drafts:
        named = ", ".join(drafts[:MAX_NAMED])
        questions.append(
            f"{len(drafts)} drafts dated in the period are not counted ({named}): finalize or "
            "delete them before filing."
        )
    for record in tally.counted.values():
        questions.extend(_record_questions(books, record, period, method))
    if books.truncated:
        questions.append("A list had more objects than were read; the figures may be short.")
    questions.append(BOXES_73_74)
    return questions


def _record_questions(books: Books, record: Record, period: Period, method: Method) -> list[str]:
    out = []
    contact = books.contacts.get(record.contact_id) if record.contact_id else None
    if record.rule in (3, 21) and not (contact and contact.vatNumber):
        out.append(
            f"{record.label}: intra-EU sale without the customer's VAT id; box "
            f"{'41' if record.rule == 3 else '21'} and the EU sales list need it. Add it to "
            "the contact."
        )
    moved = record.delivered is not None and record.delivered not in period
    if method == "soll" and moved and record.revenue and record.day in period:
        out.append(
            f"{record.label}: delivered on {record.delivered}, outside the period; VAT "
            "arises with the supply (§13(1) no. 1a UStG). Check which period it belongs to."
        )
    return out
