"""The BR-CL rules: the CEN 1.3.16 code lists of each syntax, compared as the validators
compare (exact case, no inner space), with the CII artefact's own lists and rule contexts."""

from __future__ import annotations

import pytest

from sevdesk_mcp.domain.einvoice import codelists
from sevdesk_mcp.domain.einvoice.model import (
    Address,
    AllowanceCharge,
    Invoice,
    Line,
    Party,
    PaymentMeans,
    VatBreakdown,
)
from sevdesk_mcp.domain.einvoice.rules_codes import check


def _rules(invoice: Invoice) -> list[str]:
    return [f.rule for f in check(invoice)]


def test_the_lists_are_the_whole_official_ones() -> None:
    sizes = (
        len(codelists.INVOICE_TYPE_CODES),
        len(codelists.CREDIT_NOTE_TYPE_CODES),
        len(codelists.CURRENCIES),
        len(codelists.COUNTRIES),
        len(codelists.PAYMENT_MEANS),
        len(codelists.VAT_CATEGORIES),
        len(codelists.UNIT_CODES),
    )
    assert sizes == (50, 13, 178, 251, 84, 10, 2162)
    assert {"EUR", "XCG", "ZWG"} <= codelists.CURRENCIES and "BGN" not in codelists.CURRENCIES
    assert {"DE", "EL"} & codelists.COUNTRIES == {"DE"}  # Greece is GR in addresses
    assert {"C62", "H87", "HUR", "KGM", "XPP"} <= codelists.UNIT_CODES


def test_the_cii_lists_differ_where_the_cii_artefact_does() -> None:
    both = codelists.INVOICE_TYPE_CODES | codelists.CREDIT_NOTE_TYPE_CODES
    assert both == codelists.CII_TYPE_CODES and len(codelists.CII_TYPE_CODES) == 62
    assert {"AN", "SS"} == codelists.CII_COUNTRIES ^ codelists.COUNTRIES
    assert "AN" in codelists.CII_COUNTRIES and len(codelists.CII_COUNTRIES) == 251


@pytest.mark.parametrize(
    ("syntax", "code", "fired"),
    [
        ("ubl-invoice", "380", []),
        ("ubl-invoice", "381", ["BR-CL-01"]),  # a credit note code on an Invoice
        ("ubl-creditnote", "381", []),
        ("ubl-creditnote", "380", ["BR-CL-01"]),
        ("cii", "380", []),
        ("cii", "381", []),  # one CII list for invoices and credit notes
        ("cii", "503", []),
        ("cii", "999", ["BR-CL-01"]),
    ],
)
def test_type_codes_by_document(syntax: str, code: str, fired: list[str]) -> None:
    invoice = Invoice(syntax=syntax, profile="EN16931", type_code=code)  # type: ignore[arg-type]
    assert _rules(invoice) == fired


@pytest.mark.parametrize("currency", ["eur", "E UR", "EURO", "XEU"])
def test_a_currency_is_compared_exactly(currency: str) -> None:
    invoice = Invoice(syntax="ubl-invoice", profile="EN16931", currency=currency)
    assert _rules(invoice) == ["BR-CL-04"]


def test_every_address_line_and_payment_means_is_checked() -> None:
    bad = Address(country="XX")
    invoice = Invoice(
        syntax="ubl-invoice",
        profile="EN16931",
        currency=" EUR ",
        seller=Party(address=bad),
        buyer=Party(address=Address(country="DE")),
        tax_representative=Party(address=bad),
        deliver_to=bad,
        payment_means=[PaymentMeans(code="58"), PaymentMeans(code="QQ7")],
        lines=[Line(category="S", unit="C62"), Line(category="VAT", unit="XQZ9")],
    )
    assert _rules(invoice) == [
        *["BR-CL-14"] * 3,
        "BR-CL-16",
        "BR-CL-18",
        "BR-CL-23",
    ]
    messages = " ".join(f.message for f in check(invoice))
    assert "XQZ9" not in messages and "QQ7" not in messages  # file content is not echoed


@pytest.mark.parametrize(
    ("syntax", "country", "fired"),
    [
        ("ubl-invoice", "SS", []),
        ("ubl-invoice", "AN", ["BR-CL-14"]),
        ("cii", "SS", ["BR-CL-14"]),
        ("cii", "AN", []),
    ],
)
def test_country_lists_by_syntax(syntax: str, country: str, fired: list[str]) -> None:
    buyer = Party(address=Address(country=country))
    invoice = Invoice(syntax=syntax, profile="EN16931", buyer=buyer)  # type: ignore[arg-type]
    assert _rules(invoice) == fired


def test_cii_categories_follow_the_cii_contexts() -> None:
    invoice = Invoice(
        syntax="cii",
        profile="EN16931",
        vat_breakdown=[VatBreakdown(category="S"), VatBreakdown(category="X")],
        allowances_charges=[
            AllowanceCharge(charge=False, category="Y"),
            AllowanceCharge(charge=True, category="Z1", logistics=True),  # not checked
        ],
        lines=[
            Line(category="S", allowances_charges=[AllowanceCharge(charge=True, category="Q")]),
            Line(category="W"),
        ],
    )
    found = [
        (f.rule, f.xpath.rsplit("ram:ApplicableHeaderTradeSettlement/", 1)[-1])
        for f in check(invoice)
    ]
    assert [rule for rule, _ in found] == ["BR-CL-18", "BR-CL-17", "BR-CL-17", "BR-CL-18"]
    assert found[0][1] == "ram:ApplicableTradeTax[2]/ram:CategoryCode"
    assert (
        found[1][1] == "ram:SpecifiedTradeAllowanceCharge[1]/ram:CategoryTradeTax/ram:CategoryCode"
    )
    assert found[2][1].endswith(
        "ram:IncludedSupplyChainTradeLineItem[1]/ram:SpecifiedLineTradeSettlement/"
        "ram:SpecifiedTradeAllowanceCharge[1]/ram:CategoryTradeTax/ram:CategoryCode"
    )
    assert found[3][1].endswith(
        "LineItem[2]/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode"
    )


def test_cii_findings_point_at_the_code_elements() -> None:
    invoice = Invoice(
        syntax="cii",
        profile="EN16931",
        currency="EUX",
        seller=Party(address=Address(country="XX")),
        payment_means=[PaymentMeans(code="58"), PaymentMeans(code="99")],
        lines=[Line(category="S", unit="PCS")],
    )
    paths = {f.rule: f.xpath for f in check(invoice)}
    settlement = "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement"
    assert paths["BR-CL-04"] == f"{settlement}/ram:InvoiceCurrencyCode"
    assert paths["BR-CL-14"].endswith("ram:SellerTradeParty/ram:PostalTradeAddress/ram:CountryID")
    assert (
        paths["BR-CL-16"]
        == f"{settlement}/ram:SpecifiedTradeSettlementPaymentMeans[2]/ram:TypeCode"
    )
    assert paths["BR-CL-23"].endswith(
        "LineItem[1]/ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"
    )
