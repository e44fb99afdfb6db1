"""EN 16931 code-list rules (BR-CL-*) for UBL and CII, with the lists of the CEN 1.3.16
artefacts (:mod:`.codelists`); all are fatal there.

Checked in both syntaxes: BR-CL-01 type code, BR-CL-03 the currency of the total VAT amounts
(BT-110/111), BR-CL-04 currency, BR-CL-05 VAT accounting currency, BR-CL-14 country codes of
the seller, buyer, tax representative and deliver-to addresses, BR-CL-16 payment means codes,
BR-CL-17/18 VAT categories, BR-CL-23 line quantity units.

The syntaxes differ as their artefacts do. BR-CL-01: UBL has one list for ``Invoice`` and one
for ``CreditNote``, CII one list for both. BR-CL-14: CII's country list has AN and lacks SS.
BR-CL-17/18: in UBL, BR-CL-17 covers the VAT breakdown and the document-level allowances and
charges (``cac:TaxCategory``), BR-CL-18 the lines (``cac:ClassifiedTaxCategory``); in CII,
BR-CL-17 covers the allowances and charges (``ram:CategoryTradeTax``, document and line level,
not the logistics charges) and BR-CL-18 the VAT breakdown and the lines
(``ram:ApplicableTradeTax``).

Not checked: BR-CL-03 on the other UBL amounts (the model keeps only the VAT totals'
currency), the identifier schemes (BR-CL-07/10/11/13/21/25/26), reason codes (BR-CL-19/20/22),
MIME codes (BR-CL-24), BR-CL-14 on the addresses the model does not carry (payee, ship-from,
invoicee ...) and BR-CL-23 on base quantities, as the model does not carry them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, TypeVar

from sevdesk_mcp.domain.einvoice import codelists
from sevdesk_mcp.domain.einvoice.findings import Finding, error, line_xpath, xpath
from sevdesk_mcp.domain.einvoice.model import Address, AllowanceCharge, Invoice

_CATEGORIES = " UNTDID 5305 (S, Z, E, AE, K, G, O, L, M, B)."


def check(invoice: Invoice) -> Iterator[Finding]:
    """:returns: the findings of the code-list rules for the invoice's syntax."""
    yield from _type_code(invoice)
    yield from _currencies(invoice)
    yield from _countries(invoice)
    yield from _payment(invoice)
    if invoice.syntax == "cii":
        yield from _cii_categories(invoice)
    else:
        yield from _ubl_categories(invoice)
    yield from _lines(invoice)


def _unknown(value: str | None, known: frozenset[str]) -> bool:
    """:returns: whether ``value`` is given and is not one of ``known`` (as the validators
    compare: no inner space, exact case)."""
    return value is not None and (" " in value.strip() or value.strip() not in known)


def _cii(invoice: Invoice, path: str, leaf: str) -> str:
    """:returns: ``path``, and for CII the code element ``leaf`` below it (as the CII
    validator reports the element its rule fires on)."""
    return f"{path}/{leaf}" if invoice.syntax == "cii" else path


def _type_code(invoice: Invoice) -> Iterator[Finding]:
    if invoice.syntax == "cii":
        types, words = codelists.CII_TYPE_CODES, "an invoice or credit note"
    elif invoice.syntax == "ubl-creditnote":
        types, words = codelists.CREDIT_NOTE_TYPE_CODES, "a credit note"
    else:
        types, words = codelists.INVOICE_TYPE_CODES, "an invoice"
    if _unknown(invoice.type_code, types):
        yield error(
            "BR-CL-01",
            f"The invoice type code (BT-3) is not {words} code of UNTDID 1001 (e.g. 380 "
            "invoice, 381 credit note).",
            xpath(invoice, "BT-3"),
        )


def _currencies(invoice: Invoice) -> Iterator[Finding]:
    for index, amount in enumerate(invoice.totals.tax_amounts, 1):
        if _unknown(amount.currency, codelists.CURRENCIES):
            yield error(
                "BR-CL-03",
                "A total VAT amount (BT-110/BT-111) names a currency (currencyID) that is not "
                "an ISO 4217 currency code (e.g. EUR).",
                xpath(invoice, "BT-110", index if invoice.syntax == "cii" else None),
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
    known = codelists.CII_COUNTRIES if invoice.syntax == "cii" else codelists.COUNTRIES
    representative = invoice.tax_representative
    addresses: tuple[tuple[str, Address | None, str], ...] = (
        ("seller's", invoice.seller.address, "BG-5"),
        ("buyer's", invoice.buyer.address, "BG-8"),
        ("tax representative's", representative.address if representative else None, "BG-12"),
        ("deliver-to", invoice.deliver_to, "BG-15"),
    )
    for who, address, group in addresses:
        if address is not None and _unknown(address.country, known):
            yield error(
                "BR-CL-14",
                f"The {who} country code is not an ISO 3166-1 alpha-2 code (e.g. DE).",
                _cii(invoice, xpath(invoice, group), "ram:CountryID"),
            )


def _payment(invoice: Invoice) -> Iterator[Finding]:
    for index, means in enumerate(invoice.payment_means, 1):
        if _unknown(means.code, codelists.PAYMENT_MEANS):
            yield error(
                "BR-CL-16",
                "The payment means code (BT-81) is not one of UNTDID 4461 "
                "(e.g. 58 SEPA credit transfer, 59 SEPA direct debit).",
                _cii(invoice, xpath(invoice, "BG-16", index), "ram:TypeCode"),
            )


def _document_charges(invoice: Invoice) -> list[AllowanceCharge]:
    """:returns: the document-level allowances and charges (BG-20/21), without the CII
    logistics charges."""
    return [c for c in invoice.allowances_charges if not c.logistics]


def _ubl_categories(invoice: Invoice) -> Iterator[Finding]:
    for index, _ in _bad_categories(invoice.vat_breakdown):
        yield _category("BR-CL-17", f"The VAT breakdown {index}", xpath(invoice, "BG-23", index))
    for index, _ in _bad_categories(_document_charges(invoice)):
        where = xpath(invoice, "BG-20", index)
        yield _category("BR-CL-17", f"The document-level allowance or charge {index}", where)


def _cii_categories(invoice: Invoice) -> Iterator[Finding]:
    leaf = "ram:CategoryTradeTax/ram:CategoryCode"
    for index, _ in _bad_categories(invoice.vat_breakdown):
        where = f"{xpath(invoice, 'BG-23', index)}/ram:CategoryCode"
        yield _category("BR-CL-18", f"The VAT breakdown {index}", where, " (BT-118)")
    for index, _ in _bad_categories(_document_charges(invoice)):
        where = f"{xpath(invoice, 'BG-20', index)}/{leaf}"
        yield _category("BR-CL-17", f"The document-level allowance or charge {index}", where)
    for number, line in enumerate(invoice.lines, 1):
        for index, _ in _bad_categories(line.allowances_charges):
            where = f"{line_xpath(invoice, number, 'BG-27')}[{index}]/{leaf}"
            yield _category("BR-CL-17", f"Line {number}: allowance or charge {index}", where)


class _Categorised(Protocol):
    @property
    def category(self) -> str | None: ...


C = TypeVar("C", bound=_Categorised)


def _bad_categories(items: Iterable[C]) -> list[tuple[int, C]]:
    """:returns: the items (numbered from 1) whose VAT category is not of UNTDID 5305."""
    return [
        (n, i) for n, i in enumerate(items, 1) if _unknown(i.category, codelists.VAT_CATEGORIES)
    ]


def _category(rule: str, what: str, where: str, term: str = "") -> Finding:
    return error(rule, f"{what} has a VAT category{term} that is not one of{_CATEGORIES}", where)


def _lines(invoice: Invoice) -> Iterator[Finding]:
    for index, _ in _bad_categories(invoice.lines):
        yield _category(
            "BR-CL-18", f"Line {index}", line_xpath(invoice, index, "BT-151"), " (BT-151)"
        )
    for index, line in enumerate(invoice.lines, 1):
        if _unknown(line.unit, codelists.UNIT_CODES):
            yield error(
                "BR-CL-23",
                f"Line {index} has a unit code (BT-130) that is not one of UN/ECE "
                "Recommendation 20/21 (e.g. C62 one, H87 piece, HUR hour, KGM kilogram).",
                line_xpath(invoice, index, "BT-129"),
            )
