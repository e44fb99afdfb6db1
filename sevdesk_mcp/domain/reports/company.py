"""The company's tax facts that sevDesk's API does not hold (ADR 0015): what the caller's
settings say, and the rule shared by the tax figures for the one fact sevDesk does show
(the small-business status). The tool hands the settings down; domain code never reads the
configuration."""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.reports.books import Books

VatMethod = Literal["soll", "ist"]
LegalForm = Literal["sole_proprietor", "freelancer", "gbr", "ohg_kg", "corporation"]
Chart = Literal["skr03", "skr04"]
LowValueChoice = Literal["gwg", "pool", "depreciate"]
SMALL_BUSINESS_RULE: Final = 11  # sevDesk's tax rule "Kleinunternehmer §19 UStG"


class CompanyFacts(msgspec.Struct, frozen=True, kw_only=True):
    """The company's settings; ``None`` where nothing is set (then sevDesk's data or the
    statutory default decides, and the answer says so). The fields are those of the
    configuration's ``TaxSettings``.

    :param low_value_assets: the low-value asset option for every year without an own entry.
    :param low_value_by_year: the option per year.
    """

    vat_method: VatMethod | None = None
    small_business: bool | None = None
    legal_form: LegalForm | None = None
    chart: Chart | None = None
    low_value_assets: LowValueChoice | None = None
    low_value_by_year: dict[int, LowValueChoice] = msgspec.field(default_factory=dict)
    vat_extension: bool | None = None


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    """A fact the figures depend on: its value and where it came from."""

    value: str
    source: str


def small_business_of(setting: bool | None, books: Books) -> tuple[bool, Fact]:
    """:returns: whether the company is a small business (§19 UStG), and why: the setting,
    else sevDesk's marks (``smallSettlement`` or tax rule 11 on a finalized document), else
    regular taxation, stated as assumed."""
    if setting is not None:
        source = "setting SEVDESK_SMALL_BUSINESS"
        return setting, Fact(value="yes" if setting else "no", source=source)
    marked = any(
        r.small_settlement or (r.revenue and r.rule == SMALL_BUSINESS_RULE)
        for r in books.records
        if not r.draft
    )
    if marked:
        source = (
            "sevDesk marks the account's documents as a small business's (smallSettlement, "
            "tax rule 11)"
        )
        return True, Fact(value="yes", source=source)
    source = (
        "assumed: regular taxation, sevDesk marks no document as a small business's "
        "(smallSettlement, tax rule 11); set SEVDESK_SMALL_BUSINESS=yes if §19 UStG applies"
    )
    return False, Fact(value="no", source=source)
