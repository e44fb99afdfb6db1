"""The legal form: from the setting, else from the company name (``GET /SevClient``), else
unknown; and whether the form allows an EÜR (§4(3) EStG) at all.

A GmbH, UG and AG are merchants by their form (Formkaufmann, §6 HGB; §13(3) GmbHG, §3 AktG),
an OHG and a KG are commercial partnerships (§§105, 161 HGB): all of them must keep books and
draw up a balance sheet (§238 HGB, §140 AO), so their profit is never an EÜR.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.reports.company import Fact, LegalForm
from sevdesk_mcp.safety.fence import clean, fence

UNKNOWN: Final = "unknown"
SETTING: Final = "SEVDESK_LEGAL_FORM"
REVENUE_LIMIT: Final = Decimal(800_000)  # §241a HGB, §141(1) Nr. 1 AO (from 2024)
PROFIT_LIMIT: Final = Decimal(80_000)  # §241a HGB, §141(1) Nr. 4 AO (from 2024)
ASSUMED: Final = f"sole proprietor or freelancer assumed; set {SETTING}"
# Suffix of the company name -> form; the longer suffixes first (GmbH & Co. KG is a KG).
_SUFFIXES: Final[tuple[tuple[str, LegalForm], ...]] = (
    (r"gmbh\s*&\s*co\.?\s*kg(aa)?", "ohg_kg"),
    (r"kgaa", "corporation"),
    (r"ug\s*\(haftungsbeschränkt\)", "corporation"),
    (r"g?gmbh", "corporation"),
    (r"ug", "corporation"),
    (r"ag", "corporation"),
    (r"se", "corporation"),
    (r"ohg", "ohg_kg"),
    (r"kg", "ohg_kg"),
    (r"e\.\s*k\.|e\.\s*kfm\.|e\.\s*kfr\.", "sole_proprietor"),
    (r"gbr", "gbr"),
    (r"partg(\s*mbb)?", "freelancer"),
)
_PATTERNS: Final = tuple(
    (re.compile(rf"(^|[\s,]){suffix}$", re.IGNORECASE), form) for suffix, form in _SUFFIXES
)
NOT_EUER: Final = {
    "corporation": (
        "A corporation (GmbH, UG, AG) is a merchant by its legal form (§6 HGB, §13(3) GmbHG, "
        "§3 AktG) and must keep books and draw up a balance sheet (§238 HGB, §140 AO); the "
        "EÜR of §4(3) EStG is only for those not obliged to keep books. This is an income and "
        "expense overview, not the company's profit determination."
    ),
    "ohg_kg": (
        "An OHG or KG (also a GmbH & Co. KG) is a commercial partnership, a merchant (§§6, "
        "105, 161 HGB), and must keep books and draw up a balance sheet (§238 HGB, §140 AO); "
        "the EÜR of §4(3) EStG is only for those not obliged to keep books. This is an income "
        "and expense overview, not the partnership's profit determination."
    ),
}


def legal_form_of(setting: LegalForm | None, company: str) -> Fact:
    """:returns: the legal form: the setting, else the one the company name ends in, else
    ``unknown`` (with the assumption the EÜR is then computed on)."""
    if setting is not None:
        return Fact(value=setting, source=f"setting {SETTING}")
    found = form_of_name(clean(company))
    if found is not None:
        return Fact(value=found, source=f"the company name {fence(company)} (GET /SevClient)")
    named = fence(company) or "no company name"
    return Fact(value=UNKNOWN, source=f"not told by {named}; {ASSUMED}")


def form_of_name(company: str) -> LegalForm | None:
    """:returns: the legal form the company name ends in (GmbH, UG (haftungsbeschränkt), AG,
    OHG, KG, GmbH & Co. KG, e.K., GbR, PartG), or ``None``."""
    name = company.strip().rstrip(".,;").strip()
    for pattern, form in _PATTERNS:
        if pattern.search(name) or pattern.search(f"{name}."):
            return form
    return None


def thresholds(form: str, revenue: Decimal, profit: Decimal, whole_year: bool) -> list[str]:
    """:returns: what the bookkeeping thresholds say for ``form`` at these figures."""
    if form in NOT_EUER:
        return []
    if form == "freelancer":
        return ["Freelance income (§18 EStG): no duty to keep books at any revenue or profit "
                "(§141 AO covers commercial businesses only)."]  # fmt: skip
    notes = [_limits_note(form)]
    if not whole_year:
        return [*notes, "The thresholds are annual: ask for the whole year to check them."]
    if revenue > REVENUE_LIMIT or profit > PROFIT_LIMIT:
        notes.append(_exceeded(revenue, profit))
    return notes


def _limits_note(form: str) -> str:
    who = "A GbR" if form == "gbr" else "A sole proprietor"
    law = "§141 AO" if form == "gbr" else "§241a HGB and §141 AO"
    return (
        f"{who} may use the EÜR while revenue stays at most 800,000 EUR and profit at most "
        f"80,000 EUR a year ({law}); above them a commercial business keeps books from the "
        "year after the tax office's notice (§141(2) AO)."
    )


def _exceeded(revenue: Decimal, profit: Decimal) -> str:
    return (
        f"These figures exceed a threshold (revenue {revenue:f} EUR, profit {profit:f} EUR; "
        "limits 800,000 / 80,000 EUR): books and a balance sheet may become mandatory, "
        "from the year after the tax office's notice for a commercial business (§141(2) AO); "
        "ask the tax adviser."
    )
