"""What a booking account means for the EÜR, per chart (SKR03 / SKR04): the VAT accounts of
payments to and refunds from the tax office, asset accounts, meals, gifts, equipment, and the
Anlage EÜR line an expense account's costs belong on (``docs/tax.md``, "Profit and loss").

Ranges are ``(first, last)`` account numbers, inclusive, compared as four-digit numbers.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.domain.reports.company import Chart

Ranges = tuple[tuple[int, int], ...]

# Umsatzsteuer-Vorauszahlungen: the regularly recurring payments of §11(2) S. 2 EStG.
PREPAYMENT: Final[dict[Chart, Ranges]] = {"skr03": ((1780, 1780),), "skr04": ((3820, 3820),)}
# Every account of VAT settled with the tax office: advance payments, the 1/11 special
# prepayment, current year, prior year, earlier years.
TAX_OFFICE_VAT: Final[dict[Chart, Ranges]] = {
    "skr03": ((1780, 1781), (1789, 1791)),
    "skr04": ((3820, 3830), (3840, 3845)),
}
# Fixed assets (intangible and tangible; financial assets are not written off either).
ASSET: Final[dict[Chart, Ranges]] = {"skr03": ((1, 599),), "skr04": ((1, 999),)}
# GWG and pool accounts (SKR03 0480/0485, SKR04 0670/0675) and the GWG write-off accounts
# (SKR03 4855, SKR04 6260): low value by the booking, still decided by the net amount.
LOW_VALUE: Final[dict[Chart, Ranges]] = {
    "skr03": ((480, 485), (4855, 4855)),
    "skr04": ((670, 675), (6260, 6260)),
}
# Expense accounts where equipment is often booked: office supplies, other operating needs,
# tools. A position above 800 EUR net there is taken as an asset (the net amount decides).
EQUIPMENT: Final[dict[Chart, Ranges]] = {
    "skr03": ((4930, 4930), (4980, 4985)),
    "skr04": ((6815, 6815), (6845, 6850)),
}
MEALS: Final[dict[Chart, Ranges]] = {"skr03": ((4650, 4650),), "skr04": ((6640, 6640),)}
MEALS_APART: Final[dict[Chart, Ranges]] = {"skr03": ((4654, 4654),), "skr04": ((6644, 6644),)}
GIFTS: Final[dict[Chart, Ranges]] = {"skr03": ((4630, 4630),), "skr04": ((6610, 6610),)}
GIFTS_APART: Final[dict[Chart, Ranges]] = {"skr03": ((4635, 4635),), "skr04": ((6620, 6620),)}
# Expense lines of the form by account range; anything else is "other" (übrige).
EXPENSE_LINES: Final[dict[Chart, tuple[tuple[str, Ranges], ...]]] = {
    "skr03": (
        ("external_services", ((3100, 3199),)),
        ("goods", ((3000, 3099), (3200, 3999))),
        ("staff", ((4100, 4199),)),
        ("rent", ((4200, 4229),)),
        ("insurance_fees", ((4360, 4399),)),
        ("car", ((4500, 4599),)),
        ("advertising", ((4600, 4629),)),
        ("travel", ((4660, 4663), (4666, 4673), (4675, 4679))),
        ("per_diem", ((4664, 4664), (4674, 4674))),
        ("telecom", ((4920, 4925),)),
        ("advice", ((4950, 4957),)),
    ),
    "skr04": (
        ("external_services", ((5900, 5999),)),
        ("goods", ((5000, 5899),)),
        ("staff", ((6000, 6199),)),
        ("rent", ((6300, 6349),)),
        ("insurance_fees", ((6400, 6449),)),
        ("car", ((6500, 6599), (7685, 7685))),
        ("advertising", ((6600, 6609),)),
        ("travel", ((6650, 6663), (6665, 6673), (6675, 6689))),
        ("per_diem", ((6664, 6664), (6674, 6674))),
        ("telecom", ((6805, 6810),)),
        ("advice", ((6825, 6830),)),
    ),
}


def number_of(account: str | None) -> int | None:
    """:returns: the account number as an int, ``None`` for no or a non-numeric account."""
    return int(account) if account and account.isdigit() else None


def within(account: str | None, ranges: Ranges) -> bool:
    """:returns: whether ``account`` lies in one of ``ranges``."""
    number = number_of(account)
    return number is not None and any(low <= number <= high for low, high in ranges)


def expense_line(chart: Chart, account: str | None) -> str:
    """:returns: the key of the form line an expense on ``account`` belongs on."""
    for key, ranges in EXPENSE_LINES[chart]:
        if within(account, ranges):
            return key
    return "other"


def guess_chart(numbers: list[str]) -> Chart | None:
    """:returns: the chart the expense accounts ``numbers`` point to (SKR04 books expenses in
    classes 5-7, SKR03 in 3-4), ``None`` without evidence either way."""
    skr04 = sum(1 for n in numbers if n[:1] in ("5", "6", "7"))
    skr03 = sum(1 for n in numbers if n[:1] in ("3", "4"))
    if skr04 == skr03:
        return None
    return "skr04" if skr04 > skr03 else "skr03"
