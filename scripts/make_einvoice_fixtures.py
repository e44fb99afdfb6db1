"""Generates the suite's own e-invoices in ``fixtures/einvoice/`` (run from the repository root:
``python scripts/make_einvoice_fixtures.py``): one valid invoice per syntax (UBL 2.1 and CII
D16B, XRechnung 3.0 and plain EN 16931), one variant per rule the reader checks that breaks
exactly that rule, and ZUGFeRD PDFs of the valid CII invoices. ``MANIFEST.tsv`` names each
file's expected rule ids. Invented data only; the output is the same bytes on every run.
"""

from __future__ import annotations

import io
import sys
from decimal import Decimal
from pathlib import Path
from typing import Final, NamedTuple
from xml.sax.saxutils import escape

OUT: Final = Path(__file__).resolve().parents[1] / "fixtures" / "einvoice"
XRECHNUNG: Final = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
EN16931: Final = "urn:cen.eu:en16931:2017"
D = Decimal


class Party(NamedTuple):
    """A seller or buyer."""

    name: str | None
    street: str | None = "Hauptstrasse 1"
    city: str | None = "Freiburg"
    zip: str | None = "79098"
    country: str | None = "DE"
    vat: str | None = None
    contact: tuple[str, str, str] | None = None


class Line(NamedTuple):
    """An invoice line."""

    id: str | None = "1"
    name: str | None = "Schnittholz Eiche"
    qty: Decimal | None = D("2")
    unit: str | None = "C62"
    price: Decimal | None = D("50.00")
    net: Decimal = D("100.00")
    cat: str = "S"
    rate: Decimal | None = D("19")


class Tax(NamedTuple):
    """A VAT breakdown."""

    taxable: Decimal
    tax: Decimal
    cat: str = "S"
    rate: Decimal | None = D("19")
    reason: str | None = None


class Allowance(NamedTuple):
    """A document-level allowance (BG-20)."""

    amount: Decimal
    cat: str = "S"
    rate: Decimal | None = D("19")
    reason: str = "Rabatt"


class Spec(NamedTuple):
    """Everything an invoice of this generator holds."""

    profile: str = XRECHNUNG
    number: str | None = "RE-2026-0001"
    date: str | None = "2026-10-20"
    type_code: str = "380"
    currency: str = "EUR"
    tax_currency: tuple[str, Decimal] | None = None
    buyer_reference: str | None = "04011000-12345-03"
    seller: Party = Party(
        "Holzhandel Schwarzwald GmbH",
        vat="DE123456789",
        contact=("Erika Muster", "+49 761 123456", "rechnung@holzhandel.example"),
    )
    buyer: Party = Party("Holzwerkstatt Demo", street="Werkweg 2", zip="79100")
    lines: tuple[Line, ...] = (Line(),)
    allowances: tuple[Allowance, ...] = ()
    taxes: tuple[Tax, ...] = (Tax(D("100.00"), D("19.00")),)
    line_total: Decimal = D("100.00")
    net: Decimal = D("100.00")
    vat: Decimal = D("19.00")
    gross: Decimal = D("119.00")
    due: Decimal = D("119.00")
    means: str | None = "58"
    iban: str | None = "DE02120300000000202051"
    card: bool = False
    terms: str | None = "Zahlbar innerhalb 14 Tagen."


def ubl(spec: Spec) -> str:
    """:returns: the invoice as UBL 2.1."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<ubl:Invoice xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" '
        'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
        'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">',
        _el("cbc:CustomizationID", spec.profile),
        _el("cbc:ID", spec.number),
        _el("cbc:IssueDate", spec.date),
        _el("cbc:InvoiceTypeCode", spec.type_code),
        _el("cbc:DocumentCurrencyCode", spec.currency),
        _el("cbc:TaxCurrencyCode", spec.tax_currency[0] if spec.tax_currency else None),
        _el("cbc:BuyerReference", spec.buyer_reference),
        f"<cac:AccountingSupplierParty>{_ubl_party(spec.seller)}</cac:AccountingSupplierParty>",
        f"<cac:AccountingCustomerParty>{_ubl_party(spec.buyer)}</cac:AccountingCustomerParty>",
    ]
    if spec.means is not None or spec.iban or spec.card:
        account = (
            f"<cac:PayeeFinancialAccount>{_el('cbc:ID', spec.iban)}</cac:PayeeFinancialAccount>"
        )
        card = "<cac:CardAccount><cbc:PrimaryAccountNumberID>1234</cbc:PrimaryAccountNumberID>"
        card += "<cbc:NetworkID>VISA</cbc:NetworkID></cac:CardAccount>"
        out.append(
            f"<cac:PaymentMeans>{_el('cbc:PaymentMeansCode', spec.means)}"
            f"{card if spec.card else ''}{account if spec.iban else ''}</cac:PaymentMeans>"
        )
    if spec.terms:
        out.append(f"<cac:PaymentTerms>{_el('cbc:Note', spec.terms)}</cac:PaymentTerms>")
    out.extend(_ubl_allowance(a) for a in spec.allowances)
    subtotals = "".join(
        f"<cac:TaxSubtotal>{_amount('cbc:TaxableAmount', t.taxable)}"
        f"{_amount('cbc:TaxAmount', t.tax)}"
        f"<cac:TaxCategory>{_el('cbc:ID', t.cat)}{_el('cbc:Percent', t.rate)}"
        f"{_el('cbc:TaxExemptionReason', t.reason)}"
        "<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>"
        for t in spec.taxes
    )
    out.append(f"<cac:TaxTotal>{_amount('cbc:TaxAmount', spec.vat)}{subtotals}</cac:TaxTotal>")
    if spec.tax_currency:
        code, amount = spec.tax_currency
        out.append(
            f'<cac:TaxTotal><cbc:TaxAmount currencyID="{code}">{amount}</cbc:TaxAmount>'
            "</cac:TaxTotal>"
        )
    out.append(
        "<cac:LegalMonetaryTotal>"
        f"{_amount('cbc:LineExtensionAmount', spec.line_total)}"
        f"{_amount('cbc:TaxExclusiveAmount', spec.net)}"
        f"{_amount('cbc:TaxInclusiveAmount', spec.gross)}"
        f"{_amount('cbc:AllowanceTotalAmount', _allowance_total(spec))}"
        f"{_amount('cbc:PayableAmount', spec.due)}</cac:LegalMonetaryTotal>"
    )
    for line in spec.lines:
        quantity = (
            f'<cbc:InvoicedQuantity unitCode="{line.unit}">{line.qty}</cbc:InvoicedQuantity>'
            if line.unit
            else _el("cbc:InvoicedQuantity", line.qty)
        )
        out.append(
            f"<cac:InvoiceLine>{_el('cbc:ID', line.id)}{quantity if line.qty else ''}"
            f"{_amount('cbc:LineExtensionAmount', line.net)}<cac:Item>{_el('cbc:Name', line.name)}"
            f"<cac:ClassifiedTaxCategory>{_el('cbc:ID', line.cat)}{_el('cbc:Percent', line.rate)}"
            "<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory>"
            "</cac:Item>"
            f"<cac:Price>{_amount('cbc:PriceAmount', line.price)}</cac:Price></cac:InvoiceLine>"
        )
    out.append("</ubl:Invoice>")
    text = "\n".join(o for o in out if o) + "\n"
    return text.replace('currencyID="EUR"', f'currencyID="{spec.currency}"')


def _allowance_total(spec: Spec) -> Decimal | None:
    return sum((a.amount for a in spec.allowances), D("0.00")) if spec.allowances else None


def _ubl_allowance(allowance: Allowance) -> str:
    return (
        "<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator>"
        f"{_el('cbc:AllowanceChargeReason', allowance.reason)}"
        f"{_amount('cbc:Amount', allowance.amount)}"
        f"<cac:TaxCategory>{_el('cbc:ID', allowance.cat)}{_el('cbc:Percent', allowance.rate)}"
        "<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory>"
        "</cac:AllowanceCharge>"
    )


def _cii_allowance(allowance: Allowance) -> str:
    return (
        "<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>false"
        "</udt:Indicator></ram:ChargeIndicator>"
        f"{_el('ram:ActualAmount', allowance.amount)}{_el('ram:Reason', allowance.reason)}"
        "<ram:CategoryTradeTax><ram:TypeCode>VAT</ram:TypeCode>"
        f"{_el('ram:CategoryCode', allowance.cat)}"
        f"{_el('ram:RateApplicablePercent', allowance.rate)}</ram:CategoryTradeTax>"
        "</ram:SpecifiedTradeAllowanceCharge>"
    )


def _ubl_party(party: Party) -> str:
    address = (
        f"<cac:PostalAddress>{_el('cbc:StreetName', party.street)}{_el('cbc:CityName', party.city)}"
        f"{_el('cbc:PostalZone', party.zip)}"
        + (
            f"<cac:Country>{_el('cbc:IdentificationCode', party.country)}</cac:Country>"
            if party.country
            else ""
        )
        + "</cac:PostalAddress>"
    )
    tax = (
        f"<cac:PartyTaxScheme>{_el('cbc:CompanyID', party.vat)}"
        "<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>"
        if party.vat
        else ""
    )
    legal = (
        f"<cac:PartyLegalEntity>{_el('cbc:RegistrationName', party.name)}</cac:PartyLegalEntity>"
    )
    contact = ""
    if party.contact:
        name, phone, mail = party.contact
        contact = (
            f"<cac:Contact>{_el('cbc:Name', name)}{_el('cbc:Telephone', phone)}"
            f"{_el('cbc:ElectronicMail', mail)}</cac:Contact>"
        )
    ident = (
        ""
        if party.vat
        else "<cac:PartyIdentification><cbc:ID>K-0815</cbc:ID></cac:PartyIdentification>"
    )
    return f"<cac:Party>{ident}{address}{tax}{legal}{contact}</cac:Party>"


def cii(spec: Spec) -> str:
    """:returns: the invoice as UN/CEFACT CII D16B."""
    lines = "".join(_cii_line(line) for line in spec.lines)
    taxes = "".join(
        f"<ram:ApplicableTradeTax>{_el('ram:CalculatedAmount', t.tax)}<ram:TypeCode>"
        "VAT</ram:TypeCode>"
        f"{_el('ram:ExemptionReason', t.reason)}{_el('ram:BasisAmount', t.taxable)}"
        f"{_el('ram:CategoryCode', t.cat)}{_el('ram:RateApplicablePercent', t.rate)}"
        "</ram:ApplicableTradeTax>"
        for t in spec.taxes
    )
    means = ""
    if spec.means is not None or spec.iban or spec.card:
        card = "<ram:ApplicableTradeSettlementFinancialCard><ram:ID>1234</ram:ID>"
        card += "</ram:ApplicableTradeSettlementFinancialCard>"
        account = (
            f"<ram:PayeePartyCreditorFinancialAccount>{_el('ram:IBANID', spec.iban)}"
            "</ram:PayeePartyCreditorFinancialAccount>"
        )
        means = (
            f"<ram:SpecifiedTradeSettlementPaymentMeans>{_el('ram:TypeCode', spec.means)}"
            f"{card if spec.card else ''}{account if spec.iban else ''}"
            "</ram:SpecifiedTradeSettlementPaymentMeans>"
        )
    terms = (
        f"<ram:SpecifiedTradePaymentTerms>{_el('ram:Description', spec.terms)}"
        "</ram:SpecifiedTradePaymentTerms>"
        if spec.terms
        else ""
    )
    date = (
        f'<ram:IssueDateTime><udt:DateTimeString format="102">{spec.date.replace("-", "")}'
        "</udt:DateTimeString></ram:IssueDateTime>"
        if spec.date
        else ""
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<rsm:CrossIndustryInvoice "
        'xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" '
        'xmlns:ram="urn:un:unece:uncefact:data:standard:'
        'ReusableAggregateBusinessInformationEntity:100" '
        'xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">\n'
        "<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>"
        f"{_el('ram:ID', spec.profile)}</ram:GuidelineSpecifiedDocumentContextParameter>"
        "</rsm:ExchangedDocumentContext>\n"
        f"<rsm:ExchangedDocument>{_el('ram:ID', spec.number)}"
        f"{_el('ram:TypeCode', spec.type_code)}{date}"
        "</rsm:ExchangedDocument>\n<rsm:SupplyChainTradeTransaction>\n"
        f"{lines}<ram:ApplicableHeaderTradeAgreement>"
        f"{_el('ram:BuyerReference', spec.buyer_reference)}"
        f"{_cii_party('ram:SellerTradeParty', spec.seller)}"
        f"{_cii_party('ram:BuyerTradeParty', spec.buyer)}"
        "</ram:ApplicableHeaderTradeAgreement>\n<ram:ApplicableHeaderTradeDelivery/>\n"
        "<ram:ApplicableHeaderTradeSettlement>"
        f"{_el('ram:TaxCurrencyCode', spec.tax_currency[0] if spec.tax_currency else None)}"
        f"{_el('ram:InvoiceCurrencyCode', spec.currency)}"
        f"{means}{taxes}{''.join(_cii_allowance(a) for a in spec.allowances)}{terms}"
        "<ram:SpecifiedTradeSettlementHeaderMonetarySummation>"
        f"{_el('ram:LineTotalAmount', spec.line_total)}"
        f"{_el('ram:AllowanceTotalAmount', _allowance_total(spec))}"
        f"{_el('ram:TaxBasisTotalAmount', spec.net)}"
        f'<ram:TaxTotalAmount currencyID="{spec.currency}">{spec.vat}</ram:TaxTotalAmount>'
        f"{_cii_tax_currency(spec)}"
        f"{_el('ram:GrandTotalAmount', spec.gross)}{_el('ram:DuePayableAmount', spec.due)}"
        "</ram:SpecifiedTradeSettlementHeaderMonetarySummation>"
        "</ram:ApplicableHeaderTradeSettlement>\n"
        "</rsm:SupplyChainTradeTransaction>\n</rsm:CrossIndustryInvoice>\n"
    )


def _cii_tax_currency(spec: Spec) -> str:
    if spec.tax_currency is None:
        return ""
    code, amount = spec.tax_currency
    return f'<ram:TaxTotalAmount currencyID="{code}">{amount}</ram:TaxTotalAmount>'


def _cii_line(line: Line) -> str:
    quantity = (
        f'<ram:BilledQuantity unitCode="{line.unit}">{line.qty}</ram:BilledQuantity>'
        if line.unit
        else _el("ram:BilledQuantity", line.qty)
    )
    return (
        "<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument>"
        f"{_el('ram:LineID', line.id)}</ram:AssociatedDocumentLineDocument>"
        f"<ram:SpecifiedTradeProduct>{_el('ram:Name', line.name)}</ram:SpecifiedTradeProduct>"
        "<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice>"
        f"{_el('ram:ChargeAmount', line.price)}</ram:NetPriceProductTradePrice>"
        "</ram:SpecifiedLineTradeAgreement>"
        f"<ram:SpecifiedLineTradeDelivery>{quantity if line.qty else ''}"
        "</ram:SpecifiedLineTradeDelivery>"
        "<ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode>"
        f"{_el('ram:CategoryCode', line.cat)}{_el('ram:RateApplicablePercent', line.rate)}"
        "</ram:ApplicableTradeTax>"
        "<ram:SpecifiedTradeSettlementLineMonetarySummation>"
        f"{_el('ram:LineTotalAmount', line.net)}"
        "</ram:SpecifiedTradeSettlementLineMonetarySummation>"
        "</ram:SpecifiedLineTradeSettlement></ram:IncludedSupplyChainTradeLineItem>\n"
    )


def _cii_party(tag: str, party: Party) -> str:
    contact = ""
    if party.contact:
        name, phone, mail = party.contact
        contact = (
            f"<ram:DefinedTradeContact>{_el('ram:PersonName', name)}"
            "<ram:TelephoneUniversalCommunication>"
            f"{_el('ram:CompleteNumber', phone)}</ram:TelephoneUniversalCommunication>"
            f"<ram:EmailURIUniversalCommunication>{_el('ram:URIID', mail)}"
            "</ram:EmailURIUniversalCommunication></ram:DefinedTradeContact>"
        )
    ident = "" if party.vat else "<ram:ID>K-0815</ram:ID>"
    address = (
        f"<ram:PostalTradeAddress>{_el('ram:PostcodeCode', party.zip)}"
        f"{_el('ram:LineOne', party.street)}"
        f"{_el('ram:CityName', party.city)}{_el('ram:CountryID', party.country)}"
        "</ram:PostalTradeAddress>"
    )
    vat = (
        f'<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">{escape(party.vat)}</ram:ID>'
        "</ram:SpecifiedTaxRegistration>"
        if party.vat
        else ""
    )
    return f"<{tag}>{ident}{_el('ram:Name', party.name)}{contact}{address}{vat}</{tag}>"


def _el(tag: str, value: object) -> str:
    return "" if value is None else f"<{tag}>{escape(str(value))}</{tag}>"


def _amount(tag: str, value: Decimal | None) -> str:
    return "" if value is None else f'<{tag} currencyID="EUR">{value}</{tag}>'


BASE: Final = Spec()
PLAIN: Final = BASE._replace(profile=EN16931, buyer_reference=None)
EXEMPT: Final = PLAIN._replace(
    lines=(Line(cat="E", rate=D("0")),),
    taxes=(Tax(D("100.00"), D("0.00"), "E", D("0"), "Steuerfrei nach § 4 Nr. 14 UStG"),),
    vat=D("0.00"),
    gross=D("100.00"),
    due=D("100.00"),
)
REVERSE: Final = EXEMPT._replace(
    buyer=BASE.buyer._replace(vat="DE987654321"),
    lines=(Line(cat="AE", rate=D("0")),),
    taxes=(Tax(D("100.00"), D("0.00"), "AE", D("0"), "Reverse charge"),),
)
SELLER: Final = BASE.seller
VARIANTS: Final[dict[str, tuple[Spec, tuple[str, ...], tuple[str, ...]]]] = {
    # name: (spec, rule ids in UBL, rule ids in CII); an empty tuple means valid
    "valid-xrechnung": (BASE, (), ()),
    "valid-en16931": (PLAIN, (), ()),
    "valid-exempt": (EXEMPT, (), ()),
    "valid-reverse-charge": (REVERSE, (), ()),
    "BR-02": (PLAIN._replace(number=None), ("BR-02",), ("BR-02",)),
    "BR-03": (PLAIN._replace(date=None), ("BR-03",), ("BR-03",)),
    "BR-06": (PLAIN._replace(seller=SELLER._replace(name=None)), ("BR-06",), ("BR-06",)),
    "BR-07": (PLAIN._replace(buyer=BASE.buyer._replace(name=None)), ("BR-07",), ("BR-07",)),
    "BR-11": (PLAIN._replace(buyer=BASE.buyer._replace(country=None)), ("BR-11",), ("BR-11",)),
    "BR-21": (PLAIN._replace(lines=(Line(id=None),)), ("BR-21",), ("BR-21",)),
    "BR-22": (  # no quantity element: no unit either, the official pair
        PLAIN._replace(lines=(Line(qty=None),)),
        ("BR-22", "BR-23"),
        ("BR-22", "BR-23"),
    ),
    "BR-23": (PLAIN._replace(lines=(Line(unit=None),)), ("BR-23",), ("BR-23",)),
    "BR-25": (PLAIN._replace(lines=(Line(name=None),)), ("BR-25",), ("BR-25",)),
    "BR-26": (PLAIN._replace(lines=(Line(price=None),)), ("BR-26",), ("BR-26",)),
    "BR-27": (PLAIN._replace(lines=(Line(price=D("-50.00")),)), ("BR-27",), ("BR-27",)),
    "BR-49": (PLAIN._replace(means=None), ("BR-49",), ("BR-49",)),
    "BR-61": (PLAIN._replace(iban=None), ("BR-61",), ("BR-61",)),
    "BR-CO-09": (
        PLAIN._replace(seller=SELLER._replace(vat="123456789")),
        ("BR-CO-09",),
        ("BR-CO-09",),
    ),
    "BR-CO-10": (
        PLAIN._replace(lines=(Line(net=D("100.50")),)),
        ("BR-CO-10",),  # UBL's BR-S-08 allows 1.00
        ("BR-CO-10", "BR-S-08"),  # CII's BR-S-08 is exact: the official pair
    ),
    "BR-CO-13": (
        PLAIN._replace(net=D("101.00"), gross=D("120.00"), due=D("120.00")),
        ("BR-CO-13",),
        ("BR-CO-13",),
    ),
    "BR-CO-14": (
        PLAIN._replace(vat=D("20.00"), gross=D("120.00"), due=D("120.00")),
        ("BR-CO-14",),
        ("BR-CO-14",),
    ),
    "BR-CO-15": (PLAIN._replace(gross=D("129.00"), due=D("129.00")), ("BR-CO-15",), ("BR-CO-15",)),
    "BR-CO-16": (PLAIN._replace(due=D("118.00")), ("BR-CO-16",), ("BR-CO-16",)),
    "BR-S-08": (
        PLAIN._replace(taxes=(Tax(D("102.00"), D("19.00")),)),
        ("BR-S-08",),
        ("BR-S-08",),
    ),
    "BR-S-10": (
        PLAIN._replace(taxes=(Tax(D("100.00"), D("19.00"), reason="frei"),)),
        ("BR-S-10",),
        ("BR-S-10",),
    ),
    "BR-E-10": (
        EXEMPT._replace(taxes=(Tax(D("100.00"), D("0.00"), "E", D("0")),)),
        ("BR-E-10",),
        ("BR-E-10",),
    ),
    "BR-AE-02": (REVERSE._replace(buyer=BASE.buyer), ("BR-AE-02",), ("BR-AE-02",)),
    # code lists: each CII twin breaks the same rule as the UBL one, against the CII lists
    "BR-CL-01": (PLAIN._replace(type_code="999"), ("BR-CL-01",), ("BR-CL-01",)),
    "BR-CL-04": (  # every amount's currencyID too: the official pair
        PLAIN._replace(currency="EUX"),
        ("BR-CL-03", "BR-CL-04"),
        ("BR-CL-03", "BR-CL-04"),
    ),
    "BR-CL-05": (  # the VAT total in that currency too: the official pair
        PLAIN._replace(tax_currency=("XEU", D("19.00"))),
        ("BR-CL-03", "BR-CL-05"),
        ("BR-CL-03", "BR-CL-05"),
    ),
    "BR-CL-14": (
        PLAIN._replace(buyer=BASE.buyer._replace(country="XX")),
        ("BR-CL-14",),
        ("BR-CL-14",),
    ),
    "BR-CL-16": (PLAIN._replace(means="99"), ("BR-CL-16",), ("BR-CL-16",)),
    "BR-CL-17": (  # a document-level allowance: BR-CL-17 in both syntaxes (a bad VAT
        # breakdown category would be BR-CL-18 in CII)
        PLAIN._replace(
            allowances=(Allowance(D("10.00"), "X", None),),
            net=D("90.00"),
            gross=D("109.00"),
            due=D("109.00"),
        ),
        ("BR-CL-17",),
        ("BR-CL-17",),
    ),
    "BR-CL-18": (  # the S breakdown then has no S line
        PLAIN._replace(lines=(Line(cat="X"),)),
        ("BR-CL-18", "BR-S-08"),
        ("BR-CL-18", "BR-S-08"),
    ),
    "BR-CL-23": (PLAIN._replace(lines=(Line(unit="PCS"),)), ("BR-CL-23",), ("BR-CL-23",)),
    "BR-DE-1": (BASE._replace(means=None, iban=None), ("BR-DE-1",), ("BR-DE-1",)),
    "BR-DE-2": (BASE._replace(seller=SELLER._replace(contact=None)), ("BR-DE-2",), ("BR-DE-2",)),
    "BR-DE-3": (BASE._replace(seller=SELLER._replace(city=None)), ("BR-DE-3",), ("BR-DE-3",)),
    "BR-DE-9": (BASE._replace(buyer=BASE.buyer._replace(zip=None)), ("BR-DE-9",), ("BR-DE-9",)),
    "BR-DE-15": (BASE._replace(buyer_reference=None), ("BR-DE-15",), ("BR-DE-15",)),
    "BR-DE-18": (BASE._replace(terms="#SKONTO#TAGE=7#PROZENT=2#"), ("BR-DE-18",), ("BR-DE-18",)),
    "BR-DE-23-b": (BASE._replace(card=True), ("BR-DE-23-b",), ("BR-DE-23-b",)),
}


def zugferd(xml: bytes, name: str) -> bytes:
    """:returns: a one-page PDF with ``xml`` embedded as ``name`` (fixed dates: same bytes)."""
    import pypdf  # noqa: PLC0415 - only this generator writes PDFs

    writer = pypdf.PdfWriter()
    writer.add_blank_page(595, 842)
    writer.add_attachment(name, xml)
    writer.add_metadata(
        {"/Producer": "make_einvoice_fixtures", "/CreationDate": "D:20261020000000Z"}
    )
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def generate(out: Path) -> list[str]:
    """Write every file into ``out``.

    :returns: the manifest's lines.
    """
    out.mkdir(parents=True, exist_ok=True)
    rows = ["file\tsyntax\texpected_rule_violations"]
    for name, (spec, in_ubl, in_cii) in VARIANTS.items():
        for syntax, render, rules in (("ubl", ubl, in_ubl), ("cii", cii, in_cii)):
            file = f"{name}.{syntax}.xml"
            (out / file).write_text(render(spec), encoding="utf-8")
            rows.append(f"{file}\t{syntax}\t{','.join(rules)}")
    for name in ("valid-xrechnung", "valid-en16931", "BR-CO-15"):
        spec, _, rules = VARIANTS[name]
        attachment = "xrechnung.xml" if spec.profile == XRECHNUNG else "factur-x.xml"
        file = f"{name}.zugferd.pdf"
        (out / file).write_bytes(zugferd(cii(spec).encode(), attachment))
        rows.append(f"{file}\tpdf\t{','.join(rules)}")
    (out / "MANIFEST.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return rows


def main(argv: list[str]) -> int:
    """Generate into ``fixtures/einvoice/`` (or the folder given)."""
    target = Path(argv[1]) if len(argv) > 1 else OUT
    print(f"{len(generate(target)) - 1} files written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
