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

from sevdesk_mcp.domain.money import (
    HUNDRED,
    MAX_AMOUNT,
    PRICE_PLACES,
    cents,
    shown,
    shown_price,
    total,
)
from sevdesk_mcp.domain.writes import ref
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import Fact

QUANTITY_PLACES: Final = 4


class Line(msgspec.Struct, frozen=True):
    """One position: ``price`` is the net price of one unit in EUR."""

    name: str
    quantity: Decimal
    price: Decimal
    tax_rate: Decimal
    unit_id: int = 1
    part_id: int | None = None
    text: str | None = None

    def net(self) -> Decimal:
        """:returns: quantity x price, half-up to the cent."""
        return cents(self.quantity * self.price)

    def tax(self) -> Decimal:
        """:returns: the VAT of the position's net sum, half-up to the cent."""
        return cents(self.net() * self.tax_rate / HUNDRED)


def checked_line(line: Line, index: int) -> Line:
    """:returns: ``line`` if its quantity and price are sound amounts.

    :raises ToolInputError: naming the position and the field otherwise.
    """
    where = f"positions[{index}]"
    _amount(line.quantity, f"{where}.quantity", QUANTITY_PLACES, positive=True)
    _amount(line.price, f"{where}.unit_price", PRICE_PLACES, positive=False)
    if not line.name.strip():
        raise ToolInputError(f"{where}.name is empty; every position needs a name.")
    return line


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
    if line.part_id is not None:
        body["part"] = ref(line.part_id, "Part")
    return body


def total_gross(lines: tuple[Line, ...]) -> Decimal:
    """:returns: the gross sum of all positions."""
    return total(line.net() + line.tax() for line in lines)


def sums_facts(lines: tuple[Line, ...]) -> list[Fact]:
    """:returns: the preview lines of the positions and the sums (net, VAT per rate, gross)."""
    rows = [
        f"{i}. {line.quantity.normalize():f} x {line.name} à {shown_price(line.price)}, "
        f"{line.tax_rate.normalize():f} % = {shown(line.net())} net"
        for i, line in enumerate(lines, 1)
    ]
    by_rate: dict[Decimal, Decimal] = defaultdict(Decimal)
    for line in lines:
        by_rate[line.tax_rate.normalize()] += line.tax()
    net = total(line.net() for line in lines)
    facts = [Fact("Positions", "\n".join(rows)), Fact("Net", shown(net))]
    facts += [Fact(f"VAT {rate:f} %", shown(tax)) for rate, tax in sorted(by_rate.items())]
    facts.append(Fact("Gross", shown(total_gross(lines))))
    return facts
