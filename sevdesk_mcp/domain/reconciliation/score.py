"""The scorer: for each transaction, the documents it may pay, with a confidence and reasons.

A suggestion is *confident* only when its confidence is at least :data:`CONFIDENT`, it is
anchored (a document number in the purpose, or the only open document of the contact its IBAN
or customer number names with that amount), it books in the account's currency, it leaves no
difference to ask about (settle ``short``), and the next suggestion is at least :data:`MARGIN`
behind. Everything else is offered as choices, never booked as confident. Candidates come from
the indexes; no transaction meets every document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.reconciliation import collective
from sevdesk_mcp.domain.reconciliation.candidate import Candidate, Clues, Draft, candidate
from sevdesk_mcp.domain.reconciliation.category import category_of
from sevdesk_mcp.domain.reconciliation.evidence import (
    Paid,
    Weight,
    Why,
    amount_fit,
    date_weight,
    label,
)
from sevdesk_mcp.domain.reconciliation.index import DocIndex, PartyIndex, cents_of
from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Party, Tx
from sevdesk_mcp.domain.reconciliation.status import (
    choices_why,
    confident_why,
    doubts,
    missing_why,
)
from sevdesk_mcp.domain.reconciliation.text import (
    NumberToken,
    iban,
    name_tokens,
    near_misses,
    numbers_in,
    similar,
)

SHOWN: Final = 0.30
# a number that only nearly names the document (a typo, another prefix, another exact match):
# its weight, and the mark a party's name may lift to an anchor
WEAK_NUMBER: Final = 0.30
MAX_SHOWN: Final = 3
MAX_PER_CONTACT: Final = 50
MAX_PER_AMOUNT: Final = 20
UNIQUE: Final = 0.25
Status = Literal["confident", "choices", "no_match"]
PARTS: Final = frozenset({"partial", "short"})
_PARTY_VALUES: Final = {
    "the IBAN is the contact's": 0.25,
    "the customer number is the contact's": 0.20,
}


class Verdict(msgspec.Struct, frozen=True):
    """What the scorer says about one transaction.

    :param why: how sure it is and why; for no match, what is missing.
    """

    tx: Tx
    status: Status
    candidates: tuple[Candidate, ...]
    category: str | None
    why: str = ""


class Turn(msgspec.Struct):
    """One transaction while it is scored: what is worked out once and read per candidate.

    :param named: whether its purpose names a document (an anchoring number).
    :param fits: per contact, the amount fit of each of its open documents (on demand).
    """

    tx: Tx
    paid: Paid
    clues: Clues
    named: bool
    fits: dict[int, list[float]] = msgspec.field(default_factory=dict)


class Scorer:
    """Scores transactions against one set of open documents and contacts."""

    def __init__(self, docs: Iterable[OpenDoc], parties: Iterable[Party]) -> None:
        self.docs = DocIndex.of(docs)
        self.parties = PartyIndex.of(parties)

    def judge(self, tx: Tx) -> Verdict:
        """:returns: the verdict on ``tx``."""
        tokens = numbers_in(tx.purpose)
        clues = Clues(self._numbers(tokens), *self._parties(tx, tokens))
        turn = Turn(tx, Paid.of(tx), clues, any(w.anchor for _, w in clues.numbers.values()))
        found = [self._single(turn, doc) for doc in self._candidates(tx, clues)]
        found += collective.groups(tx, self.docs, clues)
        return decide(tx, found, partial(self._missing, tx, clues, found))

    def _missing(self, tx: Tx, clues: Clues, found: list[Draft]) -> str:
        same = bool(self.docs.by_amount.get(tx.sign * cents_of(tx.rest)))  # keyed by sign
        best = max((d.score for d in found), default=None)
        return missing_why(tx, clues, same, best)

    def _candidates(self, tx: Tx, clues: Clues) -> list[OpenDoc]:
        seen: dict[tuple[str, int], OpenDoc] = {}
        sign = tx.sign
        same = self.docs.by_amount.get(tx.sign * cents_of(tx.rest), [])
        pools = [same if len(same) <= MAX_PER_AMOUNT else []]  # a common amount tells nothing
        pools += [self.docs.by_contact.get(ident, [])[:MAX_PER_CONTACT] for ident in clues.parties]
        pools += [self.docs.by_word.get(w, [])[:MAX_PER_AMOUNT] for w in clues.payer]
        pools.append([doc for doc, _ in clues.numbers.values()])
        for pool in pools:
            for doc in pool:
                if doc.sign == sign:
                    seen.setdefault(doc.key, doc)
        return list(seen.values())

    def _numbers(self, tokens: list[NumberToken]) -> dict[tuple[str, int], tuple[OpenDoc, Weight]]:
        found: dict[tuple[str, int], tuple[OpenDoc, Weight]] = {}
        for token in (t for t in tokens if not t.customer):
            exact = self.docs.by_number.get(token.digits, [])
            for doc in exact:
                found.setdefault(doc.key, (doc, self._named(doc, token)))
            if exact:
                continue
            for near in near_misses(token.digits):
                for doc in self.docs.by_number.get(near, []):
                    why = partial(_typo, token, doc)
                    found.setdefault(doc.key, (doc, Weight(WEAK_NUMBER, why)))
        return found

    def _named(self, doc: OpenDoc, token: NumberToken) -> Weight:
        own = self.docs.facts_of(doc).prefix
        if doc.kind != "voucher" and token.prefix in self.docs.prefixes and token.prefix != own:
            return Weight(WEAK_NUMBER, partial(_other_prefix, token, doc))
        if token.read_as is not None:
            return Weight(0.50, partial(_written, token, doc), anchor=True)
        return Weight(0.55, partial(_names, doc), anchor=True)

    def _parties(
        self, tx: Tx, tokens: list[NumberToken]
    ) -> tuple[dict[int, Weight], frozenset[int], frozenset[str]]:
        found: dict[int, list[str]] = {}
        compact = iban(tx.iban)
        for party in self.parties.by_iban.get(compact, []) if compact else []:
            found.setdefault(party.id, []).append("the IBAN is the contact's")
        for token in (t for t in tokens if t.customer):
            known = self.parties.by_customer.get(token.digits.lstrip("0"))
            if known is not None:
                found.setdefault(known.id, []).append("the customer number is the contact's")
        strong = frozenset(found)
        payer = name_tokens(tx.counterparty)
        for ident in sorted(self.parties.named(payer)):
            if similar(self.parties.words[ident], payer) >= 0.5:
                found.setdefault(ident, []).append("the payer's name is the contact's")
        return {i: _party_weight(r) for i, r in found.items()}, strong, payer

    def _single(self, turn: Turn, doc: OpenDoc) -> Draft:
        tx, clues, facts = turn.tx, turn.clues, self.docs.facts_of(doc)
        fit = amount_fit(turn.paid, facts)
        named = clues.numbers.get(doc.key)
        number = named[1] if named is not None else None
        if number is not None and not number.anchor and fit.settle != "full":
            number = Weight(0.10, number.why)
        party = clues.parties.get(doc.contact_id) if doc.contact_id is not None else None
        if doc.contact_id is None and similar(facts.words, clues.payer) >= 0.5:
            party = Weight(0.15, "the payee's name is the receipt's supplier")
        unique = None
        if not turn.named and doc.contact_id in clues.strong and fit.settle != "partial":
            unique = self._unique(turn, doc, fit.weight.value)
        if number is not None and fit.settle in PARTS and self._exact_other(tx, doc):
            number = Weight(WEAK_NUMBER, partial(_but_other, number.why))
        if number is not None and number.value == WEAK_NUMBER and party is not None:  # typo + party
            number = Weight(number.value, number.why, anchor=fit.settle == "full")
        return candidate(
            [doc], fit.settle, [number, fit.weight, party, unique, date_weight(tx, doc)]
        )

    def _exact_other(self, tx: Tx, doc: OpenDoc) -> bool:
        same = self.docs.by_amount.get(tx.sign * cents_of(tx.rest), [])
        return any(d.contact_id == doc.contact_id and d.key != doc.key for d in same)

    def _unique(self, turn: Turn, doc: OpenDoc, fit: float) -> Weight | None:
        assert doc.contact_id is not None  # the caller checked
        fits = turn.fits.get(doc.contact_id)
        if fits is None:
            fits = turn.fits[doc.contact_id] = self._fits(turn, doc.contact_id)
        if sum(value >= fit for value in fits) != 1:
            return None
        return Weight(UNIQUE, "it is the contact's only open document this amount fits", True)

    def _fits(self, turn: Turn, contact_id: int) -> list[float]:
        """:returns: the amount fit of each open document of the contact the transaction pays
        (its sign), worked out once per transaction and contact."""
        sign = turn.tx.sign
        return [
            amount_fit(turn.paid, self.docs.facts_of(d)).weight.value
            for d in self.docs.by_contact.get(contact_id, [])
            if d.sign == sign
        ]


def _typo(token: NumberToken, doc: OpenDoc) -> str:
    return f"the purpose's {token.digits} is one typo away from {label(doc)}"


def _other_prefix(token: NumberToken, doc: OpenDoc) -> str:
    return f"the purpose names {token.prefix.upper()} {token.digits}, not {label(doc)}"


def _written(token: NumberToken, doc: OpenDoc) -> str:
    return f"the purpose names {label(doc)} (written {token.read_as!r})"


def _names(doc: OpenDoc) -> str:
    return f"the purpose names {label(doc)}"


def _but_other(number: Why) -> str:
    said = number if isinstance(number, str) else number()
    return f"{said}, but another open document of the contact is this amount"


def _party_weight(reasons: list[str]) -> Weight:
    value = _PARTY_VALUES.get(reasons[0], 0.15)
    if len(reasons) > 1:
        value += 0.05
    return Weight(value, " and ".join(reasons))


def decide(tx: Tx, found: list[Draft], missing: Callable[[], str] | None = None) -> Verdict:
    """:returns: the verdict from the candidates: the best first, each document set once;
    the reasons are written only for the candidates shown; ``missing`` says what is missing
    when nothing is shown."""
    best: dict[tuple[tuple[str, int], ...], Draft] = {}
    for one in found:
        kept = best.get(one.keys)
        if kept is None or one.score > kept.score:
            best[one.keys] = one
    ordered = sorted(
        (c for c in best.values() if c.score >= SHOWN),
        key=lambda c: (-c.score, len(c.docs), c.keys),
    )
    shown = tuple(c.final() for c in ordered[:MAX_SHOWN])
    if not shown:
        why = missing() if missing is not None else "no match"
        return Verdict(tx, "no_match", shown, category_of(tx), why)
    against = doubts(shown)
    if not against:
        return Verdict(tx, "confident", shown, None, confident_why(shown))
    return Verdict(tx, "choices", shown, category_of(tx), choices_why(against))


def reconcile(
    txs: Iterable[Tx], docs: Iterable[OpenDoc], parties: Iterable[Party]
) -> list[Verdict]:
    """:returns: a verdict per transaction, in the order given."""
    scorer = Scorer(docs, parties)
    return [scorer.judge(tx) for tx in txs]
