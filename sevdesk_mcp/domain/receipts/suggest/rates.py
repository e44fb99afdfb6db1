"""Rate hints from german-tax-rules.md §1 and §3: which German rate a receipt of a case usually
carries, and the sentence that says why. The rate is fixed by the date of supply (§27(1) UStG):
from 1.1.2026 food served in restaurants is 7 % for good, drinks stay 19 %.

- books and journals 7 %; rail in Germany 7 % at any distance; taxi, bus and tram up to 50 km
  7 %; domestic flights 19 %; hotel rooms 7 % (breakfast drinks, parking, Wi-Fi 19 %);
- Deutsche Post's universal service exempt (0 %), other carriers 19 %;
- insurance, vehicle tax, bank fees and per diem: no VAT.

The receipt's own rate, where it shows one, is what is booked; the hint says when it differs
from the usual one.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.receipts.suggest.text import contains, phrase
from sevdesk_mcp.domain.receipts.suggest.words import NIL, NINETEEN, SEVEN, Case

FOOD_AT_SEVEN_FROM: Final = dt.date(2026, 1, 1)
_SEVEN_FARES: Final = tuple(
    phrase(p)
    for p in ("bahn", "bahnticket", "fahrkarte", "zugticket", "ice", "ic", "bahncard",
              "deutsche bahn", "fernverkehr", "nahverkehr", "taxi", "taxifahrt", "bus", "tram",
              "straßenbahn", "u bahn", "s bahn", "öpnv", "train", "railway", "bvg")
)  # fmt: skip
_FLIGHTS: Final = tuple(phrase(p) for p in ("flug", "flugticket", "flight", "lufthansa"))
_EXEMPT_POST: Final = (phrase("deutsche post"), phrase("briefmarke"), phrase("briefmarken"),
                       phrase("internetmarke"), phrase("briefporto"))  # fmt: skip


def usual_rate(case: Case, said: tuple[str, ...], day: dt.date | None) -> Decimal | None:
    """:returns: the German rate receipts of ``case`` with the words ``said`` usually carry on
    ``day``, or ``None`` where only the receipt can say (rent, other expenses)."""
    if case.key == "fares":
        if any(contains(said, p) for p in _SEVEN_FARES):
            return SEVEN
        return NINETEEN if any(contains(said, p) for p in _FLIGHTS) else None
    if case.key == "postage":
        return NIL if any(contains(said, p) for p in _EXEMPT_POST) else NINETEEN
    if case.key == "meal":
        return SEVEN if _food_at_seven(day) else NINETEEN
    return case.rate


def hint(case: Case, day: dt.date | None) -> str:
    """:returns: the rate hint of ``case`` for a supply on ``day``."""
    if case.key == "meal" and not _food_at_seven(day):
        return "70/30 split (4654 / 6644 for the 30 %); before 2026 food and drinks 19 %"
    return case.hint


def _food_at_seven(day: dt.date | None) -> bool:
    return day is None or day >= FOOD_AT_SEVEN_FROM
