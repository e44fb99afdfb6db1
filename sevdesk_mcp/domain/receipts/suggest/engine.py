"""The one suggestion engine (bookkeeping 2.0): evidence strongest first, each suggestion naming
it (german-tax-rules.md §3):

1. the company's own history for the supplier (:mod:`.history`);
2. sevDesk's receipt guidance for the account: that it takes the receipt's kind, the proposed
   tax rule and rate (:mod:`..guidance`);
3. the curated words table of the company's chart (:mod:`.words`), the net amount deciding an
   item's treatment (:mod:`.amounts`), reverse charge for a foreign supplier (:mod:`.foreign`)
   and the usual rate (:mod:`.rates`).

An account of the table that this sevDesk account lacks is named, never swapped for another.
When nothing fits the answer says what is missing; nothing is guessed.
"""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.guidance import RECEIPT_TYPES, Guide, Guides
from sevdesk_mcp.domain.receipts.suggest.candidates import Candidate, from_history, from_words
from sevdesk_mcp.domain.receipts.suggest.charts import ChartFact, chart_of
from sevdesk_mcp.domain.receipts.suggest.history import load_history
from sevdesk_mcp.domain.receipts.suggest.matching import Matched, match
from sevdesk_mcp.domain.receipts.suggest.model import (
    Company,
    Confidence,
    ReceiptQuery,
    Suggestion,
    Suggestions,
)
from sevdesk_mcp.domain.receipts.suggest.names import from_names
from sevdesk_mcp.domain.receipts.suggest.text import words

MAX_SUGGESTIONS: Final = 5
LOWER: Final[dict[Confidence, Confidence]] = {"high": "medium", "medium": "low", "low": "low"}
NOTE: Final = (
    "Suggestions only: the human decides. The first is the best; check its tax rule and rate "
    "against 'allowed' and the receipt."
)


async def suggest_v2(client: SevdeskPort, query: ReceiptQuery, company: Company) -> Suggestions:
    """:returns: the suggestions for ``query`` on a bookkeeping 2.0 account, best first.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    guides = await Guides.load(client)
    chart = chart_of(_expense_numbers(guides), company.chart)
    candidates = [
        *await _candidates(client, query, chart, company),
        *from_names(guides.by_number.values(), query),
    ]
    found: list[Suggestion] = []
    lacking: list[str] = []
    for candidate in _merged(candidates):
        guide = await guides.number(candidate.number)
        if guide is None or RECEIPT_TYPES[query.kind] not in guide.kinds:
            lacking.append(candidate.number)
            continue
        if len(found) < MAX_SUGGESTIONS:
            found.append(_suggestion(candidate, guide, query))
    return _answer(found, lacking, query, chart)


def _expense_numbers(guides: Guides) -> list[str]:
    return [g.number for g in guides.by_number.values() if "EXPENSE" in g.kinds]


async def _candidates(
    client: SevdeskPort, query: ReceiptQuery, chart: ChartFact, company: Company
) -> list[Candidate]:
    """:raises UpstreamError: if the history cannot be read."""
    if query.kind != "expense":
        return []  # the table and the history are of expenses; revenue: pick the account
    history = await load_history(client)
    query = msgspec.structs.replace(query, supplier=history.completed(query.supplier))
    seen = history.seen(query.supplier)
    said, named = words(query.description), words(query.supplier.name or "")
    found = match(said, named)
    told = [from_words(m, query, chart.chart, company, alone=_alone(m, found)) for m in found]
    known = from_history(seen, query, chart.chart, company) if seen else []
    return [*known, *told]


def _alone(matched: Matched, found: list[Matched]) -> bool:
    return all(other.score < matched.score for other in found if other is not matched)


def _merged(candidates: list[Candidate]) -> list[Candidate]:
    """:returns: one candidate per account, the first kept, the evidence of later ones for the
    same account added (agreeing evidence raises a medium history to high)."""
    out: dict[str, Candidate] = {}
    for candidate in candidates:
        first = out.get(candidate.number)
        if first is None:
            out[candidate.number] = candidate
            continue
        confidence: Confidence = "high" if first.confidence != "low" else "medium"
        out[candidate.number] = msgspec.structs.replace(
            first,
            evidence=[*first.evidence, *candidate.evidence],
            confidence=confidence,
            hint=first.hint or candidate.hint,
            treatment=first.treatment or candidate.treatment,
        )
    return list(out.values())


def _suggestion(candidate: Candidate, guide: Guide, query: ReceiptQuery) -> Suggestion:
    rule, rate = candidate.rule, candidate.rate
    fits = None if rule is None or rate is None else rate in guide.rules.get(rule, frozenset())
    allowed = guide.allowed(query.kind)
    told = (
        f"guidance: {guide.number} takes tax rule {rule} at {rate:f} %"
        if fits
        else f"guidance: {guide.number} does not take tax rule {rule} at {rate:f} %; check it"
        if fits is False
        else f"guidance: {allowed}"
    )
    evidence = [*candidate.evidence[:1], told, *candidate.evidence[1:]]
    confidence = LOWER[candidate.confidence] if fits is False else candidate.confidence
    asked = query.rate
    return Suggestion(
        account_number=guide.number, account_name=guide.name, account_id=guide.account_id,
        tax_rule_id=rule, tax_rate=rate, confidence=confidence,
        reason=f"{confidence} confidence: {candidate.evidence[0]}", evidence=evidence,
        allowed=allowed, rate_fits=None if asked is None else _takes(guide, asked), fits=fits,
        treatment=candidate.treatment, rate_hint=candidate.hint,
        reverse_charge=candidate.reverse_charge,
    )  # fmt: skip


def _takes(guide: Guide, rate: object) -> bool:
    return any(rate in rates for rates in guide.rules.values())


def _answer(
    found: list[Suggestion], lacking: list[str], query: ReceiptQuery, chart: ChartFact
) -> Suggestions:
    shown = f"{chart.chart.upper()} ({chart.source})"
    gaps = (
        f" Also fitting, but not among this account's booking accounts for {query.kind} "
        f"receipts: {', '.join(lacking)}."
        if lacking
        else ""
    )
    if found:
        return Suggestions(suggestions=found, note=NOTE + gaps, chart=shown)
    return Suggestions(
        suggestions=[], chart=shown, missing=_missing(query, lacking),
        note="No booking account fits; nothing is guessed." + gaps + " Pick one from the "
        "booking accounts of the reference data (each lists what it allows).",
    )  # fmt: skip


def _missing(query: ReceiptQuery, lacking: list[str]) -> str:
    if query.kind != "expense":
        return "the account: revenue receipts are not suggested from words or history"
    if lacking:
        return "a booking account for this receipt in sevDesk (or another account number)"
    supplier = query.supplier
    named = supplier.name or supplier.vat_id or supplier.iban or supplier.contact_id
    who = f"no earlier receipt from {named}" if named else "no supplier"
    return (
        f"no words of the table and {who}: give the receipt's text (what was bought), the "
        "supplier (contact, VAT id or IBAN), or the account"
    )
