"""The advance VAT return (Umsatzsteuer-Voranmeldung) of a month or a quarter as its boxes,
each with the documents and receipts behind it, by accrual (Soll) or cash (Ist) accounting.

Where a position goes is :mod:`rules`; when it counts is :mod:`timing` (the supply, not the
invoice date); price changes after the sale are :mod:`corrections`; foreign receipts entered
without reverse charge are :mod:`foreign`; what the figures assume is :mod:`basis`.

- Soll (§13(1) no. 1a, §16 UStG): each sale in the period of its supply, advance payments in the
  period of receipt, box 41 by its reporting date; input tax by the later of supply and invoice.
- Ist (§20 UStG): the taxable sales of boxes 81, 86 and 35/36 count when paid, each payment
  with its share of the document; every other box and all input tax as under Soll.
- Credit notes and cancellations count negative in the period of their own date (§17 UStG).
- A small business (§19 UStG) declares only the tax it owes as a buyer, without deduction.

Nothing is dropped: positions no rule fits are listed as unclassified with the reason, items
outside the return are listed with theirs, drafts are named as open questions. sevDesk has no
endpoint for the VAT return; its own totals of each document (``sumNet``, ``sumTax``) are
compared with the sum of the document's positions, and any difference is reported.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from decimal import ROUND_DOWN, Decimal
from typing import Final

from sevdesk_mcp.domain.money import HUNDRED, ZERO, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports.books import Books, Line, Record, read_books
from sevdesk_mcp.domain.reports.company import Chart
from sevdesk_mcp.domain.reports.euer.accounts import GIFTS, GIFTS_APART, Ranges, within
from sevdesk_mcp.domain.reports.euer.meals import gift_over_limit
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.domain.reports.vat import corrections, foreign, questions, rules, timing
from sevdesk_mcp.domain.reports.vat.basis import Resolved, VatBasis, resolve
from sevdesk_mcp.domain.reports.vat.model import (
    Box,
    Difference,
    Outside,
    Source,
    Unclassified,
    VatReturn,
)
from sevdesk_mcp.domain.reports.vat.rules import BOXES, Placement, Verdict
from sevdesk_mcp.safety.fence import fence

MAX_NAMED: Final = 10
_Key = tuple[str, int, dt.date, str]  # kind, id, the day it counts on, note
RULE: Final = (
    "Boxes of the UStVA form 2026 from sevDesk's tax rule and rate of each position. Soll: each "
    "sale in the period of its supply (delivery date, end of a service period, each month of "
    "one priced per month; the invoice date only where no delivery date is set, named), "
    "advance payments when received, box 41 in the period of the invoice at the latest the "
    "month after the supply, cash discounts within the invoice's terms reduce base and tax "
    "when paid (§17). Ist: boxes 81, 86, 35/36 by payment (each payment's share), the rest as "
    "Soll. Input tax in the period of the later of supply and invoice; reverse charge and "
    "intra-EU acquisitions with the invoice, at the latest the month after the supply (§13b(1) "
    "services: the supply), tax = base x rate (19 % where sevDesk records 0 %). Credit notes "
    "and cancellations negative on their own date. Intra-EU supplies without the buyer's VAT "
    "id are taxable (§6a(1) no. 4). Taxes as invoiced, exact to the cent; form_base is the "
    "base in whole euros and form_tax the tax the form computes from it. Details: docs/tax.md."
)
ADVANCE: Final = "advance payment received {day}, taxed on receipt (§13(1) no. 1a S. 4 UStG)"
PART: Final = "the part for {month} of a service priced per month (§13(1) no. 1a S. 2-3 UStG)"
NO_DELIVERY_DATE: Final = "no delivery date in sevDesk: counted by the invoice date"
GIFT: Final = "gift over 50 EUR: no input tax deduction (§15(1a) UStG)"
NO_DEDUCTION: Final = "small business: no input tax deduction (§19(1) S. 4 UStG)"
SMALL_SALE: Final = "small business sale (§19 UStG): no VAT charged or declared"
SHOWN: Final = (
    "a small business shows VAT on this invoice: it owes the tax shown (§14c(2) UStG, box 69, "
    "not prepared here); correct the invoice"
)


async def vat_return(
    client: SevdeskPort,
    period: Period,
    basis: VatBasis,
    max_sources: int,
    shortfalls: corrections.Shortfalls = "ask",
) -> VatReturn:
    """:returns: the return of ``period`` by ``basis``, each box with up to ``max_sources``
        sources.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    return compute(await read_books(client), period, basis, max_sources, shortfalls)


class Tally:
    """What the period's records put where, as they are counted."""

    def __init__(self, books: Books, period: Period, resolved: Resolved) -> None:
        self.books = books
        self.period = period
        self.method = resolved.method
        self.small = resolved.small_business
        self.boxes: defaultdict[str, dict[_Key, list[Decimal]]] = defaultdict(dict)
        self.records: dict[tuple[str, int], Record] = {}
        self.unclassified: dict[tuple[str, int, str], list[Decimal]] = {}
        self.outside: defaultdict[str, list[tuple[Record, Decimal]]] = defaultdict(list)
        self.counted: dict[tuple[str, int], Record] = {}
        self.questions = questions.Questions()

    def place(
        self, record: Record, placement: Placement, share: Decimal, day: dt.date, note: str = ""
    ) -> None:
        """Add ``share`` of ``placement`` to its box, under ``record``, on ``day`` (with
        ``note``)."""
        key = (record.kind, record.id)
        self.records[key] = record
        self.counted[key] = record
        sums = self.boxes[placement.box].setdefault((*key, day, note), [ZERO, ZERO])
        sums[0] += cents((placement.base or ZERO) * share)
        sums[1] += cents(placement.tax * share)

    def unplaced(self, record: Record, reason: str, net: Decimal, tax: Decimal) -> None:
        """List a position no box fits."""
        self.records[record.kind, record.id] = record
        sums = self.unclassified.setdefault((record.kind, record.id, reason), [ZERO, ZERO])
        sums[0] += net
        sums[1] += tax


def compute(
    books: Books,
    period: Period,
    basis: VatBasis,
    max_sources: int,
    shortfalls: corrections.Shortfalls = "ask",
) -> VatReturn:
    """:returns: the return of ``period`` computed from ``books``."""
    resolved = resolve(basis, books)
    tally = Tally(books, period, resolved)
    for record in books.records:
        if not record.draft:
            _count(tally, record, shortfalls)
    boxes = [_box(code, tally, max_sources) for code in BOXES]
    output = sum((b.tax for b in boxes if b.box in rules.OUTPUT_TAX_BOXES), ZERO)
    deductible = sum((b.tax for b in boxes if b.box in rules.INPUT_TAX_BOXES), ZERO)
    return VatReturn(
        period=period.name,
        start=period.start,
        end=period.end,
        method=resolved.method,
        small_business=resolved.small_business,
        assumptions=resolved.assumptions,
        boxes=boxes,
        output_tax=output,
        input_tax=deductible,
        box_83=output - deductible,
        box_83_form=_form_balance(boxes),
        return_due=_return_due(boxes) if resolved.small_business else None,
        unclassified=_unclassified(tally),
        outside=_outside(tally),
        differences=differences(tally.counted.values()),
        open_questions=questions.collect(tally.questions, books, period, resolved.small_business),
        rule=RULE,
    )


def _count(tally: Tally, record: Record, shortfalls: corrections.Shortfalls) -> None:
    if record.currency != "EUR":
        if _day(record) in tally.period:
            reason = f"in {record.currency}: convert to EUR at the day's rate and enter by hand"
            tally.unplaced(record, reason, record.own_net, record.own_tax)
        return
    placed: list[Placement] = []
    for line in record.lines:
        placed.extend(_count_line(tally, record, line))
    if record.revenue:
        questions.of_sale(
            tally.questions, tally.books, record, tally.period, ist=tally.method == "ist"
        )
    else:
        _check_foreign(tally, record)
    _correct(tally, record, placed, corrections.shortfall(record, shortfalls))


def _count_line(tally: Tally, record: Record, line: Line) -> list[Placement]:
    verdict = _verdict(tally, record, line)
    dated = _day(record) in tally.period
    if verdict.unclassified and (dated or _cash_shares(tally, record)):
        tally.unplaced(record, verdict.unclassified, line.net, line.tax)
    if verdict.outside and dated:
        tally.outside[verdict.outside].append((record, line.net))
    for placement in verdict.placements:
        if record.revenue:
            _place_sale(tally, record, placement)
        else:
            _place_purchase(tally, record, placement, verdict.placements[0].box)
    return list(verdict.placements)


def _verdict(tally: Tally, record: Record, line: Line) -> Verdict:
    if record.revenue and tally.small:
        return Verdict(outside=SMALL_SALE) if line.tax == ZERO else Verdict(unclassified=SHOWN)
    if record.revenue and record.rule == 3 and not _vat_id(tally.books, record):
        return Verdict((rules.taxed_at_home(line.rate, line.net + line.tax),))
    verdict = rules.classify(
        record.rule, line.rate, line.net, line.tax, revenue=record.revenue, text=line.text
    )
    if tally.small and not record.revenue and verdict.placements:
        kept = tuple(p for p in verdict.placements if p.box not in rules.INPUT_TAX_BOXES)
        if not kept:
            return Verdict(outside=NO_DEDUCTION)
        return Verdict(kept)
    if not record.revenue and _gift(tally.books, line) and _gift_apart(tally.books, record):
        return Verdict(outside=GIFT)
    return verdict


def _gift(books: Books, line: Line) -> bool:
    number = _number(books, line)
    return _on(number, GIFTS) or _on(number, GIFTS_APART)


def _gift_apart(books: Books, record: Record) -> bool:
    """A gift over 50 EUR per person, the profit and loss's rule (each receipt taken as one
    gift to one person): its input tax is not deductible (§15(1a) UStG)."""
    if any(_on(_number(books, line), GIFTS_APART) for line in record.lines):
        return True
    gifts = [line for line in record.lines if _on(_number(books, line), GIFTS)]
    net = sum((line.net for line in gifts), ZERO)
    gross = net + sum((line.tax for line in gifts), ZERO)
    return gift_over_limit(net, gross, small_business=False)


def _on(number: str | None, ranges: Mapping[Chart, Ranges]) -> bool:
    """In ``ranges`` of either chart: the VAT return does not need to know which one."""
    return any(within(number, chart) for chart in ranges.values())


def _number(books: Books, line: Line) -> str | None:
    account = books.accounts.get(line.account or 0)
    return account.number if account and account.number else None


def _place_sale(tally: Tally, record: Record, placement: Placement) -> None:
    if tally.method == "ist" and placement.box in rules.CASH_BOXES:
        for day, share in _cash_shares(tally, record):
            tally.place(record, placement, share, day)
        return
    monthly = timing.monthly(record)
    guessed = timing.supply(record).fallback and not timing.is_correction(record)
    for moment in timing.sale_moments(record, placement.box, monthly_priced=monthly):
        if moment.day in tally.period:
            note = _note(moment, monthly) or (NO_DELIVERY_DATE if guessed else "")
            tally.place(record, placement, moment.share, moment.day, note)


def _place_purchase(tally: Tally, record: Record, placement: Placement, first: str) -> None:
    # the input tax of an acquisition or of reverse charge counts when that tax arises
    box = first if placement.box in ("61", "67") else placement.box
    for moment in timing.purchase_moments(record, box):
        if moment.day in tally.period:
            tally.place(record, placement, moment.share, moment.day, _note(moment, monthly=False))


def _note(moment: timing.Moment, monthly: bool) -> str:
    if moment.advance:
        return ADVANCE.format(day=moment.day)
    return PART.format(month=f"{moment.day:%Y-%m}") if monthly else ""


def _correct(
    tally: Tally,
    record: Record,
    placed: list[Placement],
    found: corrections.Shortfall | None,
) -> None:
    if found is None or found.day not in tally.period:
        return
    if record.revenue and tally.method == "ist":
        return  # only what was received was taxed (§13(1) no. 1b UStG)
    if found.kind is None:
        base = cents(sum(((p.base or ZERO) for p in placed), ZERO) * found.share)
        tax = cents(sum((p.tax for p in placed if p.box in rules.CASH_BOXES), ZERO) * found.share)
        tally.questions.append(corrections.question(found, base, tax, tally.period.name))
        return
    note = f"{corrections.NOTES[found.kind]}: {cents(found.amount)} EUR on {found.day}"
    for placement in placed:
        tally.place(record, placement, found.share, found.day, note)


def _check_foreign(tally: Tally, record: Record) -> None:
    if _day(record) not in tally.period:
        return
    found = foreign.misplaced(tally.books, record, deductible=not tally.small)
    if found:
        tally.questions.append(questions.misplaced(found))


def _day(record: Record) -> dt.date:
    """The day a record's outside and unclassified items are listed on: its supply (receipts:
    the later of supply and invoice), or its own date for a correction."""
    if timing.is_correction(record):
        return record.day
    done = timing.supply(record).end
    return done if record.revenue else max(done, record.day)


def _vat_id(books: Books, record: Record) -> bool:
    contact = books.contacts.get(record.contact_id or 0)
    return bool(contact and contact.vatNumber and contact.vatNumber.strip())


def _cash_shares(tally: Tally, record: Record) -> list[tuple[dt.date, Decimal]]:
    if tally.method != "ist" or not record.revenue or record.gross == ZERO:
        return []
    return [(day, amount / record.gross) for day, amount in record.paid if day in tally.period]


def _box(code: str, tally: Tally, max_sources: int) -> Box:
    entries = tally.boxes.get(code, {})
    has_base = code not in rules.INPUT_TAX_BOXES
    sources = [
        Source(
            kind=kind,
            id=ident,
            number=fence(tally.records[kind, ident].label),
            date=tally.records[kind, ident].day,
            counts_on=day,
            base=base if has_base else None,
            tax=tax,
            note=note or None,
        )
        for (kind, ident, day, note), (base, tax) in entries.items()
    ]
    sources.sort(key=lambda s: (s.counts_on, s.kind, s.id, s.note or ""))
    base = cents(sum((s.base or ZERO for s in sources), ZERO)) if has_base else None
    form_base = base.to_integral_value(ROUND_DOWN) if base is not None else None
    rate = rules.FORM_RATES.get(code)
    return Box(
        box=code,
        title=BOXES[code],
        base=base,
        tax=cents(sum((s.tax for s in sources), ZERO)),
        form_base=form_base,
        form_tax=cents(form_base * rate / HUNDRED) if rate and form_base is not None else None,
        sources=sources[:max_sources],
        sources_total=len(sources),
    )


def _form_balance(boxes: list[Box]) -> Decimal:
    def tax(box: Box) -> Decimal:
        return box.form_tax if box.form_tax is not None else box.tax

    output = sum((tax(b) for b in boxes if b.box in rules.OUTPUT_TAX_BOXES), ZERO)
    return output - sum((b.tax for b in boxes if b.box in rules.INPUT_TAX_BOXES), ZERO)


def _return_due(boxes: list[Box]) -> bool:
    return any(b.tax != ZERO for b in boxes if b.box in rules.OWED_BY_BUYER)


def _unclassified(tally: Tally) -> list[Unclassified]:
    return [
        Unclassified(
            kind=kind,
            id=ident,
            number=fence(tally.records[kind, ident].label),
            date=tally.records[kind, ident].day,
            net=cents(net),
            tax=cents(tax),
            reason=reason,
        )
        for (kind, ident, reason), (net, tax) in sorted(tally.unclassified.items())
    ]


def _outside(tally: Tally) -> list[Outside]:
    out = []
    for reason, entries in sorted(tally.outside.items()):
        labels = list(dict.fromkeys(r.label for r, _ in entries))
        out.append(
            Outside(
                reason=reason,
                net=cents(sum((net for _, net in entries), ZERO)),
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
