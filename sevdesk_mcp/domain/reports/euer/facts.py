"""The facts the figures depend on besides the legal form: the chart of accounts, the
small-business status and the Dauerfristverlängerung, each from its setting, else from what
sevDesk shows, else the statutory default; each with where it came from."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.domain.reports.books import Books
from sevdesk_mcp.domain.reports.euer.accounts import guess_chart
from sevdesk_mcp.domain.reports.euer.model import Chart, Choices, Fact

SMALL_BUSINESS_RULE: Final = 11  # sevDesk's tax rule "Kleinunternehmer §19 UStG"


def chart_of(choices: Choices, books: Books) -> tuple[Chart, Fact]:
    """:returns: the chart of accounts and where it came from."""
    if choices.chart is not None:
        return choices.chart, Fact(value=choices.chart, source="setting SEVDESK_CHART")
    numbers = [
        found.number
        for record in books.records
        if record.kind == "receipt" and not record.revenue
        for line in record.lines
        if line.account is not None
        and (found := books.accounts.get(line.account)) is not None
        and found.number
    ]
    guessed = guess_chart(numbers)
    if guessed is not None:
        return guessed, Fact(value=guessed, source="the expense accounts the receipts use")
    return "skr03", Fact(value="skr03", source="assumed: SKR03; set SEVDESK_CHART=skr04")


def small_business_of(choices: Choices, books: Books) -> tuple[bool, Fact]:
    """:returns: whether the company is a small business (§19 UStG) and why."""
    if choices.small_business is not None:
        value = "yes" if choices.small_business else "no"
        return choices.small_business, Fact(value=value, source="setting SEVDESK_SMALL_BUSINESS")
    if any(r.small_settlement or r.rule == SMALL_BUSINESS_RULE for r in books.records):
        source = "sevDesk marks documents as a small business (smallSettlement, tax rule 11)"
        return True, Fact(value="yes", source=source)
    source = (
        "assumed: regular VAT (sevDesk marks no document as a small business); set "
        "SEVDESK_SMALL_BUSINESS=1 if the company is one"
    )
    return False, Fact(value="no", source=source)


def extension_of(choices: Choices) -> tuple[bool, Fact]:
    """:returns: whether the company has a Dauerfristverlängerung (§§46-48 UStDV) and why."""
    if choices.vat_extension is not None:
        value = "yes" if choices.vat_extension else "no"
        return choices.vat_extension, Fact(value=value, source="setting SEVDESK_VAT_EXTENSION")
    source = (
        "assumed: none (the VAT advance payment is due on the 10th after the period); set "
        "SEVDESK_VAT_EXTENSION=1 if the tax office granted one"
    )
    return False, Fact(value="no", source=source)
