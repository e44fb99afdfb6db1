"""Reader of UBL 2.1 Invoice and CreditNote documents (XRechnung, PEPPOL BIS 3)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal
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
    TaxAmount,
    Totals,
    VatBreakdown,
)
from sevdesk_mcp.domain.einvoice.profiles import profile_of

INVOICE_NS: Final = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
CREDIT_NS: Final = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
NS: Final = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}


class _Node:
    """An element with namespaced look-ups (``None`` stands for an absent element)."""

    def __init__(self, element: ET.Element | None) -> None:
        self.el = element

    def find(self, path: str) -> ET.Element | None:
        return None if self.el is None else self.el.find(path, NS)

    def all(self, path: str) -> list[ET.Element]:
        return [] if self.el is None else self.el.findall(path, NS)

    def text(self, path: str) -> str | None:
        return v.text(self.find(path))

    def amount(self, path: str, field: str) -> Decimal | None:
        return v.amount(self.find(path), field)

    def date(self, path: str) -> str | None:
        return v.date(self.find(path))


def read(root: ET.Element) -> Invoice:
    """:returns: the invoice of a UBL ``Invoice`` or ``CreditNote`` root.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    credit = root.tag == f"{{{CREDIT_NS}}}CreditNote"
    doc = _Node(root)
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
        seller=_party(_Node(doc.find("cac:AccountingSupplierParty/cac:Party"))),
        buyer=_party(_Node(doc.find("cac:AccountingCustomerParty/cac:Party"))),
        tax_representative=_representative(doc),
        deliver_to=_address(_Node(doc.find("cac:Delivery/cac:DeliveryLocation/cac:Address"))),
        delivery_date=doc.date("cac:Delivery/cbc:ActualDeliveryDate"),
        period=_period(_Node(doc.find("cac:InvoicePeriod"))),
        lines=[_line(_Node(e), credit, i) for i, e in enumerate(doc.all(line_tag), 1)],
        allowances_charges=[
            _charge(_Node(e), "cac:TaxCategory") for e in doc.all("cac:AllowanceCharge")
        ],
        vat_breakdown=_breakdown(doc),
        totals=_totals(doc),
        payment_means=[_means(_Node(e)) for e in doc.all("cac:PaymentMeans")],
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


def _party(party: _Node) -> Party:
    if party.el is None:
        return Party()
    vat_id = tax_number = None
    for scheme in party.all("cac:PartyTaxScheme"):
        node = _Node(scheme)
        if node.text("cac:TaxScheme/cbc:ID") == "VAT":
            vat_id = node.text("cbc:CompanyID")
        else:
            tax_number = node.text("cbc:CompanyID")
    contact = _Node(party.find("cac:Contact"))
    return Party(
        name=party.text("cac:PartyLegalEntity/cbc:RegistrationName"),
        trading_name=party.text("cac:PartyName/cbc:Name"),
        identifiers=[t for e in party.all("cac:PartyIdentification/cbc:ID") if (t := v.text(e))],
        legal_id=party.text("cac:PartyLegalEntity/cbc:CompanyID"),
        vat_id=vat_id,
        tax_number=tax_number,
        address=_address(_Node(party.find("cac:PostalAddress"))),
        contact=None
        if contact.el is None
        else Contact(
            name=contact.text("cbc:Name"),
            phone=contact.text("cbc:Telephone"),
            email=contact.text("cbc:ElectronicMail"),
        ),
        electronic_address=party.text("cbc:EndpointID"),
    )


def _representative(doc: _Node) -> Party | None:
    node = _Node(doc.find("cac:TaxRepresentativeParty"))
    if node.el is None:
        return None
    return Party(
        name=node.text("cac:PartyName/cbc:Name"),
        vat_id=node.text("cac:PartyTaxScheme/cbc:CompanyID"),
        address=_address(_Node(node.find("cac:PostalAddress"))),
    )


def _address(node: _Node) -> Address | None:
    if node.el is None:
        return None
    return Address(
        street=node.text("cbc:StreetName"),
        city=node.text("cbc:CityName"),
        post_code=node.text("cbc:PostalZone"),
        country=node.text("cac:Country/cbc:IdentificationCode"),
    )


def _period(node: _Node) -> Period | None:
    if node.el is None:
        return None
    return Period(start=node.date("cbc:StartDate"), end=node.date("cbc:EndDate"))


def _line(node: _Node, credit: bool, index: int) -> Line:
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
        period=_period(_Node(node.find("cac:InvoicePeriod"))),
        allowances_charges=[_charge(_Node(e), None) for e in node.all("cac:AllowanceCharge")],
    )


def _charge(node: _Node, category: str | None) -> AllowanceCharge:
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


def _breakdown(doc: _Node) -> list[VatBreakdown]:
    out = []
    for element in doc.all("cac:TaxTotal/cac:TaxSubtotal"):
        node = _Node(element)
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


def _totals(doc: _Node) -> Totals:
    money = _Node(doc.find("cac:LegalMonetaryTotal"))
    currency = doc.text("cbc:DocumentCurrencyCode")
    tax_currency = doc.text("cbc:TaxCurrencyCode")
    amounts = []
    for element in doc.all("cac:TaxTotal/cbc:TaxAmount"):
        value = v.amount(element, "Total VAT amount")
        if value is not None:
            amounts.append(TaxAmount(amount=value, currency=element.get("currencyID")))
    return Totals(
        line_net=money.amount("cbc:LineExtensionAmount", "Sum of line net amounts"),
        allowances=money.amount("cbc:AllowanceTotalAmount", "Sum of allowances"),
        charges=money.amount("cbc:ChargeTotalAmount", "Sum of charges"),
        net=money.amount("cbc:TaxExclusiveAmount", "Total without VAT"),
        vat=_in_currency(amounts, currency),
        vat_accounting=_in_currency(amounts, tax_currency) if tax_currency else None,
        gross=money.amount("cbc:TaxInclusiveAmount", "Total with VAT"),
        prepaid=money.amount("cbc:PrepaidAmount", "Paid amount"),
        rounding=money.amount("cbc:PayableRoundingAmount", "Rounding amount"),
        due=money.amount("cbc:PayableAmount", "Amount due"),
        tax_amounts=amounts,
    )


def _in_currency(amounts: list[TaxAmount], currency: str | None) -> Decimal | None:
    found = [a.amount for a in amounts if a.currency == currency]
    if not found and len(amounts) == 1 and amounts[0].currency is None:
        return amounts[0].amount
    return found[0] if found else None


def _means(node: _Node) -> PaymentMeans:
    return PaymentMeans(
        code=node.text("cbc:PaymentMeansCode"),
        text=node.text("cbc:InstructionNote"),
        ibans=[t for e in node.all("cac:PayeeFinancialAccount/cbc:ID") if (t := v.text(e))],
        bic=node.text("cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID"),
        card=node.find("cac:CardAccount") is not None,
        mandate=node.text("cac:PaymentMandate/cbc:ID"),
        debited_account=node.text("cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID"),
    )


def _creditor(doc: _Node) -> str | None:
    for element in doc.all("cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID"):
        if element.get("schemeID") == "SEPA":
            return v.text(element)
    for element in doc.all("cac:PayeeParty/cac:PartyIdentification/cbc:ID"):
        if element.get("schemeID") == "SEPA":
            return v.text(element)
    return None
