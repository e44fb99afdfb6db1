"""Low-value assets and assets (§6(2), (2a), §7 EStG): the company's option for the year and
the net amount decide, never the words on the receipt.

- up to 250 EUR net: expensed in the year of acquisition (any option);
- ``gwg``: 250.01-800 EUR net expensed in full in the year of acquisition, paid or not;
- ``pool``: 250.01-1,000 EUR net into the year's Sammelposten, written off 1/5 a year;
- above (or ``depreciate`` above 250 EUR): an asset, depreciated over its useful life, which
  sevDesk does not hold: the answer lists it and says which depreciation to enter.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import ZERO, cents
from sevdesk_mcp.domain.reports.company import CompanyFacts, Fact, LowValueChoice

EXPENSE_LIMIT: Final = Decimal(250)
GWG_LIMIT: Final = Decimal(800)
POOL_LIMIT: Final = Decimal(1000)
POOL_YEARS: Final = 5
SETTING: Final = "SEVDESK_LOW_VALUE_ASSETS"
DEPRECIATION: Final = (
    "enter its depreciation (AfA, §7 EStG) from the month of acquisition over its useful life "
    "(AfA table); computer hardware and software may take a 1-year useful life (BMF "
    "22.2.2022); movable assets acquired 1.7.2025-31.12.2027 may take 30 % declining "
    "balance (§7(2) EStG)"
)


def choice_of(choices: CompanyFacts, year: int) -> tuple[LowValueChoice, Fact]:
    """:returns: the low-value asset option of ``year`` and where it came from."""
    if year in choices.low_value_by_year:
        chosen = choices.low_value_by_year[year]
        return chosen, Fact(value=chosen, source=f"setting {SETTING} ({year}:{chosen})")
    if choices.low_value_assets is not None:
        chosen = choices.low_value_assets
        return chosen, Fact(value=chosen, source=f"setting {SETTING}")
    source = (
        "assumed: GWG, expensed in full up to 800 EUR net (§6(2) EStG); set "
        f"{SETTING}=pool or depreciate (or {year}:pool) if the company chose otherwise"
    )
    return "gwg", Fact(value="gwg", source=source)


def treatment(net: Decimal, choice: LowValueChoice) -> str:
    """:returns: ``expensed``, ``gwg``, ``pool`` or ``asset`` for an item of ``net`` EUR."""
    if net <= EXPENSE_LIMIT:
        return "expensed"
    if choice == "gwg" and net <= GWG_LIMIT:
        return "gwg"
    if choice == "pool" and net <= POOL_LIMIT:
        return "pool"
    return "asset"


def why(kind: str, net: Decimal, choice: LowValueChoice, year: int) -> str:
    """:returns: the rule that gave an item of ``net`` EUR its treatment ``kind``."""
    shown = f"{net:f} EUR net"
    if kind == "expensed":
        return f"{shown}, at most 250 EUR: expensed in the year of acquisition (§6(2a) S. 4 EStG)"
    if kind == "gwg":
        return (
            f"{shown}, 250.01-800 EUR, option GWG: expensed in full in the year of acquisition, "
            "paid or not (§6(2) EStG); keep it in the GWG register"
        )
    if kind == "pool":
        return (
            f"{shown}, 250.01-1,000 EUR, option pool: into the Sammelposten {year}, written "
            "off 1/5 a year (§6(2a) EStG)"
        )
    limit = {"gwg": "800", "pool": "1,000", "depreciate": "250"}[choice]
    return f"{shown}, above {limit} EUR (option {choice}): an asset, depreciated (§7 EStG)"


def pool_write_off(pools: dict[int, Decimal], year: int) -> Decimal:
    """:returns: the write-off of ``year``: 1/5 of each pool of the year and the four before."""
    since = range(year - POOL_YEARS + 1, year + 1)
    return cents(sum((pools.get(y, ZERO) for y in since), ZERO) / POOL_YEARS)
