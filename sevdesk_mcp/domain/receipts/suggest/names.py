"""The weakest evidence: a whole word of the description that is a word of an account's own
name in sevDesk ("Porto" for 4910 Porto), for accounts the words table does not know (an
account the company added, a revenue account). Never the guidance's prose, never a prefix."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from sevdesk_mcp.domain.receipts.guidance import RECEIPT_TYPES, Guide
from sevdesk_mcp.domain.receipts.suggest.candidates import Candidate
from sevdesk_mcp.domain.receipts.suggest.model import ReceiptQuery
from sevdesk_mcp.domain.receipts.suggest.text import words

MIN_LETTERS: Final = 4
GENERIC: Final = frozenset(
    {"sonstige", "sonstiger", "kosten", "aufwendungen", "und", "fur", "von", "uber", "bis",
     "netto", "brutto", "ust", "vorsteuer", "nicht", "abzugsfahig", "abzugsfahige"}
)  # fmt: skip


def from_names(guides: Iterable[Guide], query: ReceiptQuery) -> list[Candidate]:
    """:returns: the accounts of ``query``'s kind one of whose name words the description
    says, the rule and rate left to the human (low confidence)."""
    said = set(words(query.description))
    out = []
    for guide in guides:
        if RECEIPT_TYPES[query.kind] not in guide.kinds:
            continue
        shared = sorted(w for w in _name_words(guide.name) if w in said)
        if shared:
            why = (
                f"name: the description's word '{shared[0]}' is in the account's name "
                f"'{guide.name}' (no table entry, no history)"
            )
            out.append(
                Candidate(
                    number=guide.number, rule=None, rate=None, confidence="low", evidence=[why]
                )
            )
    return sorted(out, key=lambda c: c.number)


def _name_words(name: str) -> set[str]:
    return {w for w in words(name) if len(w) >= MIN_LETTERS and w not in GENERIC}
