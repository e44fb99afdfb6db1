"""Reader of UBL 2.1 Invoice and CreditNote documents (XRechnung, PEPPOL BIS 3)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Final

import msgspec

from sevdesk_mcp.domain.einvoice import amounts, pieces
from sevdesk_mcp.domain.einvoice import values as v
from sevdesk_mcp.domain.einvoice.model import Invoice, Party, Syntax, Totals
from sevdesk_mcp.domain.einvoice.nodes import Node
from sevdesk_mcp.domain.einvoice.profiles import profile_of

INVOICE_NS: Final = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
CREDIT_NS: Final = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
NS: Final = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}

ADDRESS: Final = pieces.AddressPaths(
    street="cbc:StreetName",
    city="cbc:CityName",
    post_code="cbc:PostalZone",
    country="cac:Country/cbc:IdentificationCode",
)
PERIOD: Final = pieces.PeriodPaths(start="cbc:StartDate", end="cbc:EndDate")
CONTACT: Final = pieces.ContactPaths(
    names=("cbc:Name",), phone="cbc:Telephone", email="cbc:ElectronicMail"
)
REPRESENTATIVE: Final = pieces.RepresentativePaths(
    name="cac:PartyName/cbc:Name",
    vat_id="cac:PartyTaxScheme/cbc:CompanyID",
    address="cac:PostalAddress",
    address_paths=ADDRESS,
)
CHARGE: Final = amounts.ChargePaths(
    indicator="cbc:ChargeIndicator",
    amount="cbc:Amount",
    base="cbc:BaseAmount",
    percent="cbc:MultiplierFactorNumeric",
    category="cac:TaxCategory/cbc:ID",
    rate="cac:TaxCategory/cbc:Percent",
    reason="cbc:AllowanceChargeReason",
    reason_code="cbc:AllowanceChargeReasonCode",
)
"""A document-level allowance or charge (BG-20, BG-21)."""
LINE_CHARGE: Final = msgspec.structs.replace(CHARGE, category=None, rate=None)
"""A line-level allowance or charge (BG-27, BG-28), which has no VAT category in EN 16931."""
INVOICE_LINE: Final = amounts.LinePaths(
    id="cbc:ID",
    name="cac:Item/cbc:Name",
    description="cac:Item/cbc:Description",
    quantity="cbc:InvoicedQuantity",
    settlement=None,
    net="cbc:LineExtensionAmount",
    category="cac:Item/cac:ClassifiedTaxCategory/cbc:ID",
    rate="cac:Item/cac:ClassifiedTaxCategory/cbc:Percent",
    period="cac:InvoicePeriod",
    period_paths=PERIOD,
    charges="cac:AllowanceCharge",
    charge_paths=LINE_CHARGE,
    agreement=None,
    price="cac:Price/cbc:PriceAmount",
    gross_price="cac:Price/cac:AllowanceCharge/cbc:BaseAmount",
)
CREDIT_LINE: Final = msgspec.structs.replace(INVOICE_LINE, quantity="cbc:CreditedQuantity")
BREAKDOWN: Final = amounts.BreakdownPaths(
    taxable="cbc:TaxableAmount",
    tax="cbc:TaxAmount",
    category="cac:TaxCategory/cbc:ID",
    rate="cac:TaxCategory/cbc:Percent",
    exemption_reason="cac:TaxCategory/cbc:TaxExemptionReason",
    exemption_code="cac:TaxCategory/cbc:TaxExemptionReasonCode",
)
TOTALS: Final = amounts.TotalPaths(
    line_net="cbc:LineExtensionAmount",
    allowances="cbc:AllowanceTotalAmount",
    charges="cbc:ChargeTotalAmount",
    net="cbc:TaxExclusiveAmount",
    gross="cbc:TaxInclusiveAmount",
    prepaid="cbc:PrepaidAmount",
    rounding="cbc:PayableRoundingAmount",
    due="cbc:PayableAmount",
)
MEANS: Final = pieces.MeansPaths(
    code="cbc:PaymentMeansCode",
    text="cbc:InstructionNote",
    ibans=("cac:PayeeFinancialAccount/cbc:ID",),
    bic="cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID",
    card="cac:CardAccount",
    mandate="cac:PaymentMandate/cbc:ID",
    debited_account="cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID",
)
CREDITOR_IDS: Final = (
    "cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID",
    "cac:PayeeParty/cac:PartyIdentification/cbc:ID",
)
"""Where the SEPA creditor id (BT-90) may stand, in the order searched."""


def read(root: ET.Element) -> Invoice:
    """:returns: the invoice of a UBL ``Invoice`` or ``CreditNote`` root.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    credit = root.tag == f"{{{CREDIT_NS}}}CreditNote"
    doc = Node(root, NS)
    spec = doc.text("cbc:CustomizationID")
    syntax: Syntax = "ubl-creditnote" if credit else "ubl-invoice"
    line_tag, line_paths = (
        ("cac:CreditNoteLine", CREDIT_LINE) if credit else ("cac:InvoiceLine", INVOICE_LINE)
    )
    due = doc.date("cac:PaymentMeans/cbc:PaymentDueDate") if credit else doc.date("cbc:DueDate")
    currency = doc.text("cbc:DocumentCurrencyCode")
    return Invoice(
        syntax=syntax,
        profile=profile_of(spec),
        specification=spec,
        number=doc.text("cbc:ID"),
        issue_date=doc.date("cbc:IssueDate"),
        type_code=doc.text("cbc:CreditNoteTypeCode" if credit else "cbc:InvoiceTypeCode"),
        currency=currency,
        tax_currency=doc.text("cbc:TaxCurrencyCode"),
        tax_point_date=doc.date("cbc:TaxPointDate"),
        tax_point_code=doc.text("cac:InvoicePeriod/cbc:DescriptionCode"),
        due_date=due,
        buyer_reference=doc.text("cbc:BuyerReference"),
        order_reference=doc.text("cac:OrderReference/cbc:ID"),
        preceding_invoices=[
            v.text(e.find("cbc:ID", NS)) or ""
            for e in doc.all("cac:BillingReference/cac:InvoiceDocumentReference")
        ],
        notes=doc.texts("cbc:Note"),
        seller=_party(doc.child("cac:AccountingSupplierParty/cac:Party")),
        buyer=_party(doc.child("cac:AccountingCustomerParty/cac:Party")),
        tax_representative=pieces.representative(
            doc.child("cac:TaxRepresentativeParty"), REPRESENTATIVE
        ),
        deliver_to=pieces.address(
            doc.child("cac:Delivery/cac:DeliveryLocation/cac:Address"), ADDRESS
        ),
        delivery_date=doc.date("cac:Delivery/cbc:ActualDeliveryDate"),
        period=pieces.period(doc.child("cac:InvoicePeriod"), PERIOD),
        lines=[amounts.line(n, i, line_paths) for i, n in enumerate(doc.nodes(line_tag), 1)],
        allowances_charges=[amounts.charge(n, CHARGE) for n in doc.nodes("cac:AllowanceCharge")],
        vat_breakdown=[
            amounts.breakdown(n, BREAKDOWN) for n in doc.nodes("cac:TaxTotal/cac:TaxSubtotal")
        ],
        totals=_totals(doc),
        payment_means=[pieces.means(n, MEANS) for n in doc.nodes("cac:PaymentMeans")],
        payment_terms=doc.lines("cac:PaymentTerms/cbc:Note"),
        creditor_id=_creditor(doc),
        attachment_names=doc.attributes(
            "cac:AdditionalDocumentReference/cac:Attachment/cbc:EmbeddedDocumentBinaryObject",
            "filename",
        ),
    )


def _party(party: Node) -> Party:
    if party.el is None:
        return Party()
    vat_id = tax_number = None
    for node in party.nodes("cac:PartyTaxScheme"):
        if node.text("cac:TaxScheme/cbc:ID") == "VAT":
            vat_id = node.text("cbc:CompanyID")
        else:
            tax_number = node.text("cbc:CompanyID")
    return Party(
        name=party.text("cac:PartyLegalEntity/cbc:RegistrationName"),
        trading_name=party.text("cac:PartyName/cbc:Name"),
        identifiers=party.texts("cac:PartyIdentification/cbc:ID"),
        legal_id=party.text("cac:PartyLegalEntity/cbc:CompanyID"),
        vat_id=vat_id,
        tax_number=tax_number,
        address=pieces.address(party.child("cac:PostalAddress"), ADDRESS),
        contact=pieces.contact(party.child("cac:Contact"), CONTACT),
        electronic_address=party.text("cbc:EndpointID"),
    )


def _totals(doc: Node) -> Totals:
    money = doc.child("cac:LegalMonetaryTotal")
    vat = amounts.tax_amounts(doc.all("cac:TaxTotal/cbc:TaxAmount"))
    return amounts.totals(
        money,
        TOTALS,
        vat,
        (doc.text("cbc:DocumentCurrencyCode"), doc.text("cbc:TaxCurrencyCode")),
    )


def _creditor(doc: Node) -> str | None:
    for path in CREDITOR_IDS:
        for element in doc.all(path):
            if element.get("schemeID") == "SEPA":
                return v.text(element)
    return None
