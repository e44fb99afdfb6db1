"""The labelled receipts' shape: what a receipt carries and the answer written down by hand.

The answers follow ``../shared/docs/german-tax-rules.md`` §3 (accounts) and §1 "Purchases from
abroad" (tax rules): rule 9 with input tax, 8 intra-EU acquisition (at the German rate), 12
reverse charge for non-EU services (Kz 84/85), 14 reverse charge for EU services (Kz 46/47), 10
no input tax (insurance, vehicle tax, fees, per diem).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final, Literal

Chart = Literal["skr03", "skr04"]
Treatment = Literal["expense", "gwg", "asset"]
CompanyForm = Literal["gmbh", "sole"]

CHARTS: Final[tuple[Chart, ...]] = ("skr03", "skr04")
GWG_MAX_NET: Final = Decimal("800.00")  # §6(2) EStG: up to 800 EUR net a GWG
EXPENSE_MAX_NET: Final = Decimal("250.00")  # up to 250 EUR net an ordinary expense


@dataclass(frozen=True, slots=True)
class Line:
    """One position of a receipt and its expected account.

    :ivar text: the position text as the receipt prints it.
    :ivar net: the net amount in EUR.
    :ivar printed_rate: the VAT rate the receipt shows (0 when it shows none).
    :ivar account: the expected booking account number of this position.
    :ivar rate: the expected tax rate of this position (19 on an intra-EU acquisition whose
        invoice shows 0 %; 0 under reverse charge).
    """

    text: str
    net: Decimal
    printed_rate: Decimal
    account: str
    rate: Decimal

    @property
    def gross(self) -> Decimal:
        """:returns: the gross amount the receipt shows for this position."""
        return (self.net * (1 + self.printed_rate / 100)).quantize(Decimal("0.01"))


@dataclass(frozen=True, slots=True)
class LabelledReceipt:
    """A receipt as it arrives, with the right booking written down by hand.

    :ivar key: unique within the set, e.g. ``"03-office-supplies"``.
    :ivar chart: the company's chart of accounts.
    :ivar day: the receipt date.
    :ivar supplier: the supplier's name as printed.
    :ivar vat_id: the supplier's VAT id, if printed (its prefix names the country).
    :ivar country: the supplier's ISO country code (upper case), if known.
    :ivar iban: the supplier's IBAN, if printed.
    :ivar header: the receipt's own title or subject line (may be empty).
    :ivar lines: the positions, the main one (largest net) first.
    :ivar rule: the expected tax rule id of the receipt.
    :ivar treatment: expense, GWG or asset, by the net amount of the item (assets only).
    :ivar company: the legal form of the company that books it (travel accounts differ).
    :ivar history: whether the company booked this supplier before (see ``history.py``);
        then the expected answer follows the history, whatever the words say.
    :ivar hard: a deliberately misleading case (words pointing elsewhere).
    :ivar note: why the answer is what it is, with its source.
    """

    key: str
    chart: Chart
    day: date
    supplier: str
    vat_id: str | None
    country: str | None
    iban: str | None
    header: str
    lines: tuple[Line, ...]
    rule: int
    treatment: Treatment = "expense"
    company: CompanyForm = "gmbh"
    history: bool = False
    hard: bool = False
    note: str = ""

    @property
    def account(self) -> str:
        """:returns: the expected first suggestion: the account of the main position."""
        return self.lines[0].account

    @property
    def rate(self) -> Decimal:
        """:returns: the expected tax rate of the main position."""
        return self.lines[0].rate

    @property
    def net(self) -> Decimal:
        """:returns: the receipt's net total."""
        return sum((line.net for line in self.lines), Decimal(0))

    @property
    def gross(self) -> Decimal:
        """:returns: the receipt's gross total as printed."""
        return sum((line.gross for line in self.lines), Decimal(0))

    @property
    def text(self) -> str:
        """:returns: everything the receipt says in words: header and position texts."""
        return "\n".join(p for p in (self.header, *(line.text for line in self.lines)) if p)


@dataclass(frozen=True, slots=True)
class BookedReceipt:
    """A receipt already in the books (finalized) before the labelled one arrives."""

    key: str
    chart: Chart
    day: date
    supplier: str
    vat_id: str | None
    country: str | None
    iban: str | None
    text: str
    net: Decimal
    rate: Decimal
    account: str
    rule: int


def line(text: str, net: str, printed: int, account: str, rate: int | None = None) -> Line:
    """:returns: a :class:`Line`; its expected rate is the printed one unless ``rate`` says."""
    expected = printed if rate is None else rate
    return Line(text, Decimal(net), Decimal(printed), account, Decimal(expected))
