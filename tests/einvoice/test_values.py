"""Amounts, rounding and refusals of the value readers."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

from sevdesk_mcp.domain.einvoice.values import amount, date, r2
from sevdesk_mcp.errors import EInvoiceRefusedError


def _el(text: str) -> ET.Element:
    element = ET.Element("x")
    element.text = text
    return element


@pytest.mark.parametrize(
    ("value", "rounded"),
    [
        ("12.345", "12.35"),
        ("-12.345", "-12.34"),
        ("-0.125", "-0.12"),
        ("0.005", "0.01"),
        ("7", "7"),
    ],
)
def test_r2_rounds_half_upwards_like_xpath(value: str, rounded: str) -> None:
    assert r2(Decimal(value)) == Decimal(rounded)


@pytest.mark.parametrize("text", [" 12.50 ", "-3", "+0.1", ".5", "1."])
def test_decimals_are_read_as_written(text: str) -> None:
    assert amount(_el(text), "BT-1") == Decimal(text.strip())


@pytest.mark.parametrize("text", ["1e3", "1,000.00", "12,50", "NaN", "Infinity", "0x10", "1 000"])
def test_no_exponents_separators_or_words(text: str) -> None:
    with pytest.raises(EInvoiceRefusedError) as caught:
        amount(_el(text), "Total with VAT")
    assert caught.value.reason == "number"
    assert text not in str(caught.value)
    assert "Total with VAT" in str(caught.value)


def test_dates_of_both_syntaxes() -> None:
    assert date(_el("20240131")) == "2024-01-31"
    assert date(_el("2024-01-31")) == "2024-01-31"
    assert date(_el("31.01.2024")) is None
