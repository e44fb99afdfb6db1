"""Receipt positions: the tax must be what sevDesk computes on the net; a till receipt that
rounded its tax from the gross is refused with the bookable amounts nearest to it."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from sevdesk_mcp.domain.receipts.lines import ReceiptLine, checked_lines
from sevdesk_mcp.errors import ToolInputError


def _refusal(net: str, gross: str, rate: str = "19") -> str:
    with pytest.raises(ToolInputError) as caught:
        checked_lines([ReceiptLine("4930", Decimal(rate), Decimal(net), Decimal(gross))])
    return str(caught.value)


def _cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), ROUND_HALF_UP)


def test_a_gross_rounded_receipt_gets_the_nearest_bookable_amounts() -> None:
    text = _refusal("0.08", "0.09")
    assert "computed its tax from the gross" in text
    assert "net 0.07 (gross 0.08) or net 0.08 (gross 0.10)" in text
    assert "net -0.07 (gross -0.08) or net -0.08 (gross -0.10)" in _refusal("-0.08", "-0.09")


def test_a_wrong_net_is_refused_without_that_hint() -> None:
    text = _refusal("75.62", "90.00")
    assert "gives tax 14.37 and gross 89.99, not 90.00" in text
    assert "computed its tax from the gross" not in text


@pytest.mark.parametrize("rate", ["19", "7"])
def test_every_suggested_net_is_bookable_and_one_cent_off(rate: str) -> None:
    percent = Decimal(rate)
    for gross_cents in range(1, 3000):
        gross = Decimal(gross_cents) / 100
        net = _cents(gross * 100 / (100 + percent))
        if net + _cents(net * percent / 100) == gross or net == 0:
            continue
        text = _refusal(f"{net:f}", f"{gross:f}", rate)
        suggested = text.split("Book the nearest: ")[1].rstrip(".").split(" or ")
        for option in suggested:
            net_text, gross_text = option.removeprefix("net ").rstrip(")").split(" (gross ")
            booked = Decimal(net_text)
            assert booked + _cents(booked * percent / 100) == Decimal(gross_text)
            assert abs(Decimal(gross_text) - gross) == Decimal("0.01")
            checked_lines([ReceiptLine("4930", percent, booked, Decimal(gross_text))])
