"""Positions of a document draft: their checks, their body, and the sums sevDesk will compute.

sevDesk computes each position's net sum as quantity x net price, half-up to the cent, its tax
from that net sum, and adds the positions up (``docs/sevdesk-api.md`` §5.2); the preview shows
the same figures before anything is sent.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import HUNDRED, MAX_AMOUNT, PRICE_PLACES, ZERO, cents, total
from sevdesk_mcp.domain.writes import ref, whole
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import (
    NONE,
    Fact,
    Number,
    Piece,
    Plain,
    Said,
    Table,
    amount,
    fact,
    percent,
    quoted,
)

QUANTITY_PLACES: Final = 4
RATE_PLACES: Final = 2  # 5.5 % (FR), 13.5 % (IE), 25.5 % (FI): One-Stop-Shop rates
MAX_RATE: Final = Decimal(30)
COLUMNS: Final = (
    Said("Pos.", "Pos."),
    Said("Quantity", "Menge"),
    Said("Name", "Bezeichnung"),
    Said("Unit price", "Einzelpreis"),
    Said("VAT", "USt."),
    Said("Net", "Netto"),
)
"""The columns of a preview's positions, as on the document."""
RIGHT: Final = (0, 1, 3, 4, 5)  # the columns of numbers
DASHED: Final = "{0} \u2013 {1}"  # a position's name, an en dash, its text


class Line(msgspec.Struct, frozen=True):
    """One position: ``price`` is the net price of one unit in the document's currency;
    ``discount`` is percent of the position's net sum, or with ``discount_amount`` an amount
    (sevDesk's ``discount`` and ``isPercentage`` of a position)."""

    name: str
    quantity: Decimal
    price: Decimal
    tax_rate: Decimal
    unit_id: int = 1
    part_id: int | None = None
    text: str | None = None
    discount: Decimal = ZERO
    discount_amount: bool = False

    def gross_net(self) -> Decimal:
        """:returns: quantity x price before the discount, half-up to the cent."""
        return cents(self.quantity * self.price)

    def discounted(self) -> Decimal:
        """:returns: the discount in money, half-up to the cent."""
        if self.discount_amount:
            return cents(self.discount)
        return cents(self.gross_net() * self.discount / HUNDRED)

    def net(self) -> Decimal:
        """:returns: quantity x price less the discount, each half-up to the cent."""
        return self.gross_net() - self.discounted()

    def tax(self) -> Decimal:
        """:returns: the VAT of the position's net sum, half-up to the cent."""
        return cents(self.net() * self.tax_rate / HUNDRED)


def checked_line(line: Line, index: int) -> Line:
    """:returns: ``line`` if its quantity and price are sound amounts and its rate a percentage
        from 0 to 30 with at most two places (normalized: ``7.0`` becomes ``7``); which rates
        fit the tax rule and the buyer's country is checked by :mod:`.draft_checks`.

    :raises ToolInputError: naming the position and the field otherwise.
    """
    where = f"positions[{index}]"
    _amount(line.quantity, f"{where}.quantity", QUANTITY_PLACES, positive=True)
    _amount(line.price, f"{where}.unit_price", PRICE_PLACES, positive=False)
    if not line.name.strip():
        raise ToolInputError(f"{where}.name is empty; every position needs a name.")
    _discount(line, where)
    return msgspec.structs.replace(line, tax_rate=_rate(line.tax_rate, f"{where}.tax_rate"))


def _discount(line: Line, where: str) -> None:
    """:raises ToolInputError: for a discount below 0, above 100 % or above the position's net
    sum, or with more than two places."""
    if line.discount == ZERO:
        return
    name = f"{where}.discount_{'amount' if line.discount_amount else 'percent'}"
    most = line.gross_net() if line.discount_amount else HUNDRED
    exact = line.discount.is_finite() and line.discount == cents(line.discount)
    if not exact or not ZERO < line.discount <= most:
        raise ToolInputError(
            f"{name} must be above 0 and at most {most:f} "
            f"({'the position net sum' if line.discount_amount else 'percent'}), with at most "
            "two places."
        )


def _rate(value: Decimal, name: str) -> Decimal:
    """:returns: the VAT rate in percent, normalized (``7.0`` and ``"7"`` are 7, ``5.50`` is
        5.5).

    :raises ToolInputError: for a rate below 0, above 30 or with more than two places.
    """
    exact = value.is_finite() and value == value.quantize(Decimal(1).scaleb(-RATE_PLACES))
    if not exact or not ZERO <= value <= MAX_RATE:
        raise ToolInputError(
            f"{name} must be a VAT rate in percent from 0 to 30 with at most two places "
            "(19, 7, 0; in another EU state its rate, such as 20 or 5.5)."
        )
    return Decimal(int(value)) if value == value.to_integral_value() else value.normalize()


def _amount(value: Decimal, name: str, places: int, *, positive: bool) -> None:
    low_ok = value > 0 if positive else value > -MAX_AMOUNT
    if not value.is_finite() or not low_ok or value >= MAX_AMOUNT:
        bound = "above 0" if positive else "above -1000000000"
        raise ToolInputError(f"{name} must be a decimal number {bound} and below 1000000000.")
    if value != value.quantize(Decimal(1).scaleb(-places)):
        raise ToolInputError(f"{name} takes at most {places} decimal places.")


def position_body(line: Line, object_name: str) -> JsonObject:
    """:returns: the ``*PosSave`` entry of ``line`` (amounts as decimal strings)."""
    body: JsonObject = {
        "objectName": object_name,
        "mapAll": True,
        "quantity": format(line.quantity, "f"),
        "price": format(line.price, "f"),
        "name": line.name,
        "unity": ref(line.unit_id, "Unity"),
        "taxRate": format(line.tax_rate, "f"),
    }
    if line.text:
        body["text"] = line.text
    if line.discount:
        body["discount"] = format(line.discount, "f")
        body["isPercentage"] = not line.discount_amount
    if line.part_id is not None:
        body["part"] = ref(line.part_id, "Part")
    return body


def total_gross(lines: tuple[Line, ...]) -> Decimal:
    """:returns: the gross sum of all positions."""
    return total(line.net() + line.tax() for line in lines)


def sums_facts(lines: tuple[Line, ...], currency: str = "EUR") -> list[Fact]:
    """:returns: the preview facts of the positions (a table like the document's) and, under
    it, the sums (discounts if any, net, VAT per rate, gross)."""
    rows = tuple(_row(i, line, currency) for i, line in enumerate(lines, 1))
    by_rate: dict[Decimal, Decimal] = defaultdict(Decimal)
    for line in lines:
        by_rate[line.tax_rate.normalize()] += line.tax()
    net = total(line.net() for line in lines)
    facts = [fact("Positions", "Positionen", Table(COLUMNS, rows, RIGHT))]
    off = total(line.discounted() for line in lines)
    if off:
        facts.append(fact("Discounts (net)", "Rabatte (netto)", amount(off, currency)))
    facts.append(fact("Net", "Netto", amount(net, currency)))
    facts += [
        Fact(Said("VAT {0} %", "USt. {0} %", (Number(rate),)), amount(tax, currency))
        for rate, tax in sorted(by_rate.items())
    ]
    facts.append(fact("Gross", "Brutto", amount(total_gross(lines), currency)))
    return facts


def _row(index: int, line: Line, currency: str) -> tuple[Piece, ...]:
    return (
        Plain(str(index)),
        Number(line.quantity),
        name_cell(line.name, line.text),
        amount(line.price, currency),
        percent(line.tax_rate),
        amount(line.net(), currency),
    )


def name_cell(name: str | None, text: str | None) -> Piece:
    """:returns: a position's name, with its text after a dash if it has one (both quoted)."""
    shown, more = quoted(name), whole(text)
    return shown if more is NONE else Said(DASHED, DASHED, (shown, more))
