"""The positions of a receipt as the caller gives them: account number, rate, net and gross as
printed on the receipt, and a text. The tax is gross minus net and must be what the rate gives
on the net, to the cent (half-up, as sevDesk computes it); all three sums are sent (Q16: a gross
alone is reportedly read as net).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import MAX_AMOUNT, ZERO, cents
from sevdesk_mcp.errors import ToolInputError

HUNDRED: Final = Decimal(100)


@dataclass(frozen=True, slots=True)
class ReceiptLine:
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
        expected = cents(net * line.tax_rate / HUNDRED)
        if gross - net != expected:
            raise ToolInputError(
                f"Position {index}: net {net:f} at {line.tax_rate:f} % gives tax {expected:f} "
                f"and gross {net + expected:f}, not {gross:f}. Check the receipt: give net and "
                "gross as printed, or split positions with different rates."
            )
        out.append(line)
    return out


def totals(lines: list[ReceiptLine]) -> tuple[Decimal, Decimal, Decimal]:
    """:returns: net, tax and gross of all positions."""
    net = sum((line.net for line in lines), ZERO)
    gross = sum((line.gross for line in lines), ZERO)
    return net, gross - net, gross
