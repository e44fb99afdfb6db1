"""The candidates each kind of evidence yields, before sevDesk's guidance is asked: the company's
history for the supplier (strongest), then the words table; each with the tax rule and rate it
proposes, how sure it is and why."""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.receipts.abroad import origin_of
from sevdesk_mcp.domain.receipts.suggest import amounts, rates
from sevdesk_mcp.domain.receipts.suggest.charts import Chart
from sevdesk_mcp.domain.receipts.suggest.foreign import propose_reverse_charge
from sevdesk_mcp.domain.receipts.suggest.history import Booked, Seen
from sevdesk_mcp.domain.receipts.suggest.matching import Matched
from sevdesk_mcp.domain.receipts.suggest.model import Company, Confidence, ReceiptQuery
from sevdesk_mcp.domain.receipts.suggest.text import words
from sevdesk_mcp.domain.receipts.suggest.words import NINETEEN, SOURCE, Case

BUYER_OWES: Final = frozenset({12, 13, 14})  # reverse charge: the position is at 0 %
ACQUISITION: Final = 8  # intra-EU acquisition: the position carries the German rate
FOREIGN_VAT: Final = 10  # no input tax: foreign VAT, exempt, no VAT at all
INPUT_TAX: Final = 9


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """An account some evidence points to, with what it proposes and why."""

    number: str
    rule: int | None
    rate: Decimal | None
    confidence: Confidence
    evidence: list[str]
    treatment: amounts.Treatment | None = None
    hint: str | None = None
    reverse_charge: str | None = None


def from_history(
    seen: Seen, query: ReceiptQuery, chart: Chart, company: Company
) -> list[Candidate]:
    """:returns: the accounts the company booked the supplier's receipts on, most often
    first (an asset account follows the net amount: a GWG is no asset)."""
    out = []
    for booked in seen.booked[:2]:
        number, decided = _history_account(booked.account, query, chart, company)
        times = "once" if booked.times == 1 else f"{booked.times} times"
        said = (
            f"history: this supplier (matched by {seen.matched_by}) was booked {times} of "
            f"{seen.receipts} earlier receipts on {booked.account}, tax rule {booked.rule} at "
            f"{booked.rate:f} %"
        )
        out.append(
            Candidate(
                number=number,
                rule=booked.rule,
                rate=_history_rate(booked, query),
                confidence=_history_confidence(booked, seen),
                evidence=[said, *([decided.why] if decided else [])],
                treatment=decided.treatment if decided else None,
            )
        )
    return out


def _history_account(
    number: str, query: ReceiptQuery, chart: Chart, company: Company
) -> tuple[str, amounts.Decided | None]:
    before = amounts.treatment_of(chart, number)
    if before is None or query.net is None:
        return number, None
    decided = amounts.decide(query.net, company.low_value)
    if decided.treatment == before:
        return number, decided
    usual = amounts.accounts_for(chart, decided.treatment)
    return (usual[0] if usual else number), decided


def _history_rate(booked: Booked, query: ReceiptQuery) -> Decimal:
    if booked.rule in BUYER_OWES or booked.rule == ACQUISITION or query.rate is None:
        return booked.rate
    return query.rate


def _history_confidence(booked: Booked, seen: Seen) -> Confidence:
    if booked.times >= 2 and 3 * booked.times >= 2 * seen.receipts:
        return "high"
    return "medium" if booked.times * 2 > seen.receipts else "low"


def from_words(
    matched: Matched, query: ReceiptQuery, chart: Chart, company: Company, *, alone: bool
) -> Candidate:
    """:returns: the account of a matched case of the words table, its rule and rate, the
    net amount's treatment for an item and reverse charge for a foreign supplier; medium
    confidence where the words are clear (a longer phrase, several) or ``alone`` (no other
    case scores as high), else low."""
    case, said = matched.case, _said(query)
    number, treatment, why = _words_account(case, query, chart, company)
    usual = rates.usual_rate(case, said, query.day)
    rate = query.rate if query.rate is not None else usual
    evidence = [
        f"words: {', '.join(repr(p) for p in matched.phrases[:3])} are typical for "
        f"{case.label} ({chart.upper()} {number}; {SOURCE})",
        *why,
    ]
    base = Candidate(
        number=number, rule=case.rule, rate=rate, evidence=evidence, treatment=treatment,
        confidence="medium" if matched.strong or alone else "low",
        hint=rates.hint(case, query.day),
    )  # fmt: skip
    return _no_german_vat(_foreign(base, case, query, usual, company))


def _no_german_vat(candidate: Candidate) -> Candidate:
    """:returns: ``candidate`` under rule 10 where it would book input tax at 0 %: a domestic
    receipt without German VAT (exempt postage, rent without the landlord's option, a
    cross-border flight, §26(3) UStG) has no input tax to deduct."""
    if candidate.rule != INPUT_TAX or candidate.rate != ZERO:
        return candidate
    said = "no German VAT on the receipt: no input tax to deduct (tax rule 10)"
    return msgspec.structs.replace(
        candidate, rule=FOREIGN_VAT, evidence=[*candidate.evidence, said]
    )


def _said(query: ReceiptQuery) -> tuple[str, ...]:
    return words(f"{query.description} {query.supplier.name or ''}")


def _words_account(
    case: Case, query: ReceiptQuery, chart: Chart, company: Company
) -> tuple[str, amounts.Treatment | None, list[str]]:
    own = case.sole if company.sole_proprietor and case.sole else (case.skr03, case.skr04)
    number = own[0] if chart == "skr03" else own[1]
    if not case.item:
        return number, None, []
    if query.net is None:
        return number, None, ["give the net amount: it decides expense, GWG or asset"]
    decided = amounts.decide(query.net, company.low_value)
    usual = amounts.accounts_for(chart, decided.treatment)
    return (usual[0] if usual else number), decided.treatment, [decided.why]


def _foreign(
    base: Candidate, case: Case, query: ReceiptQuery, usual: Decimal | None, company: Company
) -> Candidate:
    """:returns: ``base`` with reverse charge (or foreign VAT) where the supplier is foreign."""
    net = query.net if query.net is not None else ZERO
    german = usual if usual and usual > ZERO else NINETEEN
    proposal = propose_reverse_charge(
        query.supplier, net, nature=case.nature, german_vat=query.german_vat,
        texts=[query.description], rate=german, deductible=company.deductible,
    )  # fmt: skip
    if proposal is not None:
        rate = proposal.rate if proposal.rule == ACQUISITION else ZERO
        said = f"foreign supplier ({', '.join(proposal.evidence)}): {proposal.sentence}"
        return msgspec.structs.replace(
            base, rule=proposal.rule, rate=rate, reverse_charge=proposal.sentence,
            evidence=[*base.evidence, said],
        )  # fmt: skip
    origin, evidence = origin_of(query.supplier.vat_id, [query.supplier.iban or ""],
                                 query.supplier.country)  # fmt: skip
    if origin == "unknown" or query.german_vat or case.nature != "abroad":
        return base
    said = (
        f"supplied abroad by a foreign business ({', '.join(evidence)}): foreign VAT, not "
        "deductible in Germany; no reverse charge (§3a(3), §3b UStG)"
    )
    return msgspec.structs.replace(
        base, rule=FOREIGN_VAT, rate=ZERO, evidence=[*base.evidence, said]
    )
