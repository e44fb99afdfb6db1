"""EN 16931 VAT category rules: BR-S (standard), BR-Z (zero), BR-E (exempt), BR-AE (reverse
charge), BR-IC (intra-community, category K), BR-G (export), BR-O (not subject to VAT).

-01 a breakdown for each category used; -02…-04 the VAT ids the category needs (or, for O,
forbids); -05…-07 the rate; -08 the taxable amount per category (and rate, for S), exact in
CII and within ±1.00 in UBL as the CEN artefacts; -09 the VAT amount; -10 the exemption reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.einvoice.findings import Finding, error, line_xpath, xpath
from sevdesk_mcp.domain.einvoice.model import AllowanceCharge, Invoice, VatBreakdown
from sevdesk_mcp.domain.einvoice.rules_sums import ONE, rate_check
from sevdesk_mcp.domain.einvoice.values import ZERO, r2, total

PREFIX: Final = {
    "S": "BR-S",
    "Z": "BR-Z",
    "E": "BR-E",
    "AE": "BR-AE",
    "K": "BR-IC",
    "G": "BR-G",
    "O": "BR-O",
}
NAMES: Final = {
    "S": "standard rate",
    "Z": "zero rate",
    "E": "exempt from VAT",
    "AE": "reverse charge",
    "K": "intra-community supply",
    "G": "export outside the EU",
    "O": "not subject to VAT",
}
_ZERO_RATED: Final = frozenset({"Z", "E", "AE", "K", "G"})
_REASON_REQUIRED: Final = frozenset({"E", "AE", "K", "G", "O"})


class _Use(msgspec.Struct, frozen=True):
    """Where a category is used: line indexes, document allowances, document charges."""

    lines: list[int]
    allowances: list[AllowanceCharge]
    charges: list[AllowanceCharge]

    @property
    def any(self) -> bool:
        return bool(self.lines or self.allowances or self.charges)


def check(invoice: Invoice) -> Iterator[Finding]:
    """:returns: the findings of the VAT category rules for the categories used."""
    used = {vat.category for vat in invoice.vat_breakdown if vat.category}
    used |= {line.category for line in invoice.lines if line.category}
    used |= {c.category for c in invoice.allowances_charges if c.category}
    for category in sorted(used & PREFIX.keys()):
        yield from _category(invoice, category, _use(invoice, category))
    if "O" in used and len(used) > 1:
        yield error(
            "BR-O-11",
            "An invoice with category O (not subject to VAT) may not contain other VAT categories.",
            xpath(invoice, "BG-23"),
        )


def _use(invoice: Invoice, category: str) -> _Use:
    docs = [c for c in invoice.allowances_charges if c.category == category]
    return _Use(
        lines=[i for i, line in enumerate(invoice.lines, 1) if line.category == category],
        allowances=[c for c in docs if not c.charge],
        charges=[
            c for c in docs if c.charge and (invoice.profile == "EXTENDED" or not c.logistics)
        ],
    )


def _category(invoice: Invoice, category: str, use: _Use) -> Iterator[Finding]:
    prefix, name = PREFIX[category], NAMES[category]
    breakdowns = [(i, v) for i, v in enumerate(invoice.vat_breakdown, 1) if v.category == category]
    if use.any and not breakdowns:
        yield error(
            f"{prefix}-01",
            f"Category {category} ({name}) is used but the VAT breakdown has no entry for it.",
            xpath(invoice, "BG-23"),
        )
    yield from _ids(invoice, category, use)
    yield from _rates(invoice, category, use)
    for index, vat in breakdowns:
        yield from _taxable(invoice, category, index, vat)
        yield from _tax(invoice, category, index, vat)
        yield from _reason(invoice, category, index, vat)


def _ids(invoice: Invoice, category: str, use: _Use) -> Iterator[Finding]:
    prefix, name = PREFIX[category], NAMES[category]
    seller = bool(invoice.seller.vat_id or invoice.seller.tax_number or _rep(invoice))
    buyer = bool(invoice.buyer.vat_id or (category == "AE" and invoice.buyer.legal_id))
    where = xpath(invoice, "BG-4")
    for suffix, present in (("02", use.lines), ("03", use.allowances), ("04", use.charges)):
        if not present:
            continue
        if category == "O":
            if invoice.seller.vat_id or _rep(invoice) or invoice.buyer.vat_id:
                yield error(
                    f"{prefix}-{suffix}",
                    "With category O (not subject to VAT) neither the seller nor the buyer may "
                    "give a VAT id.",
                    where,
                )
        elif category in {"AE", "K"} and not (seller and buyer):
            yield error(
                f"{prefix}-{suffix}",
                f"Category {category} ({name}) needs the VAT ids of both seller and buyer.",
                where,
            )
        elif category in {"S", "Z", "E"} and not seller:
            yield error(
                f"{prefix}-{suffix}",
                f"Category {category} ({name}) needs the seller's VAT id, tax number or a tax "
                "representative.",
                where,
            )
        elif category == "G" and not (invoice.seller.vat_id or _rep(invoice)):
            yield error(
                f"{prefix}-{suffix}",
                "Category G (export) needs the seller's VAT id or a tax representative.",
                where,
            )


def _rep(invoice: Invoice) -> bool:
    return invoice.tax_representative is not None and bool(invoice.tax_representative.vat_id)


def _rates(invoice: Invoice, category: str, use: _Use) -> Iterator[Finding]:
    prefix = PREFIX[category]
    line_rates = [(i, invoice.lines[i - 1].rate) for i in use.lines]
    for index, rate in line_rates:
        if not _rate_ok(category, rate):
            yield error(
                f"{prefix}-05",
                _rate_words(category, f"Line {index}"),
                line_xpath(invoice, index, "BT-151"),
            )
    for suffix, items, who in (
        ("06", use.allowances, "A document-level allowance"),
        ("07", use.charges, "A document-level charge"),
    ):
        if any(not _rate_ok(category, c.rate) for c in items if not c.logistics):
            yield error(f"{prefix}-{suffix}", _rate_words(category, who), xpath(invoice, "BG-20"))


def _rate_ok(category: str, rate: Decimal | None) -> bool:
    if category == "S":
        return rate is not None and rate > ZERO
    if category == "O":
        return rate is None
    return rate is not None and rate == ZERO


def _rate_words(category: str, who: str) -> str:
    if category == "S":
        return f"{who} has category S (standard rate) but no VAT rate above 0."
    if category == "O":
        return f"{who} has category O (not subject to VAT) and must not give a VAT rate."
    return f"{who} has category {category} ({NAMES[category]}), so its VAT rate must be 0."


def _taxable(invoice: Invoice, category: str, index: int, vat: VatBreakdown) -> Iterator[Finding]:
    if vat.taxable is None:
        return

    def fits(rate: Decimal | None) -> bool:
        return category != "S" or rate == vat.rate

    lines = r2(
        total([line.net for line in invoice.lines if line.category == category and fits(line.rate)])
    )
    docs = [
        c
        for c in _use(invoice, category).allowances + _use(invoice, category).charges
        if fits(c.rate)
    ]
    charges = r2(total([c.amount for c in docs if c.charge]))
    allowances = r2(total([c.amount for c in docs if not c.charge]))
    expected = lines + charges - allowances
    if invoice.profile in {"MINIMUM", "BASIC WL"} and not invoice.lines:
        return
    ok = abs(vat.taxable - expected) < ONE if invoice.syntax != "cii" else vat.taxable == expected
    if not ok:
        rate = f" at {vat.rate:f} %" if category == "S" and vat.rate is not None else ""
        yield error(
            f"{PREFIX[category]}-08",
            f"VAT breakdown {index}: the taxable amount for category {category}{rate} is "
            f"{vat.taxable:f}, but its lines plus charges minus allowances give {expected:f}.",
            xpath(invoice, "BG-23", index),
        )


def _tax(invoice: Invoice, category: str, index: int, vat: VatBreakdown) -> Iterator[Finding]:
    prefix = PREFIX[category]
    if category == "S":
        yield from rate_check(f"{prefix}-09", invoice, index, vat, strict=True)
    elif vat.tax is not None and vat.tax != ZERO:
        yield error(
            f"{prefix}-09",
            f"VAT breakdown {index}: category {category} ({NAMES[category]}) must have VAT 0, "
            f"not {vat.tax:f}.",
            xpath(invoice, "BG-23", index),
        )


def _reason(invoice: Invoice, category: str, index: int, vat: VatBreakdown) -> Iterator[Finding]:
    has = bool(vat.exemption_reason or vat.exemption_code)
    where = xpath(invoice, "BG-23", index)
    if category in {"S", "Z"} and has:
        yield error(
            f"{PREFIX[category]}-10",
            f"VAT breakdown {index}: category {category} may not give an exemption reason "
            "(BT-120/121).",
            where,
        )
    if category in _REASON_REQUIRED and not has:
        yield error(
            f"{PREFIX[category]}-10",
            f"VAT breakdown {index}: category {category} ({NAMES[category]}) needs an "
            "exemption reason text or code (BT-120/121), e.g. the legal basis.",
            where,
        )
    if category == "K" and not (invoice.delivery_date or invoice.period):
        yield error(
            "BR-IC-11",
            "An intra-community supply needs the delivery date (BT-72) or the invoicing period "
            "(BG-14).",
            xpath(invoice, "BG-13"),
        )
    if category == "K" and not (invoice.deliver_to and invoice.deliver_to.country):
        yield error(
            "BR-IC-12",
            "An intra-community supply needs the deliver-to country (BT-80).",
            xpath(invoice, "BG-13"),
        )
