"""A candidate match: the documents, how they are settled, its confidence and its reasons.

Scoring drafts many candidates per transaction and shows a few: a :class:`Draft` keeps its
evidence, and only the drafts that are shown write their reasons (:meth:`Draft.final`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import msgspec

from sevdesk_mcp.domain.reconciliation.evidence import Settle, Weight
from sevdesk_mcp.domain.reconciliation.model import OpenDoc


class Candidate(msgspec.Struct, frozen=True):
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


class Draft(NamedTuple):
    """A candidate whose reasons are not written yet (a tuple: made for every candidate)."""

    docs: tuple[OpenDoc, ...]
    settle: Settle
    score: float
    weights: tuple[Weight, ...]
    anchored: bool
    keys: tuple[tuple[str, int], ...]

    def final(self) -> Candidate:
        """:returns: the candidate with its reasons in words."""
        reasons = tuple(w.reason for w in self.weights)
        return Candidate(self.docs, self.settle, self.score, reasons, self.anchored)


class Clues(msgspec.Struct, frozen=True):
    """What the transaction says about itself: numbers, and the contacts it points to."""

    numbers: dict[tuple[str, int], tuple[OpenDoc, Weight]]
    parties: dict[int, Weight]
    strong: frozenset[int]
    payer: frozenset[str]


def candidate(docs: Sequence[OpenDoc], settle: Settle, weights: Iterable[Weight | None]) -> Draft:
    """:returns: a candidate from its evidence (confidence capped at 0.99)."""
    kept = tuple([w for w in weights if w is not None])
    score = round(max(0.0, min(0.99, sum([w.value for w in kept]))), 2)
    anchored = any([w.anchor for w in kept])
    return Draft(tuple(docs), settle, score, kept, anchored, tuple([d.key for d in docs]))
