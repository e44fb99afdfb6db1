"""The words table matched against a receipt's text: each case scores by its matched phrases
(a longer phrase is stronger: "Kfz-Versicherung" is car insurance before insurance), the best
first. Phrases are whole words (:mod:`.text`), so "Büro" never matches "Büro- und Werkstattmiete"
as a prefix would."""

from __future__ import annotations

from functools import cache
from typing import Final

import msgspec

from sevdesk_mcp.domain.receipts.suggest.text import contains, phrase
from sevdesk_mcp.domain.receipts.suggest.words import CASES, Case

PHRASE_WEIGHT: Final = 10  # the longest phrase of n words: 10 n; 2 per other, 1 per name hit
STRONG_SCORE: Final = 11  # a phrase of two words, or two phrases: the words are clear


class Matched(msgspec.Struct, frozen=True):
    """A case of the words table that the text matches, with its score and the phrases."""

    case: Case
    score: int
    phrases: list[str]

    @property
    def strong(self) -> bool:
        """:returns: whether the words say it clearly (a longer phrase or several)."""
        return self.score >= STRONG_SCORE


@cache
def _phrases(case: Case) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((p, phrase(p)) for p in case.phrases)


def match(said: tuple[str, ...], named: tuple[str, ...] = ()) -> list[Matched]:
    """:returns: the cases whose phrases occur in the words ``said`` (the receipt's text) or
    ``named`` (the supplier's name, which only breaks ties: a supplier's name says less than
    what it billed), best first, then in table order."""
    found: list[Matched] = []
    for case in CASES:
        hits = [(text, len(words)) for text, words in _phrases(case) if contains(said, words)]
        extra = [text for text, words in _phrases(case) if contains(named, words)]
        extra = [text for text in extra if text not in {t for t, _ in hits}]
        if hits or extra:
            longest = max((size for _, size in hits), default=0)
            score = PHRASE_WEIGHT * longest + 2 * max(len(hits) - 1, 0) + len(extra)
            found.append(Matched(case, score, [text for text, _ in hits] + extra))
    return sorted(found, key=lambda m: -m.score)
