"""The BR-CL rules: the CEN 1.3.16 code lists (UBL), compared as the validators compare
(exact case, no inner space), and not run for CII."""

from __future__ import annotations

import pytest

from sevdesk_mcp.domain.einvoice import codelists
from sevdesk_mcp.domain.einvoice.model import Address, Invoice, Line, Party, PaymentMeans
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


@pytest.mark.parametrize(
    ("syntax", "code", "fired"),
    [
        ("ubl-invoice", "380", []),
        ("ubl-invoice", "381", ["BR-CL-01"]),  # a credit note code on an Invoice
        ("ubl-creditnote", "381", []),
        ("ubl-creditnote", "380", ["BR-CL-01"]),
        ("cii", "999", []),  # the CII lists are not checked
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
