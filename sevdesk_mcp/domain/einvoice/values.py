"""Element values of e-invoices: text, ``xs:decimal`` amounts, dates, and XPath rounding."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from typing import Final

from sevdesk_mcp.errors import EInvoiceRefusedError, ToolInputError

_DECIMAL: Final = re.compile(r"^[+-]?(\d{1,20}(\.\d{0,12})?|\.\d{1,12})$")
_SPACES: Final = re.compile(r"\s+")
_CII_DATE: Final = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_ISO_DATE: Final = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
HALF: Final = Decimal("0.5")
HUNDRED: Final = Decimal(100)
ZERO: Final = Decimal(0)
MAX_TEXT: Final = 4096


def text(element: ET.Element | None) -> str | None:
    """:returns: the element's text, whitespace collapsed and capped, or ``None`` if empty."""
    if element is None or element.text is None:
        return None
    value = element.text[:MAX_TEXT]
    if not value.isprintable() or "  " in value:
        # every whitespace character but the space is unprintable: only then is there any
        # run to collapse
        value = _SPACES.sub(" ", value)
    return value.strip() or None


def lines(element: ET.Element | None) -> str | None:
    """:returns: the element's text with its line breaks kept (capped): each line's whitespace
    collapsed, blank lines in front dropped, a blank end reduced to one line break; ``None``
    if empty. For texts read line by line (BT-20 and its Skonto lines, BR-DE-18)."""
    if element is None or element.text is None:
        return None
    rows = [_SPACES.sub(" ", row).strip() for row in element.text[:MAX_TEXT].split("\n")]
    filled = [n for n, row in enumerate(rows) if row]
    if not filled:
        return None
    text = "\n".join(rows[filled[0] : filled[-1] + 1])
    return f"{text}\n" if filled[-1] < len(rows) - 1 else text


def amount(element: ET.Element | None, field: str) -> Decimal | None:
    """:returns: the element's ``xs:decimal`` value, or ``None`` if absent or empty.

    :raises EInvoiceRefusedError: if it is no decimal number (exponent, thousands separator,
        letters), naming ``field`` but never the text.
    """
    value = text(element)
    if value is None:
        return None
    if not _DECIMAL.match(value):
        raise EInvoiceRefusedError(
            "number",
            f"{field} is not a decimal number (digits with an optional sign and a decimal "
            "point); the invoice cannot be read. Ask the sender for a corrected file.",
        )
    try:
        return Decimal(value)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid numbers
        raise EInvoiceRefusedError("number", f"{field} is not a decimal number.") from None


def date(element: ET.Element | None) -> str | None:
    """:returns: the date as ``YYYY-MM-DD`` (from ``xs:date`` or CII format 102), else ``None``."""
    value = text(element)
    if value is None:
        return None
    match = _CII_DATE.match(value) or _ISO_DATE.match(value)
    if match is None:
        return None
    return f"{match[1]}-{match[2]}-{match[3]}"


def r2(value: Decimal) -> Decimal:
    """:returns: ``value`` rounded to cents the XPath way (``round(x*100) div 100``: .5 upwards,
    towards positive infinity, so ``r2(-0.125) == -0.12``)."""
    return (value * HUNDRED + HALF).to_integral_value(rounding=ROUND_FLOOR) / HUNDRED


def total(values: list[Decimal | None]) -> Decimal:
    """:returns: the sum, an absent value counting 0."""
    return sum((v for v in values if v is not None), ZERO)


def date_of(value: str | None) -> dt.date:
    """:returns: an ISO date string as a date.

    :raises ToolInputError: if it is missing or no valid date.
    """
    try:
        return dt.date.fromisoformat(value or "")
    except ValueError:
        raise ToolInputError(
            "The e-invoice has no valid invoice date (BT-2); a receipt needs one."
        ) from None
