"""The net amount decides what an item is (german-tax-rules.md §2, §3; §6(2), (2a) EStG): up to
250 EUR net an expense, up to 800 EUR net a GWG (written off at once) or, where the company
chose it, the pool (Sammelposten, 250.01 to 1,000 EUR, written off over 5 years, then for all
such items of the year), above that an asset depreciated over its useful life. Never the words.

The company's option is a setting the tool hands down (``gwg``, ``pool`` or ``depreciate``);
unset, the GWG option is assumed and the answer says so.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.receipts.suggest.charts import Chart

Treatment = Literal["expense", "gwg", "pool", "asset"]
LowValueChoice = Literal["gwg", "pool", "depreciate"]
EXPENSE_MAX_NET: Final = Decimal(250)
GWG_MAX_NET: Final = Decimal(800)
POOL_MAX_NET: Final = Decimal(1000)
# chart -> treatment -> accounts, the usual first (§3: an asset 0420 or 0490 / 0650 or 0690)
ACCOUNTS: Final[dict[Chart, dict[Treatment, tuple[str, ...]]]] = {
    "skr03": {"gwg": ("0480",), "pool": ("0485",), "asset": ("0420", "0490")},
    "skr04": {"gwg": ("0670",), "pool": ("0675",), "asset": ("0650", "0690")},
}


class Decided(msgspec.Struct, frozen=True, kw_only=True):
    """What the net amount makes of an item, and why in words."""

    treatment: Treatment
    why: str


def decide(net: Decimal, choice: LowValueChoice | None) -> Decided:
    """:returns: the treatment of an item of ``net`` EUR under the company's option."""
    option = choice or "gwg"
    said = f"option {option}" + ("" if choice else " assumed (no setting)")
    shown = f"{net:.2f} EUR net"
    if net <= EXPENSE_MAX_NET:
        return Decided(treatment="expense", why=f"{shown}: up to 250 EUR an expense")
    if option == "pool" and net <= POOL_MAX_NET:
        return Decided(treatment="pool", why=f"{shown}: 250.01-1,000 EUR in the pool ({said})")
    if option == "gwg" and net <= GWG_MAX_NET:
        return Decided(treatment="gwg", why=f"{shown}: up to 800 EUR a GWG ({said})")
    limit = "1,000" if option == "pool" else "800"
    if option == "depreciate":
        return Decided(treatment="asset", why=f"{shown}: depreciated as an asset ({said})")
    return Decided(treatment="asset", why=f"{shown}: above {limit} EUR an asset ({said})")


def accounts_for(chart: Chart, treatment: Treatment) -> tuple[str, ...]:
    """:returns: the accounts of ``treatment`` in ``chart``, the usual first; none for an
    expense (its account comes from the words)."""
    return ACCOUNTS[chart].get(treatment, ())


def treatment_of(chart: Chart, number: str) -> Treatment | None:
    """:returns: the treatment account ``number`` books in ``chart`` (GWG, pool, asset), or
    ``None`` for any other account."""
    for treatment, numbers in ACCOUNTS[chart].items():
        if number in numbers:
            return treatment
    return None
