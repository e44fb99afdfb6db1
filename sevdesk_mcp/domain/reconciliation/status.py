"""How sure a verdict is, in words: why it is confident, why it is only choices, and, when
nothing fits, what is missing (rather than a guess)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sevdesk_mcp.domain.money import shown
from sevdesk_mcp.domain.reconciliation.candidate import Candidate, Clues
from sevdesk_mcp.domain.reconciliation.evidence import label
from sevdesk_mcp.domain.reconciliation.model import Tx

CONFIDENT: Final = 0.85
MARGIN: Final = 0.15
_UNANCHORED: Final = (
    "nothing anchors it (no document number in the purpose, nor the only open document of the "
    "contact its IBAN or customer number names that this amount fits)"
)
_SETTLES: Final = {
    "short": "a difference stays open and the customer should be asked first",
    "foreign": "it is in another currency: book it in sevDesk itself, with the rate",
}


def doubts(shown_: Sequence[Candidate]) -> list[str]:
    """:returns: what keeps the first suggestion from being confident (empty: nothing)."""
    top = shown_[0]
    found = [_SETTLES[top.settle]] if top.settle in _SETTLES else []
    if top.score < CONFIDENT:
        found.append(f"its confidence {top.score:.2f} is below {CONFIDENT}")
    if not top.anchored:
        found.append(_UNANCHORED)
    if len(shown_) > 1 and top.score - shown_[1].score < MARGIN:
        found.append(f"the next suggestion is only {top.score - shown_[1].score:.2f} behind")
    return found


def confident_why(shown_: Sequence[Candidate]) -> str:
    """:returns: why the first suggestion is confident."""
    top = shown_[0]
    ahead = (
        f", {top.score - shown_[1].score:.2f} ahead of the next" if len(shown_) > 1 else ", alone"
    )
    return f"confident: {top.score:.2f} (at least {CONFIDENT}), anchored{ahead}"


def choices_why(reasons: list[str]) -> str:
    """:returns: why the suggestions are choices for a human."""
    return "choices, ask the user: " + "; ".join(reasons)


def missing_why(tx: Tx, clues: Clues, same_amount: bool, best: float | None) -> str:
    """:returns: what is missing for a match, so that nothing is guessed."""
    found = []
    if clues.numbers:
        named = ", ".join(sorted(label(d) for d, _ in clues.numbers.values()))
        found.append(f"the purpose names {named}, but it does not fit by amount or date")
    else:
        found.append("the purpose names no open document's number")
    if clues.parties:
        found.append("the payer is a known contact, but none of its open documents fits")
    else:
        found.append("the IBAN, customer number and name match no contact")
    if not same_amount:
        found.append(f"no open document of this direction is {shown(tx.rest, tx.currency)}")
    if best is not None:
        found.append(f"the best fit reached only {best:.2f}")
    return "no match: " + "; ".join(found) + ". Nothing is guessed: name the document to book."
