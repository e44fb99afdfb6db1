"""EN 16931 arithmetic (BR-CO-10 … BR-CO-17), exactly as the CEN 1.3.16 artefacts compute it:
sums rounded to cents the XPath way (``values.r2``), an absent optional amount counting 0,
and the +/-1.00 tolerance of BR-CO-17 (a difference inside it is a warning). An absent BT-106
is no 0: the CEN rules compare it as an empty sequence, so BR-CO-10 and BR-CO-13 fail."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.einvoice.findings import Finding, error, warning, xpath
from sevdesk_mcp.domain.einvoice.model import Invoice, VatBreakdown
from sevdesk_mcp.domain.einvoice.profiles import LINELESS
from sevdesk_mcp.domain.einvoice.values import HUNDRED, ZERO, r2, total

ONE: Final = Decimal(1)


def check(invoice: Invoice) -> Iterator[Finding]:
    """:returns: the findings of BR-CO-10 … BR-CO-17."""
    t = invoice.totals
    lines = r2(total([line.net for line in invoice.lines]))
    if invoice.profile not in LINELESS and t.line_net != lines:
        yield _sum_error("BR-CO-10", invoice, t.line_net, lines)  # absent: an empty sequence
    yield from _allowances(invoice)
    yield from _net(invoice, lines)
    yield from _vat_total(invoice)
    yield from _gross_and_due(invoice)
    for index, vat in enumerate(invoice.vat_breakdown, 1):
        yield from rate_check(
            "BR-CO-17",
            invoice,
            index,
            vat,
            strict=invoice.syntax != "cii",
        )


def _net(invoice: Invoice, lines: Decimal) -> Iterator[Finding]:
    """BR-CO-13. Without BT-106 the CEN rule compares BT-109 with an empty sequence, which
    equals nothing: it fails (MINIMUM carries no BT-106 and is not checked then)."""
    t = invoice.totals
    if t.net is None:
        return
    if t.line_net is None:
        if invoice.profile == "MINIMUM":
            return
        yield error("BR-CO-13", _no_line_net(invoice, t.net, lines), xpath(invoice, "BT-109"))
        return
    expected = r2(t.line_net - (t.allowances or ZERO) + (t.charges or ZERO))
    if t.net != expected:
        yield _sum_error("BR-CO-13", invoice, t.net, expected)


def _no_line_net(invoice: Invoice, net: Decimal, lines: Decimal) -> str:
    """:returns: BR-CO-13's text without BT-106, naming what the lines give where the profile
    has lines (BASIC WL has none)."""
    said = (
        f"The total without VAT (BT-109) is {net:f}, but it cannot be checked: the sum of "
        "line net amounts (BT-106) it is computed from is missing"
    )
    if invoice.profile in LINELESS:
        return f"{said}. The invoice needs BT-106."
    t = invoice.totals
    computed = r2(lines - (t.allowances or ZERO) + (t.charges or ZERO))
    return (
        f"{said} (the lines minus allowances plus charges add up to {computed:f}). The invoice "
        "needs BT-106."
    )


def _allowances(invoice: Invoice) -> Iterator[Finding]:
    t = invoice.totals
    extended = invoice.profile == "EXTENDED"
    charges = [c for c in invoice.allowances_charges if c.charge and (extended or not c.logistics)]
    allowances = [c for c in invoice.allowances_charges if not c.charge]
    pairs = (("BR-CO-11", t.allowances, allowances), ("BR-CO-12", t.charges, charges))
    for rule, stated, items in pairs:
        computed = r2(total([c.amount for c in items]))
        if stated is None and not items:
            continue
        if stated != computed:
            yield _sum_error(rule, invoice, stated, computed)


def _vat_total(invoice: Invoice) -> Iterator[Finding]:
    if not invoice.vat_breakdown:
        return
    t = invoice.totals
    computed = r2(total([vat.tax for vat in invoice.vat_breakdown]))
    if t.vat is not None and t.vat != computed:
        yield _sum_error("BR-CO-14", invoice, t.vat, computed)


def _gross_and_due(invoice: Invoice) -> Iterator[Finding]:
    t = invoice.totals
    if t.gross is not None and t.net is not None:
        in_currency = [a for a in t.tax_amounts if a.currency in {invoice.currency, None}]
        if invoice.syntax == "cii" and not t.tax_amounts and t.gross == t.net:
            pass
        elif len(in_currency) != 1 and invoice.syntax != "cii":
            yield error(
                "BR-CO-15",
                "The invoice must state its total VAT (BT-110) exactly once in "
                f"{invoice.currency}; "
                f"it does {len(in_currency)} times.",
                xpath(invoice, "BT-110"),
            )
        else:
            expected = r2(t.net + (t.vat or ZERO))
            if t.gross != expected:
                yield _sum_error("BR-CO-15", invoice, t.gross, expected)
    if t.due is not None and t.gross is not None and invoice.profile != "MINIMUM":
        expected = r2(t.gross - (t.prepaid or ZERO) + (t.rounding or ZERO))
        if t.due != expected:
            yield _sum_error("BR-CO-16", invoice, t.due, expected)


def rate_check(
    rule: str, invoice: Invoice, index: int, vat: VatBreakdown, *, strict: bool
) -> Iterator[Finding]:
    """:returns: the finding of a VAT amount that is not taxable x rate, with the official
    +/-1.00 tolerance (``strict``: ``<`` as UBL, else ``<=`` as CII); inside it, a warning."""
    taxable, tax, rate = vat.taxable, vat.tax, vat.rate
    if taxable is None or tax is None or rate is None:
        return
    computed = r2(abs(taxable) * rate / HUNDRED)
    where = xpath(invoice, "BG-23", index)
    if computed == ZERO:
        if r2(tax) != ZERO:
            yield error(
                rule,
                f"VAT breakdown {index}: at rate {rate:f} % the VAT must be 0, not {tax:f}.",
                where,
            )
        return
    low, high = abs(tax) - ONE, abs(tax) + ONE
    inside = low < computed < high if strict else low <= computed <= high
    message = (
        f"VAT breakdown {index}: {taxable:f} at {rate:f} % gives VAT {computed:f}, the invoice "
        f"states {tax:f}"
    )
    if not inside:
        yield error(rule, f"{message}; the difference is over the allowed 1.00.", where)
    elif computed != abs(tax):
        yield warning(rule, f"{message}: a rounding difference within the allowed 1.00.", where)


_SUMS: Final = {  # rule: (term, what, what it is computed from)
    "BR-CO-10": ("BT-106", "the sum of line net amounts", "the lines' net amounts"),
    "BR-CO-11": ("BT-107", "the sum of allowances", "the document-level allowances"),
    "BR-CO-12": ("BT-108", "the sum of charges", "the document-level charges"),
    "BR-CO-13": ("BT-109", "the total without VAT", "lines minus allowances plus charges"),
    "BR-CO-14": ("BT-110", "the total VAT", "the VAT breakdown's amounts"),
    "BR-CO-15": ("BT-112", "the total with VAT", "the total without VAT plus the VAT"),
    "BR-CO-16": ("BT-115", "the amount due", "the total with VAT minus paid amounts plus rounding"),
}


def _sum_error(rule: str, invoice: Invoice, stated: Decimal | None, computed: Decimal) -> Finding:
    term, words, source = _SUMS[rule]
    shown = "missing" if stated is None else f"{stated:f}"
    return error(
        rule,
        f"{words.capitalize()} ({term}) is {shown}, but {source} add up to {computed:f}.",
        xpath(invoice, term),
    )
