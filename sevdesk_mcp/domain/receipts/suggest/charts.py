"""Which chart of accounts (SKR03 or SKR04) a company keeps: the setting where there is one,
else told from the booking accounts sevDesk lists (which numbers exist), else SKR03 assumed and
said so. sevDesk's API names no chart; both share some numbers, so each chart's typical
expense accounts are counted and the clearly larger count decides."""

from __future__ import annotations

from collections.abc import Collection
from typing import Final, Literal

import msgspec

Chart = Literal["skr03", "skr04"]
# accounts typical of one chart and never an expense account of the other
SKR03_MARKS: Final = frozenset(
    {"1200", "1590", "4210", "4360", "4530", "4650", "4910", "4920", "4930", "4970", "8400"}
)
SKR04_MARKS: Final = frozenset(
    {"1800", "1370", "6310", "6400", "6530", "6640", "6800", "6805", "6815", "6855", "4400"}
)


class ChartFact(msgspec.Struct, frozen=True, kw_only=True):
    """The chart and where it came from."""

    chart: Chart
    source: str


def chart_of(numbers: Collection[str], setting: Chart | None = None) -> ChartFact:
    """:returns: the company's chart: ``setting``, else the one whose typical accounts are
    among ``numbers``, else SKR03 (assumed)."""
    if setting is not None:
        return ChartFact(chart=setting, source="setting SEVDESK_CHART")
    skr03 = len(SKR03_MARKS.intersection(numbers))
    skr04 = len(SKR04_MARKS.intersection(numbers))
    if skr04 > skr03:
        return ChartFact(chart="skr04", source=f"the booking accounts ({skr04} SKR04 numbers)")
    if skr03 > skr04:
        return ChartFact(chart="skr03", source=f"the booking accounts ({skr03} SKR03 numbers)")
    return ChartFact(
        chart="skr03", source="assumed: the booking accounts name no chart; set SEVDESK_CHART"
    )
