"""Reader of UBL 2.1 Invoice and CreditNote documents (XRechnung, PEPPOL BIS 3)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Final

from sevdesk_mcp.domain.einvoice import values as v
from sevdesk_mcp.domain.einvoice.model import (
    Address,
    AllowanceCharge,
    Contact,
    Invoice,
    Line,
    Party,
    PaymentMeans,
    Period,
    Syntax,
    Totals,
    VatBreakdown,
)
from sevdesk_mcp.domain.einvoice.nodes import Node, TotalPaths, tax_amounts, totals
from sevdesk_mcp.domain.einvoice.profiles import profile_of

INVOICE_NS: Final = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
CREDIT_NS: Final = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
NS: Final = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}


TOTALS: Final = TotalPaths(
    line_net="cbc:LineExtensionAmount",
    allowances="cbc:AllowanceTotalAmount",
    charges="cbc:ChargeTotalAmount",
    net="cbc:TaxExclusiveAmount",
    gross="cbc:TaxInclusiveAmount",
    prepaid="cbc:PrepaidAmount",
    rounding="cbc:PayableRoundingAmount",
    due="cbc:PayableAmount",
)


def _node(element: ET.Element | None) -> Node:
    return Node(element, NS)


def read(root: ET.Element) -> Invoice:
    """:returns: the invoice of a UBL ``Invoice`` or ``CreditNote`` root.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    credit = root.tag == f"{{{CREDIT_NS}}}CreditNote"
    doc = _node(root)
    spec = doc.text("cbc:CustomizationID")
    syntax: Syntax = "ubl-creditnote" if credit else "ubl-invoice"
    line_tag = "cac:CreditNoteLine" if credit else "cac:InvoiceLine"
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
        notes=[t for e in doc.all("cbc:Note") if (t := v.text(e))],
        seller=_party(_node(doc.find("cac:AccountingSupplierParty/cac:Party"))),
        buyer=_party(_node(doc.find("cac:AccountingCustomerParty/cac:Party"))),
        tax_representative=_representative(doc),
        deliver_to=_address(_node(doc.find("cac:Delivery/cac:DeliveryLocation/cac:Address"))),
        delivery_date=doc.date("cac:Delivery/cbc:ActualDeliveryDate"),
        period=_period(_node(doc.find("cac:InvoicePeriod"))),
        lines=[_line(_node(e), credit, i) for i, e in enumerate(doc.all(line_tag), 1)],
        allowances_charges=[
            _charge(_node(e), "cac:TaxCategory") for e in doc.all("cac:AllowanceCharge")
        ],
        vat_breakdown=_breakdown(doc),
        totals=_totals(doc),
        payment_means=[_means(_node(e)) for e in doc.all("cac:PaymentMeans")],
        payment_terms=doc.text("cac:PaymentTerms/cbc:Note"),
        creditor_id=_creditor(doc),
        attachment_names=[
            t
            for e in doc.all(
                "cac:AdditionalDocumentReference/cac:Attachment/cbc:EmbeddedDocumentBinaryObject"
            )
            if (t := e.get("filename"))
        ],
    )


def _party(party: Node) -> Party:
    if party.el is None:
        return Party()
    vat_id = tax_number = None
    for scheme in party.all("cac:PartyTaxScheme"):
        node = _node(scheme)
        if node.text("cac:TaxScheme/cbc:ID") == "VAT":
            vat_id = node.text("cbc:CompanyID")
        else:
            tax_number = node.text("cbc:CompanyID")
    contact = _node(party.find("cac:Contact"))
    return Party(
        name=party.text("cac:PartyLegalEntity/cbc:RegistrationName"),
        trading_name=party.text("cac:PartyName/cbc:Name"),
        identifiers=[t for e in party.all("cac:PartyIdentification/cbc:ID") if (t := v.text(e))],
        legal_id=party.text("cac:PartyLegalEntity/cbc:CompanyID"),
        vat_id=vat_id,
        tax_number=tax_number,
        address=_address(_node(party.find("cac:PostalAddress"))),
        contact=None
        if contact.el is None
        else Contact(
            name=contact.text("cbc:Name"),
            phone=contact.text("cbc:Telephone"),
            email=contact.text("cbc:ElectronicMail"),
        ),
        electronic_address=party.text("cbc:EndpointID"),
    )


def _representative(doc: Node) -> Party | None:
    node = _node(doc.find("cac:TaxRepresentativeParty"))
    if node.el is None:
        return None
    return Party(
        name=node.text("cac:PartyName/cbc:Name"),
        vat_id=node.text("cac:PartyTaxScheme/cbc:CompanyID"),
        address=_address(_node(node.find("cac:PostalAddress"))),
    )


def _address(node: Node) -> Address | None:
    if node.el is None:
        return None
    return Address(
        street=node.text("cbc:StreetName"),
        city=node.text("cbc:CityName"),
        post_code=node.text("cbc:PostalZone"),
        country=node.text("cac:Country/cbc:IdentificationCode"),
    )


def _period(node: Node) -> Period | None:
    if node.el is None:
        return None
    return Period(start=node.date("cbc:StartDate"), end=node.date("cbc:EndDate"))


def _line(node: Node, credit: bool, index: int) -> Line:
    where = f"Line {index}"
    quantity = node.find("cbc:CreditedQuantity" if credit else "cbc:InvoicedQuantity")
    return Line(
        id=node.text("cbc:ID"),
        name=node.text("cac:Item/cbc:Name"),
        description=node.text("cac:Item/cbc:Description"),
        quantity=v.amount(quantity, f"{where}: quantity"),
        unit=None if quantity is None else quantity.get("unitCode"),
        net=node.amount("cbc:LineExtensionAmount", f"{where}: net amount"),
        price=node.amount("cac:Price/cbc:PriceAmount", f"{where}: net price"),
        gross_price=node.amount(
            "cac:Price/cac:AllowanceCharge/cbc:BaseAmount", f"{where}: gross price"
        ),
        category=node.text("cac:Item/cac:ClassifiedTaxCategory/cbc:ID"),
        rate=node.amount("cac:Item/cac:ClassifiedTaxCategory/cbc:Percent", f"{where}: VAT rate"),
        period=_period(_node(node.find("cac:InvoicePeriod"))),
        allowances_charges=[_charge(_node(e), None) for e in node.all("cac:AllowanceCharge")],
    )


def _charge(node: Node, category: str | None) -> AllowanceCharge:
    field = "An allowance or charge"
    return AllowanceCharge(
        charge=(node.text("cbc:ChargeIndicator") or "").lower() == "true",
        amount=node.amount("cbc:Amount", f"{field}: amount"),
        base=node.amount("cbc:BaseAmount", f"{field}: base amount"),
        percent=node.amount("cbc:MultiplierFactorNumeric", f"{field}: percentage"),
        category=node.text(f"{category}/cbc:ID") if category else None,
        rate=node.amount(f"{category}/cbc:Percent", f"{field}: VAT rate") if category else None,
        reason=node.text("cbc:AllowanceChargeReason"),
        reason_code=node.text("cbc:AllowanceChargeReasonCode"),
    )


def _breakdown(doc: Node) -> list[VatBreakdown]:
    out = []
    for element in doc.all("cac:TaxTotal/cac:TaxSubtotal"):
        node = _node(element)
        out.append(
            VatBreakdown(
                taxable=node.amount("cbc:TaxableAmount", "VAT breakdown: taxable amount"),
                tax=node.amount("cbc:TaxAmount", "VAT breakdown: tax amount"),
                category=node.text("cac:TaxCategory/cbc:ID"),
                rate=node.amount("cac:TaxCategory/cbc:Percent", "VAT breakdown: rate"),
                exemption_reason=node.text("cac:TaxCategory/cbc:TaxExemptionReason"),
                exemption_code=node.text("cac:TaxCategory/cbc:TaxExemptionReasonCode"),
            )
        )
    return out


def _totals(doc: Node) -> Totals:
    money = doc.child("cac:LegalMonetaryTotal")
    amounts = tax_amounts(doc.all("cac:TaxTotal/cbc:TaxAmount"))
    return totals(
        money,
        TOTALS,
        amounts,
        (doc.text("cbc:DocumentCurrencyCode"), doc.text("cbc:TaxCurrencyCode")),
    )


def _means(node: Node) -> PaymentMeans:
    return PaymentMeans(
        code=node.text("cbc:PaymentMeansCode"),
        text=node.text("cbc:InstructionNote"),
        ibans=[t for e in node.all("cac:PayeeFinancialAccount/cbc:ID") if (t := v.text(e))],
        bic=node.text("cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID"),
        card=node.find("cac:CardAccount") is not None,
        mandate=node.text("cac:PaymentMandate/cbc:ID"),
        debited_account=node.text("cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID"),
    )


def _creditor(doc: Node) -> str | None:
    for element in doc.all("cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID"):
        if element.get("schemeID") == "SEPA":
            return v.text(element)
    for element in doc.all("cac:PayeeParty/cac:PartyIdentification/cbc:ID"):
        if element.get("schemeID") == "SEPA":
            return v.text(element)
    return None
