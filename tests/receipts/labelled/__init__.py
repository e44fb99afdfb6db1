"""A labelled set of receipts for the booking suggestions (issue #37), both charts.

``LABELLED_RECEIPTS`` holds every receipt with its right answer written by hand from
``../shared/docs/german-tax-rules.md`` §3 and §1; :func:`receipts_of` picks one chart;
:func:`build_labelled_fake` builds a fake account per chart holding the history receipts
(``HISTORY_RECEIPTS``) the history case needs.
"""

from __future__ import annotations

from typing import Final

from tests.receipts.labelled.build import LABELLED_TOKEN, LabelledBooks, build_labelled_fake
from tests.receipts.labelled.history import HISTORY_RECEIPTS
from tests.receipts.labelled.model import (
    CHARTS,
    BookedReceipt,
    Chart,
    LabelledReceipt,
    Line,
    Treatment,
)
from tests.receipts.labelled.skr03 import SKR03_RECEIPTS
from tests.receipts.labelled.skr04 import SKR04_RECEIPTS

__all__ = [
    "CHARTS",
    "HISTORY_RECEIPTS",
    "LABELLED_RECEIPTS",
    "LABELLED_TOKEN",
    "BookedReceipt",
    "Chart",
    "LabelledBooks",
    "LabelledReceipt",
    "Line",
    "Treatment",
    "build_labelled_fake",
    "receipts_of",
]

LABELLED_RECEIPTS: Final[tuple[LabelledReceipt, ...]] = (*SKR03_RECEIPTS, *SKR04_RECEIPTS)


def receipts_of(chart: Chart) -> tuple[LabelledReceipt, ...]:
    """:returns: the labelled receipts of ``chart``."""
    return tuple(r for r in LABELLED_RECEIPTS if r.chart == chart)
