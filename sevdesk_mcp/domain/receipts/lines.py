"""The positions of a receipt as the caller gives them: account number, rate, net and gross as
printed on the receipt, and a text. The tax is gross minus net and must be what the rate gives
on the net, to the cent (half-up, as sevDesk computes it); all three sums are sent (Q16: a gross
alone is reportedly read as net).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import MAX_AMOUNT, ZERO, cents
from sevdesk_mcp.errors import ToolInputError

HUNDRED: Final = Decimal(100)


class ReceiptLine(msgspec.Struct, frozen=True):
    """One position: booking account number, VAT rate in percent, net and gross, text."""

    account_number: str
    tax_rate: Decimal
    net: Decimal
    gross: Decimal
    text: str | None = None

    @property
    def tax(self) -> Decimal:
        """:returns: gross minus net."""
        return self.gross - self.net


def checked_lines(lines: list[ReceiptLine]) -> list[ReceiptLine]:
    """:returns: ``lines`` with amounts in cents, if each is consistent.

    :raises ToolInputError: naming the position and the sums that would be consistent.
    """
    out = []
    for index, line in enumerate(lines, start=1):
        net, gross = line.net, line.gross
        if cents(net) != net or cents(gross) != gross:
            raise ToolInputError(f"Position {index}: give net and gross in whole cents.")
        if net == ZERO or abs(net) >= MAX_AMOUNT or abs(gross) >= MAX_AMOUNT:
            raise ToolInputError(f"Position {index}: the net amount must be non-zero and sane.")
        if (net > ZERO) != (gross > ZERO):
            raise ToolInputError(f"Position {index}: net and gross need the same sign.")
        expected = _tax(net, line.tax_rate)
        if gross - net != expected:
            advice = _nearest(line) or (
                " Check the receipt: give net and gross as printed, or split positions with "
                "different rates."
            )
            raise ToolInputError(
                f"Position {index}: net {net:f} at {line.tax_rate:f} % gives tax {expected:f} "
                f"and gross {net + expected:f}, not {gross:f}.{advice}"
            )
        out.append(line)
    return out


def _tax(net: Decimal, rate: Decimal) -> Decimal:
    """:returns: the tax sevDesk computes on ``net`` at ``rate`` percent (half-up, in cents)."""
    return cents(net * rate / HUNDRED)


def _nearest(line: ReceiptLine) -> str:
    """:returns: when the printed net is the gross's share at the rate (a till receipt that
    rounded its tax from the gross), the bookable net amounts nearest to the printed gross;
    otherwise nothing."""
    if cents(line.gross * HUNDRED / (HUNDRED + line.tax_rate)) != line.net:
        return ""
    cent = Decimal("0.01") if line.net > ZERO else Decimal("-0.01")
    options = []
    for net in (line.net - cent, line.net, line.net + cent):
        gross = net + _tax(net, line.tax_rate)
        if net != ZERO and abs(gross - line.gross) <= abs(cent):
            options.append(f"net {net:f} (gross {gross:f})")
    return (
        " This receipt computed its tax from the gross; sevDesk computes it from the net, and no "
        f"net gives exactly gross {line.gross:f}. Book the nearest: {' or '.join(options)}."
    )


def totals(lines: list[ReceiptLine]) -> tuple[Decimal, Decimal, Decimal]:
    """:returns: net, tax and gross of all positions."""
    net = sum((line.net for line in lines), ZERO)
    gross = sum((line.gross for line in lines), ZERO)
    return net, gross - net, gross
