"""The real number ranges in the overlay: a finalized draft gets the number sevDesk would give.

Before a write to an invoice, credit note or order (and on each read of a range), the real
range is read without taking a number (``useNextNumber=false``); the overlay's counter is set
to its next value (then only raised: numbers taken in the rehearsal stay taken) and the
overlay numbers in the real range's format, with its prefix, date parts and padding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.rehearsal.upstream import SEQUENCE_OF, SEQUENCE_PATH, RealRange

# the overlay engine's range of each numbered model (its store's sequence key)
PREFIX_OF: Final = {"Invoice": "RE-", "CreditNote": "GU-", "Order": "AN-"}


def numbered_model(path: str, query: Mapping[str, str]) -> str | None:
    """:returns: the model whose number range a request may use: the path's (an invoice,
    credit note or order), or the range a ``SevSequence`` read names."""
    if path == SEQUENCE_PATH:
        wanted = query.get("objectType", "")
        return next((m for m, pair in SEQUENCE_OF.items() if pair[0] == wanted), None)
    model = path.strip("/").split("/")[0]
    return model if model in SEQUENCE_OF else None


def follow(store: Store, model: str, real: RealRange) -> None:
    """Number ``model`` in ``store`` as the real range ``real`` does: its format and padding,
    and its next value; once followed, the counter is never lowered, so numbers the rehearsal
    took stay taken (a range followed before has its format in ``store.number_formats``)."""
    prefix = PREFIX_OF[model]
    followed = prefix in store.number_formats
    store.number_formats[prefix] = (real.pattern, real.width)
    store.sequences[prefix] = max(store.peek_number(prefix), real.value) if followed else real.value
