"""EN 16931 presence rules (BR-01 … BR-65, BR-CO-03/04/09/18…26): what must be there.

MINIMUM and BASIC WL carry no lines, so the line rules are not run for them; MINIMUM carries
no addresses of the buyer, no BT-106 and no VAT breakdown, so those rules are not run either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from sevdesk_mcp.domain.einvoice.findings import Finding, error, line_xpath, xpath
from sevdesk_mcp.domain.einvoice.model import AllowanceCharge, Invoice, Line, Period
from sevdesk_mcp.domain.einvoice.profiles import LINELESS
from sevdesk_mcp.domain.einvoice.values import ZERO

_VAT_PREFIX: Final = re.compile(r"^[A-Z]{2}")
_HEADER: Final[tuple[tuple[str, str, str], ...]] = (
    ("BR-01", "BT-24", "the specification identifier (which standard the invoice follows)"),
    ("BR-02", "BT-1", "the invoice number"),
    ("BR-03", "BT-2", "the invoice date"),
    ("BR-04", "BT-3", "the invoice type code (e.g. 380 invoice, 381 credit note)"),
    ("BR-05", "BT-5", "the invoice currency"),
    ("BR-06", "BT-27", "the seller's name"),
    ("BR-07", "BT-44", "the buyer's name"),
)
_TOTALS: Final[tuple[tuple[str, str, str, str], ...]] = (
    ("BR-12", "BT-106", "line_net", "the sum of the line net amounts"),
    ("BR-13", "BT-109", "net", "the total without VAT"),
    ("BR-14", "BT-112", "gross", "the total with VAT"),
    ("BR-15", "BT-115", "due", "the amount due for payment"),
)


def check(invoice: Invoice) -> Iterator[Finding]:
    """:returns: the findings of the presence rules."""
    yield from _header(invoice)
    yield from _parties(invoice)
    yield from _totals(invoice)
    if invoice.profile == "MINIMUM":
        return
    yield from _charges(invoice)
    yield from _breakdown(invoice)
    yield from _payment(invoice)
    yield from _references(invoice)
    if invoice.profile not in LINELESS:
        yield from _lines(invoice)


def _header(invoice: Invoice) -> Iterator[Finding]:
    values = {
        "BT-24": invoice.specification,
        "BT-1": invoice.number,
        "BT-2": invoice.issue_date,
        "BT-3": invoice.type_code,
        "BT-5": invoice.currency,
        "BT-27": invoice.seller.name,
        "BT-44": invoice.buyer.name,
    }
    for rule, term, words in _HEADER:
        if not values[term]:
            yield error(rule, f"The invoice lacks {words} ({term}).", xpath(invoice, term))


def _parties(invoice: Invoice) -> Iterator[Finding]:
    seller, buyer = invoice.seller, invoice.buyer
    if seller.address is None:
        yield error(
            "BR-08", "The seller's postal address (BG-5) is missing.", xpath(invoice, "BG-4")
        )
    elif not seller.address.country:
        yield error(
            "BR-09", "The seller's address has no country code (BT-40).", xpath(invoice, "BG-5")
        )
    if invoice.profile != "MINIMUM":
        if buyer.address is None:
            yield error(
                "BR-10", "The buyer's postal address (BG-8) is missing.", xpath(invoice, "BG-7")
            )
        elif not buyer.address.country:
            yield error(
                "BR-11", "The buyer's address has no country code (BT-55).", xpath(invoice, "BG-8")
            )
    if not (seller.identifiers or seller.legal_id or seller.vat_id):
        yield error(
            "BR-CO-26",
            "The seller is not identified: give a seller identifier (BT-29), a legal "
            "registration (BT-30) or a VAT id (BT-31).",
            xpath(invoice, "BG-4"),
        )
    for who, party, term in (("seller", seller, "BT-31"), ("buyer", buyer, "BT-48")):
        if party.vat_id and not _VAT_PREFIX.match(party.vat_id):
            yield error(
                "BR-CO-09",
                f"The {who}'s VAT id ({term}) does not start with a two-letter country prefix "
                "(e.g. DE, EL for Greece).",
                xpath(invoice, term),
            )


def _totals(invoice: Invoice) -> Iterator[Finding]:
    for rule, term, attr, words in _TOTALS:
        if rule == "BR-12" and invoice.profile == "MINIMUM":
            continue
        if getattr(invoice.totals, attr) is None:
            yield error(rule, f"The invoice lacks {words} ({term}).", xpath(invoice, term))
    other = invoice.tax_currency and invoice.tax_currency != invoice.currency
    if other and invoice.totals.vat_accounting is None:
        yield error(
            "BR-53",
            f"A VAT accounting currency ({invoice.tax_currency}) is named but the total VAT "
            "in that currency (BT-111) is missing.",
            xpath(invoice, "BT-111"),
        )


def _lines(invoice: Invoice) -> Iterator[Finding]:
    if not invoice.lines:
        yield error("BR-16", "The invoice has no lines (BG-25).", xpath(invoice, "BG-25"))
    for index, line in enumerate(invoice.lines, 1):
        yield from _line(invoice, index, line)


def _line(invoice: Invoice, index: int, line: Line) -> Iterator[Finding]:
    required = (
        ("BR-21", "BT-126", line.id, "an identifier"),
        ("BR-22", "BT-129", line.quantity, "a quantity"),
        ("BR-23", "BT-129", line.unit, "a unit of measure (BT-130)"),
        ("BR-24", "BT-131", line.net, "a net amount"),
        ("BR-25", "BT-153", line.name, "an item name"),
        ("BR-26", "BT-146", line.price, "a net price"),
        ("BR-CO-04", "BT-151", line.category, "a VAT category"),
    )
    for rule, term, value, words in required:
        if value is None:
            yield error(
                rule, f"Line {index} lacks {words} ({term}).", line_xpath(invoice, index, term)
            )
    if line.price is not None and line.price < ZERO:
        yield error(
            "BR-27",
            f"Line {index}: the net price (BT-146) is negative.",
            line_xpath(invoice, index, "BT-146"),
        )
    if line.gross_price is not None and line.gross_price < ZERO:
        yield error(
            "BR-28",
            f"Line {index}: the gross price (BT-148) is negative.",
            line_xpath(invoice, index, "BT-148"),
        )
    if line.period is not None:
        yield from _period(
            line.period, ("BR-30", "BR-CO-20"), f"Line {index}", line_xpath(invoice, index, "BG-26")
        )
    for charge in line.allowances_charges:
        yield from _line_charge(invoice, index, charge)


def _line_charge(invoice: Invoice, index: int, charge: AllowanceCharge) -> Iterator[Finding]:
    where = line_xpath(invoice, index, "BG-27")
    kind = "charge" if charge.charge else "allowance"
    if charge.amount is None:
        rule = "BR-43" if charge.charge else "BR-41"
        yield error(rule, f"Line {index}: a {kind} has no amount.", where)
    if not (charge.reason or charge.reason_code):
        rule = "BR-CO-24" if charge.charge else "BR-CO-23"
        yield error(rule, f"Line {index}: a {kind} has neither a reason nor a reason code.", where)


def _period(period: Period, rules: tuple[str, str], who: str, where: str) -> Iterator[Finding]:
    if period.start is None and period.end is None:
        yield error(
            rules[1], f"{who}: the invoicing period has neither a start nor an end date.", where
        )
    elif period.start and period.end and period.end < period.start:
        yield error(rules[0], f"{who}: the invoicing period ends before it starts.", where)


def _charges(invoice: Invoice) -> Iterator[Finding]:
    for index, charge in enumerate((c for c in invoice.allowances_charges if not c.logistics), 1):
        where = xpath(invoice, "BG-20", index)
        kind = "charge" if charge.charge else "allowance"
        amount, category, reason = (
            ("BR-36", "BR-37", "BR-CO-22") if charge.charge else ("BR-31", "BR-32", "BR-CO-21")
        )
        if charge.amount is None:
            yield error(amount, f"A document-level {kind} has no amount.", where)
        if not charge.category:
            yield error(category, f"A document-level {kind} has no VAT category code.", where)
        if not (charge.reason or charge.reason_code):
            yield error(
                reason, f"A document-level {kind} has neither a reason nor a reason code.", where
            )
    if invoice.period is not None:
        yield from _period(
            invoice.period, ("BR-29", "BR-CO-19"), "The invoice", xpath(invoice, "BG-14")
        )


def _breakdown(invoice: Invoice) -> Iterator[Finding]:
    if not invoice.vat_breakdown:
        yield error(
            "BR-CO-18", "The invoice has no VAT breakdown (BG-23).", xpath(invoice, "BG-23")
        )
    for index, vat in enumerate(invoice.vat_breakdown, 1):
        where = xpath(invoice, "BG-23", index)
        if vat.taxable is None:
            yield error("BR-45", f"VAT breakdown {index} lacks the taxable amount (BT-116).", where)
        if vat.tax is None:
            yield error("BR-46", f"VAT breakdown {index} lacks the VAT amount (BT-117).", where)
        if not vat.category:
            yield error("BR-47", f"VAT breakdown {index} lacks the VAT category (BT-118).", where)
        if vat.rate is None and vat.category != "O":
            yield error("BR-48", f"VAT breakdown {index} lacks the VAT rate (BT-119).", where)
    if invoice.tax_point_date and invoice.tax_point_code:
        yield error(
            "BR-CO-03",
            "The invoice gives both a tax point date (BT-7) and its code (BT-8); give only one.",
            xpath(invoice, "BT-7"),
        )


def _payment(invoice: Invoice) -> Iterator[Finding]:
    for index, means in enumerate(invoice.payment_means, 1):
        where = xpath(invoice, "BG-16", index)
        if not means.code:
            yield error("BR-49", "A payment instruction has no payment means code (BT-81).", where)
        if means.code in {"30", "58"} and not means.ibans:
            yield error(
                "BR-61",
                f"Payment by credit transfer (code {means.code}) needs the account to pay to "
                "(IBAN, BT-84), and it is missing.",
                where,
            )


def _references(invoice: Invoice) -> Iterator[Finding]:
    for index, reference in enumerate(invoice.preceding_invoices, 1):
        if not reference:
            yield error(
                "BR-55",
                "A reference to a preceding invoice has no invoice number (BT-25).",
                xpath(invoice, "BG-3", index),
            )
