"""Rules checked against the official validators in review finding 9 of issue 35: Skonto lines
one by one (BR-DE-18), BR-CO-10/13 without BT-106, the IBAN check digits (BR-DE-19).

Each case edits one of the suite's own valid invoices (``fixtures/einvoice``) in both syntaxes;
the expected rule ids are worked out by hand from the edit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from sevdesk_mcp.domain.einvoice.check import CheckResult, check
from sevdesk_mcp.domain.einvoice.read import read_bytes

FOLDER: Final = Path(__file__).resolve().parents[2] / "fixtures" / "einvoice"
SYNTAXES: Final = ("ubl", "cii")
TERMS: Final = {
    "ubl": ("<cbc:Note>Zahlbar innerhalb 14 Tagen.</cbc:Note></cac:PaymentTerms>", "<cbc:Note>{}"),
    "cii": (
        "<ram:Description>Zahlbar innerhalb 14 Tagen.</ram:Description>",
        "<ram:Description>{}",
    ),
}
TERMS_END: Final = {"ubl": "</cbc:Note></cac:PaymentTerms>", "cii": "</ram:Description>"}
LINE_NET: Final = {
    "ubl": '<cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount><cbc:Tax',
    "cii": "HeaderMonetarySummation><ram:LineTotalAmount>100.00</ram:LineTotalAmount>",
}
LINE_NET_GONE: Final = {"ubl": "<cbc:Tax", "cii": "HeaderMonetarySummation>"}
NET: Final = {
    "ubl": ('<cbc:TaxExclusiveAmount currencyID="EUR">100.00<', "100.00<", "90.00<"),
    "cii": ("<ram:TaxBasisTotalAmount>100.00<", "100.00<", "90.00<"),
}
IBAN: Final = "DE02120300000000202051"  # the check digits are right: a valid IBAN


def _xml(name: str, syntax: str) -> str:
    return (FOLDER / f"{name}.{syntax}.xml").read_text(encoding="utf-8")


def _checked(text: str) -> CheckResult:
    return check(read_bytes(text.encode()).invoice)


def _with_terms(syntax: str, terms: str) -> str:
    text = _xml("valid-xrechnung", syntax)
    old, new = TERMS[syntax]
    assert old in text
    return text.replace(old, new.format(terms) + TERMS_END[syntax])


def _rules(result: CheckResult, rule: str) -> list[str]:
    return [f.message for f in result.findings if f.rule == rule]


@pytest.mark.threat("I35-9b")
@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize(
    "terms",
    [
        "#SKONTO#TAGE=7#PROZENT=2.00#\n#SKONTO#TAGE=14#PROZENT=1.00#\n",
        "#SKONTO#TAGE=7#PROZENT=3.00#\n#SKONTO#TAGE=14#PROZENT=2.00#BASISBETRAG=80.00#\n"
        "#SKONTO#TAGE=21#PROZENT=1.00#\nZahlbar innerhalb 30 Tagen ohne Abzug.",
        "\n      #SKONTO#TAGE=7#PROZENT=2.00#\n      #SKONTO#TAGE=14#PROZENT=1.00#\n    ",
    ],
    ids=["two", "three-with-base-and-text", "indented"],
)
def test_several_valid_skonto_lines_pass(syntax: str, terms: str) -> None:
    result = _checked(_with_terms(syntax, terms))
    assert _rules(result, "BR-DE-18") == []
    assert result.xrechnung_valid is True


@pytest.mark.threat("I35-9b")
@pytest.mark.parametrize("syntax", SYNTAXES)
def test_a_malformed_skonto_line_among_valid_ones_is_named(syntax: str) -> None:
    terms = "#SKONTO#TAGE=7#PROZENT=2.00#\n#SKONTO#TAGE=14#PROZENT=1,5#\n#SKONTO#TAGE=21#PROZENT=1.00#\n"
    result = _checked(_with_terms(syntax, terms))
    (message,) = _rules(result, "BR-DE-18")
    assert "Line 2 of the payment terms" in message and "#SKONTO#TAGE=n#PROZENT=n.nn#" in message
    assert result.xrechnung_valid is False


@pytest.mark.threat("I35-9b")
@pytest.mark.parametrize("syntax", SYNTAXES)
def test_the_last_skonto_line_needs_its_line_break(syntax: str) -> None:
    result = _checked(
        _with_terms(syntax, "#SKONTO#TAGE=7#PROZENT=2.00#\n#SKONTO#TAGE=14#PROZENT=1.00#")
    )
    (message,) = _rules(result, "BR-DE-18")
    assert "line break" in message and "line 2" in message


def _without_line_net(syntax: str, net: str = "100.00<") -> str:
    text = _xml("valid-en16931", syntax)
    assert LINE_NET[syntax] in text
    text = text.replace(LINE_NET[syntax], LINE_NET_GONE[syntax])
    element, old, _ = NET[syntax]
    return text.replace(element, element.replace(old, net))


def _fatal(result: CheckResult) -> set[str]:
    return {f.rule for f in result.findings if f.severity == "error"}


@pytest.mark.threat("I35-9c")
@pytest.mark.parametrize("syntax", SYNTAXES)
def test_no_line_net_total_is_br_co_10_and_13(syntax: str) -> None:
    """The lines add up to 100.00; BT-109 says 100.00 too. CEN compares the absent BT-106
    as an empty sequence, which equals nothing: BR-CO-10 and BR-CO-13 both fail (and BR-12)."""
    result = _checked(_without_line_net(syntax))
    assert _fatal(result) == {"BR-12", "BR-CO-10", "BR-CO-13"}
    (ten,) = _rules(result, "BR-CO-10")
    assert "(BT-106) is missing" in ten and "add up to 100." in ten
    (thirteen,) = _rules(result, "BR-CO-13")
    assert "BT-106" in thirteen and "add up to 100)" in thirteen


@pytest.mark.threat("I35-9c")
@pytest.mark.parametrize("syntax", SYNTAXES)
def test_no_line_net_total_and_another_net_total(syntax: str) -> None:
    """BT-109 90.00 against lines of 100.00; BT-112 119.00 is then not 90.00 + 19.00
    (BR-CO-15)."""
    result = _checked(_without_line_net(syntax, "90.00<"))
    assert _fatal(result) == {"BR-12", "BR-CO-10", "BR-CO-13", "BR-CO-15"}
    (thirteen,) = _rules(result, "BR-CO-13")
    assert "is 90.00" in thirteen and "add up to 100)" in thirteen


def _with_iban(syntax: str, iban: str, code: str = "58") -> str:
    text = _xml("valid-xrechnung", syntax).replace(IBAN, iban)
    tag = "cbc:PaymentMeansCode" if syntax == "ubl" else "ram:TypeCode"
    return text.replace(f"<{tag}>58</{tag}>", f"<{tag}>{code}</{tag}>", 1)


@pytest.mark.threat("I35-9d")
@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize("iban", [IBAN, "DE02 1203 0000 0000 2020 51"], ids=["compact", "spaced"])
def test_a_valid_iban_has_no_br_de_19(syntax: str, iban: str) -> None:
    result = _checked(_with_iban(syntax, iban))
    assert _rules(result, "BR-DE-19") == []
    assert result.warnings == 0


@pytest.mark.threat("I35-9d")
@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize(
    ("iban", "words"),
    [
        ("DE03120300000000202051", "check digits"),  # 02 -> 03: the remainder is 2, not 1
        ("1203000000002020510", "no IBAN"),  # no country code
        ("DE02-1203-0000-0000-2020-51", "no IBAN"),  # hyphens
        ("de02120300000000202051", "no IBAN"),  # ISO 13616 writes capitals
    ],
    ids=["check-digit", "no-country", "hyphens", "lower-case"],
)
def test_a_wrong_iban_is_a_br_de_19_warning(syntax: str, iban: str, words: str) -> None:
    result = _checked(_with_iban(syntax, iban))
    (finding,) = [f for f in result.findings if f.rule == "BR-DE-19"]
    assert finding.severity == "warning"  # KoSIT's flag: the invoice stays valid
    assert words in finding.message and "BT-84" in finding.message
    assert iban not in finding.message  # the sender's text is not echoed
    assert finding.xpath.endswith("[1]")
    assert result.xrechnung_valid is True


@pytest.mark.threat("I35-9d")
@pytest.mark.parametrize("syntax", SYNTAXES)
def test_br_de_19_is_for_sepa_transfers_only(syntax: str) -> None:
    result = _checked(_with_iban(syntax, "DE03120300000000202051", code="30"))
    assert _rules(result, "BR-DE-19") == []
