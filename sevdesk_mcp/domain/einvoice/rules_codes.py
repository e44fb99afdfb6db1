"""EN 16931 code-list rules (BR-CL-*), for UBL documents, with the lists of the CEN 1.3.16
artefacts (:mod:`.codelists`); all are fatal there.

Checked: BR-CL-01 type code, BR-CL-03 the currency of the total VAT amounts (BT-110/111),
BR-CL-04 currency, BR-CL-05 VAT accounting currency, BR-CL-14
country codes of the seller, buyer, tax representative and deliver-to addresses, BR-CL-16
payment means codes, BR-CL-17 VAT categories of the breakdown and the document-level
allowances and charges, BR-CL-18 line VAT categories, BR-CL-23 line quantity units. Not
checked: BR-CL-03 on the other amounts (the model keeps only the VAT totals' currency), the
identifier schemes (BR-CL-07/10/11/13/21/25/26), reason codes (BR-CL-19/20/22), MIME codes
(BR-CL-24) and BR-CL-23 on base quantities, as the model does not carry them; and every
BR-CL rule for CII, whose lists of this release were not at hand (:mod:`.codelists`).
"""

from __future__ import annotations

from collections.abc import Iterator

from sevdesk_mcp.domain.einvoice import codelists
from sevdesk_mcp.domain.einvoice.findings import Finding, error, line_xpath, xpath
from sevdesk_mcp.domain.einvoice.model import Address, Invoice


def check(invoice: Invoice) -> Iterator[Finding]:
    """:returns: the findings of the code-list rules (none for CII)."""
    if invoice.syntax == "cii":
        return
    yield from _header(invoice)
    yield from _countries(invoice)
    yield from _payment(invoice)
    yield from _categories(invoice)
    yield from _lines(invoice)


def _unknown(value: str | None, known: frozenset[str]) -> bool:
    """:returns: whether ``value`` is given and is not one of ``known`` (as the validators
    compare: no inner space, exact case)."""
    return value is not None and (" " in value.strip() or value.strip() not in known)


def _header(invoice: Invoice) -> Iterator[Finding]:
    credit = invoice.syntax == "ubl-creditnote"
    types = codelists.CREDIT_NOTE_TYPE_CODES if credit else codelists.INVOICE_TYPE_CODES
    if _unknown(invoice.type_code, types):
        yield error(
            "BR-CL-01",
            f"The invoice type code (BT-3) is not a "
            f"{'credit note' if credit else 'invoice'} code of UNTDID 1001 (e.g. 380 invoice, "
            "381 credit note).",
            xpath(invoice, "BT-3"),
        )
    for amount in invoice.totals.tax_amounts:
        if _unknown(amount.currency, codelists.CURRENCIES):
            yield error(
                "BR-CL-03",
                "A total VAT amount (BT-110/BT-111) names a currency (currencyID) that is not "
                "an ISO 4217 currency code (e.g. EUR).",
                xpath(invoice, "BT-110"),
            )
    for rule, term, value, words in (
        ("BR-CL-04", "BT-5", invoice.currency, "invoice currency"),
        ("BR-CL-05", "BT-6", invoice.tax_currency, "VAT accounting currency"),
    ):
        if _unknown(value, codelists.CURRENCIES):
            yield error(
                rule,
                f"The {words} ({term}) is not an ISO 4217 currency code (e.g. EUR).",
                xpath(invoice, term),
            )


def _countries(invoice: Invoice) -> Iterator[Finding]:
    representative = invoice.tax_representative
    addresses: tuple[tuple[str, Address | None, str], ...] = (
        ("seller's", invoice.seller.address, "BG-5"),
        ("buyer's", invoice.buyer.address, "BG-8"),
        ("tax representative's", representative.address if representative else None, "BG-12"),
        ("deliver-to", invoice.deliver_to, "BG-15"),
    )
    for who, address, group in addresses:
        if address is not None and _unknown(address.country, codelists.COUNTRIES):
            yield error(
                "BR-CL-14",
                f"The {who} country code is not an ISO 3166-1 alpha-2 code (e.g. DE).",
                xpath(invoice, group),
            )


def _payment(invoice: Invoice) -> Iterator[Finding]:
    for index, means in enumerate(invoice.payment_means, 1):
        if _unknown(means.code, codelists.PAYMENT_MEANS):
            yield error(
                "BR-CL-16",
                "The payment means code (BT-81) is not one of UNTDID 4461 "
                "(e.g. 58 SEPA credit transfer, 59 SEPA direct debit).",
                xpath(invoice, "BG-16", index),
            )


def _categories(invoice: Invoice) -> Iterator[Finding]:
    charges = [c for c in invoice.allowances_charges if not c.logistics]
    groups = (
        ("The VAT breakdown", "BG-23", [v.category for v in invoice.vat_breakdown]),
        ("The document-level allowance or charge", "BG-20", [c.category for c in charges]),
    )
    for words, group, categories in groups:
        for index, category in enumerate(categories, 1):
            if _unknown(category, codelists.VAT_CATEGORIES):
                yield error(
                    "BR-CL-17",
                    f"{words} {index} has a VAT category that is not one of"
                    " UNTDID 5305 (S, Z, E, AE, K, G, O, L, M, B).",
                    xpath(invoice, group, index),
                )


def _lines(invoice: Invoice) -> Iterator[Finding]:
    for index, line in enumerate(invoice.lines, 1):
        if _unknown(line.category, codelists.VAT_CATEGORIES):
            yield error(
                "BR-CL-18",
                f"Line {index} has a VAT category (BT-151) that is not one of "
                "UNTDID 5305 (S, Z, E, AE, K, G, O, L, M, B).",
                line_xpath(invoice, index, "BT-151"),
            )
        if _unknown(line.unit, codelists.UNIT_CODES):
            yield error(
                "BR-CL-23",
                f"Line {index} has a unit code (BT-130) that is not one of UN/ECE "
                "Recommendation 20/21 (e.g. C62 one, H87 piece, HUR hour, KGM kilogram).",
                line_xpath(invoice, index, "BT-129"),
            )
