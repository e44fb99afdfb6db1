"""The open questions of a VAT return: what the figures cannot know from sevDesk's data, each
naming the document, the box and what to do."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import ZERO, cents
from sevdesk_mcp.domain.reports.books import Books, Record
from sevdesk_mcp.domain.reports.period import Period, parse_period
from sevdesk_mcp.domain.reports.vat import rules, timing
from sevdesk_mcp.domain.reports.vat.foreign import Misplaced

MAX_NAMED: Final = 10
OSS_THRESHOLD: Final = Decimal(10_000)  # §3c(4) UStG, EU-wide, prior and current year
OSS_RULES: Final = frozenset({18, 19, 20})
TAXABLE_RULE: Final = 1
BOXES_73_74: Final = (
    "Boxes 73/74: sevDesk's tax rules do not tell security transfers and real-estate sales "
    "(§13b(2) no. 2, 3) from other §13b(2) services. Only reverse-charge receipts whose position "
    "text names them (e.g. '§13b Abs. 2 Nr. 2 UStG', 'sicherungsübereignet', 'GrEStG') are in "
    "73/74; check the receipts of 84/85 for others and move them by hand."
)


class Questions:
    """The questions of one return, as its records are counted."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.fallbacks: list[str] = []  # sales counted by their invoice date

    def append(self, text: str) -> None:
        """Add one question."""
        self.items.append(text)


def of_sale(
    questions: Questions, books: Books, record: Record, period: Period, *, ist: bool
) -> None:
    """Add the questions a sale raises in ``period`` (under Ist, the taxable sales of rule 1
    count by payment: their supply date raises none)."""
    done = timing.supply(record)
    counted = record.day if timing.is_correction(record) else done.end
    if record.day in period or counted in period:
        _vat_id_question(questions, books, record)
    if timing.is_correction(record) or (ist and record.rule == TAXABLE_RULE):
        return
    if done.fallback and record.day in period:
        questions.fallbacks.append(record.label)
    elif record.day in period and done.end not in period and not timing.monthly(record):
        questions.append(
            f"{record.label} (invoice of {record.day}) was supplied on {done.end}: it counts in "
            f"the return of {_month(done.end)}, not of this period (§13(1) no. 1a UStG; only "
            "payments received before the supply count when received). If that return was "
            "filed already, correct it."
        )
    if timing.spans_periods(record, period) and not timing.monthly(record) and done.end in period:
        questions.append(
            f"{record.label}: the service period {done.start} to {done.end} counts at its end. "
            "If its price is agreed per month (partial services, §13(1) no. 1a S. 2-3 UStG), "
            "each month's part belongs to its month: say so in the position text ('monatlich')."
        )


def _vat_id_question(questions: Questions, books: Books, record: Record) -> None:
    contact = books.contacts.get(record.contact_id or 0)
    if contact and contact.vatNumber and contact.vatNumber.strip():
        return
    if record.rule == 3:
        gross = sum((line.net + line.tax for line in record.lines), ZERO)
        taxed = [rules.taxed_at_home(line.rate, line.net + line.tax) for line in record.lines]
        boxes = "/".join(sorted({t.box for t in taxed}))
        base = sum((t.base or ZERO for t in taxed), ZERO)
        questions.append(
            f"{record.label}: an intra-EU supply without the customer's VAT id is taxable in "
            "Germany (§6a(1) S. 1 no. 4 UStG, since 2020), so it is counted in box "
            f"{boxes} with the VAT taken out of the invoiced amount ({cents(gross)}: base "
            f"{base}, tax {gross - base}; 19 % where the position shows no German rate), not "
            "in box 41 or the EU sales list. If the customer had a valid VAT id at the time of "
            "supply, add it to the contact (and confirm it with the BZSt); else correct the "
            "invoice."
        )
    elif record.rule == 21:
        questions.append(
            f"{record.label}: a service to an EU business (box 21) without the customer's VAT "
            "id. The VAT id proves the customer is a business (§3a(2) UStG); without one the "
            "service is taxable in Germany (§3a(1)). Add the VAT id to the contact, or correct "
            "the invoice."
        )


def misplaced(found: Misplaced) -> str:
    """:returns: the question for a foreign receipt entered without reverse charge."""
    record = found.record
    return (
        f"{record.label}: a receipt entered at 0 % with tax rule {record.rule}, but "
        f"{', '.join(found.evidence)}. It belongs in boxes {found.boxes} (base {found.base}, "
        f"tax {found.tax} at 19 %; §13b, §1a, §15(1) S. 1 nos. 3, 4 UStG): {found.fix}. It is "
        "not counted in any box until then."
    )


def collect(questions: Questions, books: Books, period: Period, small: bool) -> list[str]:
    """:returns: all open questions of the return, those of its records first."""
    out: list[str] = []
    drafts = [r.label for r in books.records if r.draft and r.day in period]
    if drafts:
        out.append(
            f"{len(drafts)} drafts dated in the period are not counted "
            f"({', '.join(drafts[:MAX_NAMED])}): finalize or delete them before filing."
        )
    if questions.fallbacks:
        named = ", ".join(questions.fallbacks[:MAX_NAMED])
        out.append(
            f"{len(questions.fallbacks)} sales have no delivery date in sevDesk and are counted "
            f"by their invoice date ({named}). VAT arises with the supply (§13(1) no. 1a UStG): "
            "if one was supplied in another period, set its delivery date."
        )
    out.extend(dict.fromkeys(questions.items))
    threshold = _oss_threshold(books, period)
    if threshold:
        out.append(threshold)
    if books.truncated:
        out.append("A list had more objects than were read; the figures may be short.")
    if small:
        out.append(
            "Small business (§19 UStG): sales are exempt and not declared, no input tax is "
            "deducted; a return is due only for a period with tax owed as a buyer (reverse "
            "charge, intra-EU acquisitions; §18(4a) UStG). See return_due."
        )
    out.append(BOXES_73_74)
    return out


def _oss_threshold(books: Books, period: Period) -> str | None:
    year = period.end.year
    start = dt.date(year - 1, 1, 1)
    sums = {year - 1: ZERO, year: ZERO}
    for record in books.records:
        day = timing.supply(record).end
        if not record.draft and record.rule in OSS_RULES and start <= day <= period.end:
            sums[day.year] += sum((line.net for line in record.lines), ZERO)
    if not any(sums.values()) or max(sums.values()) > OSS_THRESHOLD:
        return None
    return (
        f"Sales to consumers in other EU states (sevDesk rules 18-20) came to "
        f"{cents(sums[year - 1])} EUR in {year - 1} and {cents(sums[year])} EUR in {year} up to "
        f"{period.end}, not above the EU-wide threshold of {OSS_THRESHOLD} EUR (§3c(4) UStG). "
        "Unless you opted for taxation in the customer's state (binding for 2 years), they are "
        "taxable in Germany at German rates (box 81/86) and not in the OSS return."
    )


def _month(day: dt.date) -> str:
    return parse_period(f"{day.year}-{day.month:02d}").name
