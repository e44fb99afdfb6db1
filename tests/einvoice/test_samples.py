"""All 15 shared samples give the manifest's values, validity and rule ids."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.domain.einvoice.check import check
from sevdesk_mcp.domain.einvoice.read import read_bytes
from tests.einvoice.samples import REASON, rows, sample

ROWS: list[object] = [*rows()] or [pytest.param({}, marks=pytest.mark.skip(reason=REASON))]
VALUES = {
    "BT-1": "number",
    "BT-2": "issue_date",
    "BT-5": "currency",
    "BT-3": "type_code",
}
AMOUNTS = {
    "BT-106": "line_net",
    "BT-109": "net",
    "BT-110": "vat",
    "BT-112": "gross",
    "BT-115": "due",
}


def _id(row: object) -> str:
    return row.get("file", "absent") if isinstance(row, dict) else "absent"


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_the_header_values_are_the_manifests(row: dict[str, str]) -> None:
    read = read_bytes(sample(row["file"]))
    invoice = read.invoice
    for term, attr in VALUES.items():
        assert getattr(invoice, attr) == row[term], term
    for term, attr in AMOUNTS.items():
        value = getattr(invoice.totals, attr)
        assert value == (Decimal(row[term]) if row[term] else None), term
    assert " ".join((invoice.seller.name or "").split()) == " ".join(row["BT-27"].split())
    assert " ".join((invoice.buyer.name or "").split()) == " ".join(row["BT-44"].split())
    assert invoice.profile == row["profile"].split(" (")[0]
    assert invoice.specification == row["profile_id"]
    assert read.container == ("pdf" if row["syntax"] == "pdf-zugferd" else "xml")


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_validity_and_rule_ids_are_the_manifests(row: dict[str, str]) -> None:
    result = check(read_bytes(sample(row["file"])).invoice)
    fatal = {f.rule for f in result.findings if f.severity == "error"}
    en = {rule for rule in fatal if not rule.startswith("BR-DE")}
    assert en == set(filter(None, row["expected_rule_violations"].split(",")))
    assert result.valid is (row["expected_validity"] == "valid")


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_the_xrechnung_result_is_the_manifests(row: dict[str, str]) -> None:
    result = check(read_bytes(sample(row["file"])).invoice)
    german = [f for f in result.findings if f.rule.startswith("BR-DE")]
    expected = row["xrechnung_cius"]
    if expected == "n/a":
        assert result.xrechnung_valid is None and not german
    elif expected.startswith("invalid:"):
        assert {f.rule for f in german if f.severity == "error"} == set(expected[8:].split(","))
    else:
        assert not [f for f in german if f.severity == "error"]
        warned = expected.partition("warnings:")[2].rstrip(")")
        assert {f.rule for f in german} == set(filter(None, warned.split(",")))


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_every_finding_names_an_xpath_and_a_sentence(row: dict[str, str]) -> None:
    for finding in check(read_bytes(sample(row["file"])).invoice).findings:
        assert finding.xpath.startswith("/")
        assert finding.message.endswith(".")


def test_ubl_and_cii_of_one_business_case_read_alike() -> None:
    ubl = read_bytes(sample("kosit_01.01a-INVOICE_ubl.xml")).invoice
    cii = read_bytes(sample("kosit_01.01a-INVOICE_uncefact.xml")).invoice
    assert ubl.totals.gross == cii.totals.gross
    assert [line.net for line in ubl.lines] == [line.net for line in cii.lines]
    assert ubl.seller.vat_id == cii.seller.vat_id
    assert ubl.payment_means[0].ibans == cii.payment_means[0].ibans
    assert ubl.vat_breakdown == cii.vat_breakdown


def test_a_credit_note_reads_its_lines_and_type() -> None:
    invoice = read_bytes(sample("cen_CreditNote-Min_content_with_VAT.xml")).invoice
    assert invoice.syntax == "ubl-creditnote"
    assert invoice.lines and all(line.quantity is not None for line in invoice.lines)


def test_the_object_stream_pdf_gives_the_same_invoice() -> None:
    plain = read_bytes(sample("ferd233_EN16931_Physiotherapeut.pdf"))
    rewritten = read_bytes(sample("derived_ferd233_EN16931_Physiotherapeut_objstm.pdf"))
    assert plain.invoice == rewritten.invoice
    assert rewritten.attachment == "factur-x.xml"


def test_the_xrechnung_pdf_uses_its_xrechnung_attachment() -> None:
    read = read_bytes(sample("ferd233_XRECHNUNG_Betriebskostenabrechnung.pdf"))
    assert read.attachment == "xrechnung.xml"
    assert read.invoice.profile == "XRECHNUNG"
