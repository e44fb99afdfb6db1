"""A candidate match: the documents, how they are settled, its confidence and its reasons."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sevdesk_mcp.domain.reconciliation.evidence import Settle, Weight
from sevdesk_mcp.domain.reconciliation.model import OpenDoc


@dataclass(frozen=True, slots=True)
class Candidate:
    """Documents the transaction may pay, and how (one settle for all of them)."""

    docs: tuple[OpenDoc, ...]
    settle: Settle
    score: float
    reasons: tuple[str, ...]
    anchored: bool

    @property
    def keys(self) -> tuple[tuple[str, int], ...]:
        """:returns: the documents' keys, for tie-breaks and comparisons."""
        return tuple(d.key for d in self.docs)


@dataclass(frozen=True, slots=True)
class Clues:
    """What the transaction says about itself: numbers, and the contacts it points to."""

    numbers: dict[tuple[str, int], tuple[OpenDoc, Weight]]
    parties: dict[int, Weight]
    strong: frozenset[int]
    payer: frozenset[str]


def candidate(
    docs: Sequence[OpenDoc], settle: Settle, weights: Iterable[Weight | None]
) -> Candidate:
    """:returns: a candidate from its evidence (confidence capped at 0.99)."""
    kept = [w for w in weights if w is not None]
    score = round(max(0.0, min(0.99, sum(w.value for w in kept))), 2)
    return Candidate(
        tuple(docs), settle, score, tuple(w.reason for w in kept), any(w.anchor for w in kept)
    )
