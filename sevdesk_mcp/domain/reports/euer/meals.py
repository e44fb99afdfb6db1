"""Business meals and gifts (§4(5) S. 1 Nr. 1, 2, §4(7) EStG; §15(1a) UStG).

A business meal is 70 % deductible; the other 30 % is shown apart, and its input tax stays
fully deductible. A gift to a business friend is deductible only while the gifts to that
person stay at most 50 EUR in the year (a Freigrenze): above it the **whole** amount is not
deductible, nor is its input tax, so the gross amount is shown apart.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import cents

MEAL_APART: Final = Decimal("0.30")  # §4(5) S. 1 Nr. 2 EStG: 70 % deductible
GIFT_LIMIT: Final = Decimal(50)  # per person and year, §4(5) S. 1 Nr. 1 EStG (from 2024)
MEALS_RULE: Final = (
    "Business meals (SKR03 4650, SKR04 6640): 70 % deductible, 30 % shown apart; a booking on "
    "4654/6644 is the non-deductible part already; the input tax is fully deductible "
    "(§4(5) S. 1 Nr. 2 EStG, §15(1a) S. 2 UStG). Every such receipt is taken as a meal for "
    "a business occasion; a staff event is fully deductible and belongs on another account."
)
GIFTS_RULE: Final = (
    "Gifts (SKR03 4630/4635, SKR04 6610/6620): each receipt on the gift account is taken as "
    "one gift to one person, since sevDesk does not record the recipient; above 50 EUR (net, "
    "gross for a small business) the whole amount and its input tax are not deductible "
    "(§4(5) S. 1 Nr. 1 EStG, §15(1a) UStG). Check the 50 EUR per person and year."
)


def meal_split(net: Decimal) -> tuple[Decimal, Decimal]:
    """:returns: the deductible 70 % and the 30 % shown apart of a meal of ``net`` EUR."""
    apart = cents(net * MEAL_APART)
    return net - apart, apart


def gift_over_limit(net: Decimal, gross: Decimal, small_business: bool) -> bool:
    """:returns: whether a gift exceeds the 50 EUR limit (net, or gross without input-tax
    deduction)."""
    return (gross if small_business else net) > GIFT_LIMIT
