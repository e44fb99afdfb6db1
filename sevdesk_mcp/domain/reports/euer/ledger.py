"""The sums of a profit and loss while the books are walked, and the lines they become."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.reports.euer.form_lines import LABELS, form_lines
from sevdesk_mcp.domain.reports.euer.model import AssetItem, EuerLine, Side

MAX_NAMED: Final = 20
INCOME: Final = frozenset(
    {"small_business_income", "taxable_income", "tax_free_income", "vat_received", "vat_refunded"}
)
APART: Final = frozenset({"gifts_apart", "meals_apart"})
NOT_FORM: Final = "not an EÜR: no form line"


@dataclass(slots=True)
class Ledger:
    """What the walk found: amounts per line key with their sources, the assets, the pools
    per year of acquisition, positions without an account and notes."""

    amounts: defaultdict[str, list[Decimal]] = field(default_factory=lambda: defaultdict(list))
    sources: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    assets: list[AssetItem] = field(default_factory=list)
    pools: defaultdict[int, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    lost: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, key: str, amount: Decimal, source: str) -> None:
        """Count ``amount`` on line ``key``, from ``source`` (a receipt or document)."""
        if amount == ZERO:
            return
        self.amounts[key].append(amount)
        if source not in self.sources[key]:
            self.sources[key].append(source)

    def total(self, keys: frozenset[str]) -> Decimal:
        """:returns: the sum of the lines ``keys``."""
        return sum((sum(self.amounts[k], ZERO) for k in keys if k in self.amounts), ZERO)

    def side_total(self, side: Side) -> Decimal:
        """:returns: the sum of every line on ``side``."""
        return sum((sum(v, ZERO) for k, v in self.amounts.items() if side_of(k) == side), ZERO)

    def lines(self, year: int, *, on_form: bool) -> list[EuerLine]:
        """:returns: the figures as lines in the form's order; ``on_form``: with the lines of
        the Anlage EÜR of ``year``."""
        form = form_lines(year)
        return [self._line(key, form[key].line, form[key].kz, form[key].status, on_form)
                for key in LABELS if self.amounts.get(key)]  # fmt: skip

    def _line(
        self, key: str, line: int | None, kz: str | None, status: str, on_form: bool
    ) -> EuerLine:
        return EuerLine(
            key=key,
            label=LABELS[key],
            side=side_of(key),
            amount=sum(self.amounts[key], ZERO),
            items=len(self.amounts[key]),
            line=line if on_form else None,
            kz=kz if on_form else None,
            line_status=status if on_form else NOT_FORM,
            sources=self.sources[key][:MAX_NAMED],
        )


def side_of(key: str) -> Side:
    """:returns: whether line ``key`` is income, a deductible expense or shown apart."""
    if key in INCOME:
        return "income"
    return "apart" if key in APART else "expense"
