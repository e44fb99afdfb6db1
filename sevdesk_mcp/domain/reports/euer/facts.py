"""The facts the figures depend on besides the legal form: the chart of accounts and the
Dauerfristverlängerung (the small-business status is shared with the VAT return:
:func:`~sevdesk_mcp.domain.reports.company.small_business_of`), each from its setting, else from
what sevDesk shows, else the statutory default; each with where it came from."""

from __future__ import annotations

from sevdesk_mcp.domain.reports.books import Books
from sevdesk_mcp.domain.reports.company import Chart, CompanyFacts, Fact
from sevdesk_mcp.domain.reports.euer.accounts import guess_chart


def chart_of(choices: CompanyFacts, books: Books) -> tuple[Chart, Fact]:
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


def extension_of(choices: CompanyFacts) -> tuple[bool, Fact]:
    """:returns: whether the company has a Dauerfristverlängerung (§§46-48 UStDV) and why."""
    if choices.vat_extension is not None:
        value = "yes" if choices.vat_extension else "no"
        return choices.vat_extension, Fact(value=value, source="setting SEVDESK_VAT_EXTENSION")
    source = (
        "assumed: none (the VAT advance payment is due on the 10th after the period); set "
        "SEVDESK_VAT_EXTENSION=1 if the tax office granted one"
    )
    return False, Fact(value="no", source=source)
