"""The shape of a booking account and the tax rules its receipt guidance allows.

Shared by both charts (``accounts.py`` SKR03, ``accounts_skr04.py`` SKR04). A rule set is a
tuple of (tax rule id, allowed tax rates), as ``allowedTaxRules`` lists them (§3.6).
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

Chart = Literal["skr03", "skr04"]
SKR03: Final[Chart] = "skr03"
SKR04: Final[Chart] = "skr04"
EXPENSE: Final = "EXPENSE"
REVENUE: Final = "REVENUE"
ALL_RATES: Final = ("ZERO", "SEVEN", "NINETEEN")
ZERO_ONLY: Final = ("ZERO",)

Rules = tuple[tuple[int, tuple[str, ...]], ...]

# rule 9 input tax; 12-14 reverse charge (at 0 %, the tax is the buyer's); 8 intra-EU
# acquisition (at the German rate); 10 no input tax (exempt or foreign VAT)
EXPENSE_STANDARD: Final[Rules] = ((9, ALL_RATES), (12, ZERO_ONLY), (13, ZERO_ONLY), (14, ZERO_ONLY))
EXPENSE_SERVICES: Final[Rules] = (*EXPENSE_STANDARD, (10, ZERO_ONLY))
EXPENSE_GOODS: Final[Rules] = (*EXPENSE_SERVICES, (8, ALL_RATES))
EXPENSE_NO_VAT: Final[Rules] = ((9, ZERO_ONLY), (10, ZERO_ONLY))
NOT_TAXABLE: Final[Rules] = ((16, ZERO_ONLY), (22, ZERO_ONLY))
REVENUE_19: Final[Rules] = ((1, ("NINETEEN",)),)
REVENUE_7: Final[Rules] = ((1, ("SEVEN",)),)
REVENUE_ANY: Final[Rules] = ((1, ALL_RATES),)
REVENUE_EU: Final[Rules] = ((3, ALL_RATES),)
REVENUE_EXEMPT: Final[Rules] = ((4, ZERO_ONLY),)
PURCHASES_7: Final[Rules] = ((9, ("SEVEN",)),)
PURCHASES_19: Final[Rules] = ((9, ("NINETEEN",)),)
E: Final = (EXPENSE,)
R: Final = (REVENUE,)
BOTH: Final = (EXPENSE, REVENUE)


class Account(NamedTuple):
    """One booking account of a chart and its guidance."""

    id: int
    number: str
    name: str
    description: str | None
    receipt_types: tuple[str, ...]
    rules: Rules
    hidden: bool = False
