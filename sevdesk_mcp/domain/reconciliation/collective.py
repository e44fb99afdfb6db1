"""One transaction paying several documents (a collective payment, Sammelüberweisung).

- The purpose names several documents: they are paid together when the transaction is their
  open sum (or their sum after the cash discounts their terms grant, paid within their days);
  anchored like a number.
- The purpose names none, but the payer is a known contact (IBAN or customer number): the
  subsets of two to four of the contact's open documents whose open sum is the amount are
  offered as choices, never as confident (several subsets may add up the same).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from functools import partial
from itertools import combinations
from typing import Final

from sevdesk_mcp.domain.money import ZERO, shown
from sevdesk_mcp.domain.reconciliation.candidate import Clues, Draft, candidate
from sevdesk_mcp.domain.reconciliation.difference import in_time
from sevdesk_mcp.domain.reconciliation.evidence import Weight, label
from sevdesk_mcp.domain.reconciliation.index import DocIndex, cents_of, discounted
from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Tx

MAX_SUBSET_DOCS: Final = 10
MAX_PARTS: Final = 4


def groups(tx: Tx, docs: DocIndex, clues: Clues) -> list[Draft]:
    """:returns: the collective candidates of ``tx``."""
    named = [d for d, w in clues.numbers.values() if w.anchor and _fits(tx, d)]
    found = _named(tx, named, clues) if len(named) > 1 else []
    if not found:
        for ident in sorted(clues.strong):
            found += list(_subsets(tx, docs.by_contact.get(ident, []), clues))
    return found


def _fits(tx: Tx, doc: OpenDoc) -> bool:
    return doc.sign == tx.sign and doc.currency == tx.currency


def _named(tx: Tx, docs: list[OpenDoc], clues: Clues) -> list[Draft]:
    docs = sorted(docs, key=lambda d: (d.issued or dt.date.min, d.id))
    total = sum((d.open for d in docs), ZERO)
    cheaper = sum((_granted(tx, d) for d in docs), ZERO)
    number = Weight(0.55, partial(_names, docs), anchor=True)
    party = _party(docs, clues)
    if tx.rest == total:
        fit = Weight(0.35, partial(_exact_sum, tx.rest))
        return [candidate(docs, "full", [number, fit, party])]
    if tx.rest == cheaper and cheaper != total:
        fit = Weight(0.30, "their open sum less the cash discounts of their payment terms")
        return [candidate(docs, "cash_discount", [number, fit, party])]
    if tx.rest < total:
        fit = Weight(-0.25, partial(_part_of_sum, tx.rest, total))
        return [candidate(docs, "partial", [number, fit, party])]
    return []


def _granted(tx: Tx, doc: OpenDoc) -> Decimal:
    cheaper = discounted(doc)
    return cheaper if cheaper is not None and in_time(tx, doc) else doc.open


def _names(docs: list[OpenDoc]) -> str:
    return f"the purpose names {', '.join(label(d) for d in docs)}"


def _exact_sum(paid: Decimal) -> str:
    return f"the amount {shown(paid)} is exactly their open sum"


def _part_of_sum(paid: Decimal, total: Decimal) -> str:
    return f"{shown(paid)} of their open sum {shown(total)}: paid in part"


def _party(docs: list[OpenDoc], clues: Clues) -> Weight | None:
    weights = {clues.parties.get(d.contact_id) for d in docs if d.contact_id is not None}
    return next(iter(weights)) if len(weights) == 1 else None


def _subsets(tx: Tx, own: list[OpenDoc], clues: Clues) -> Iterator[Draft]:
    pool = sorted((d for d in own if _fits(tx, d)), key=lambda d: d.id)[:MAX_SUBSET_DOCS]
    target = cents_of(tx.rest)
    amounts = [cents_of(d.open) for d in pool]
    hits = [
        combo
        for size in range(2, min(MAX_PARTS, len(pool)) + 1)
        for combo in combinations(range(len(pool)), size)
        if sum(amounts[i] for i in combo) == target
    ]
    for combo in hits:
        docs = [pool[i] for i in combo]
        why = f"{len(docs)} open documents of the contact add up to the amount"
        alone = Weight(0.10, "no other set of its open documents does") if len(hits) == 1 else None
        yield candidate(docs, "full", [Weight(0.35, why), _party(docs, clues), alone])
