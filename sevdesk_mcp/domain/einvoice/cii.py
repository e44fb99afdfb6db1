"""Reader of UN/CEFACT CII D16B documents (``rsm:CrossIndustryInvoice``: XRechnung CII and
every ZUGFeRD 2.x / Factur-X profile)."""

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
    Totals,
    VatBreakdown,
)
from sevdesk_mcp.domain.einvoice.nodes import Node, TotalPaths, tax_amounts, totals
from sevdesk_mcp.domain.einvoice.profiles import profile_of

ROOT_NS: Final = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
NS: Final = {
    "rsm": ROOT_NS,
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
    "qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
}
TX: Final = "rsm:SupplyChainTradeTransaction"
AGREEMENT: Final = f"{TX}/ram:ApplicableHeaderTradeAgreement"
DELIVERY: Final = f"{TX}/ram:ApplicableHeaderTradeDelivery"
SETTLEMENT: Final = f"{TX}/ram:ApplicableHeaderTradeSettlement"
DT: Final = "udt:DateTimeString"


TOTALS: Final = TotalPaths(
    line_net="ram:LineTotalAmount",
    allowances="ram:AllowanceTotalAmount",
    charges="ram:ChargeTotalAmount",
    net="ram:TaxBasisTotalAmount",
    gross="ram:GrandTotalAmount",
    prepaid="ram:TotalPrepaidAmount",
    rounding="ram:RoundingAmount",
    due="ram:DuePayableAmount",
)


def _node(element: ET.Element | None) -> Node:
    return Node(element, NS)


def read(root: ET.Element) -> Invoice:
    """:returns: the invoice of a ``rsm:CrossIndustryInvoice`` root.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    doc = _node(root)
    spec = doc.text(
        "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"
    )
    settlement = _node(doc.find(SETTLEMENT))
    terms = _node(settlement.find("ram:SpecifiedTradePaymentTerms"))
    return Invoice(
        syntax="cii",
        profile=profile_of(spec),
        specification=spec,
        number=doc.text("rsm:ExchangedDocument/ram:ID"),
        issue_date=doc.date(f"rsm:ExchangedDocument/ram:IssueDateTime/{DT}"),
        type_code=doc.text("rsm:ExchangedDocument/ram:TypeCode"),
        currency=settlement.text("ram:InvoiceCurrencyCode"),
        tax_currency=settlement.text("ram:TaxCurrencyCode"),
        tax_point_date=settlement.date("ram:ApplicableTradeTax/ram:TaxPointDate/udt:DateString"),
        tax_point_code=settlement.text("ram:ApplicableTradeTax/ram:DueDateTypeCode"),
        due_date=terms.date(f"ram:DueDateDateTime/{DT}"),
        buyer_reference=doc.text(f"{AGREEMENT}/ram:BuyerReference"),
        order_reference=doc.text(
            f"{AGREEMENT}/ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID"
        ),
        preceding_invoices=[
            v.text(e.find("ram:IssuerAssignedID", NS)) or ""
            for e in settlement.all("ram:InvoiceReferencedDocument")
        ],
        notes=[
            t
            for e in doc.all("rsm:ExchangedDocument/ram:IncludedNote/ram:Content")
            if (t := v.text(e))
        ],
        seller=_party(_node(doc.find(f"{AGREEMENT}/ram:SellerTradeParty"))),
        buyer=_party(_node(doc.find(f"{AGREEMENT}/ram:BuyerTradeParty"))),
        tax_representative=_representative(
            _node(doc.find(f"{AGREEMENT}/ram:SellerTaxRepresentativeTradeParty"))
        ),
        deliver_to=_address(
            _node(doc.find(f"{DELIVERY}/ram:ShipToTradeParty/ram:PostalTradeAddress"))
        ),
        delivery_date=doc.date(
            f"{DELIVERY}/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/{DT}"
        ),
        period=_period(_node(settlement.find("ram:BillingSpecifiedPeriod"))),
        lines=[
            _line(_node(e), i)
            for i, e in enumerate(doc.all(f"{TX}/ram:IncludedSupplyChainTradeLineItem"), 1)
        ],
        allowances_charges=_document_charges(settlement),
        vat_breakdown=[_breakdown(_node(e)) for e in settlement.all("ram:ApplicableTradeTax")],
        totals=_totals(settlement),
        payment_means=[
            _means(_node(e)) for e in settlement.all("ram:SpecifiedTradeSettlementPaymentMeans")
        ],
        payment_terms=terms.text("ram:Description"),
        creditor_id=settlement.text("ram:CreditorReferenceID"),
        attachment_names=[
            t
            for e in doc.all(
                f"{AGREEMENT}/ram:AdditionalReferencedDocument/ram:AttachmentBinaryObject"
            )
            if (t := e.get("filename"))
        ],
    )


def _party(party: Node) -> Party:
    if party.el is None:
        return Party()
    registrations = {
        e.get("schemeID"): v.text(e) for e in party.all("ram:SpecifiedTaxRegistration/ram:ID")
    }
    contact = _node(party.find("ram:DefinedTradeContact"))
    identifiers = [t for e in party.all("ram:ID") if (t := v.text(e))]
    identifiers += [t for e in party.all("ram:GlobalID") if (t := v.text(e))]
    return Party(
        name=party.text("ram:Name"),
        trading_name=party.text("ram:SpecifiedLegalOrganization/ram:TradingBusinessName"),
        identifiers=identifiers,
        legal_id=party.text("ram:SpecifiedLegalOrganization/ram:ID"),
        vat_id=registrations.get("VA"),
        tax_number=registrations.get("FC"),
        address=_address(_node(party.find("ram:PostalTradeAddress"))),
        contact=None
        if contact.el is None
        else Contact(
            name=contact.text("ram:PersonName") or contact.text("ram:DepartmentName"),
            phone=contact.text("ram:TelephoneUniversalCommunication/ram:CompleteNumber"),
            email=contact.text("ram:EmailURIUniversalCommunication/ram:URIID"),
        ),
        electronic_address=party.text("ram:URIUniversalCommunication/ram:URIID"),
    )


def _representative(node: Node) -> Party | None:
    if node.el is None:
        return None
    return Party(
        name=node.text("ram:Name"),
        vat_id=node.text("ram:SpecifiedTaxRegistration/ram:ID"),
        address=_address(_node(node.find("ram:PostalTradeAddress"))),
    )


def _address(node: Node) -> Address | None:
    if node.el is None:
        return None
    return Address(
        street=node.text("ram:LineOne"),
        city=node.text("ram:CityName"),
        post_code=node.text("ram:PostcodeCode"),
        country=node.text("ram:CountryID"),
    )


def _period(node: Node) -> Period | None:
    if node.el is None:
        return None
    return Period(
        start=node.date(f"ram:StartDateTime/{DT}"), end=node.date(f"ram:EndDateTime/{DT}")
    )


def _line(node: Node, index: int) -> Line:
    where = f"Line {index}"
    settle = _node(node.find("ram:SpecifiedLineTradeSettlement"))
    agreement = _node(node.find("ram:SpecifiedLineTradeAgreement"))
    quantity = node.find("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity")
    return Line(
        id=node.text("ram:AssociatedDocumentLineDocument/ram:LineID"),
        name=node.text("ram:SpecifiedTradeProduct/ram:Name"),
        description=node.text("ram:SpecifiedTradeProduct/ram:Description"),
        quantity=v.amount(quantity, f"{where}: quantity"),
        unit=None if quantity is None else quantity.get("unitCode"),
        net=settle.amount(
            "ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount",
            f"{where}: net amount",
        ),
        price=agreement.amount(
            "ram:NetPriceProductTradePrice/ram:ChargeAmount", f"{where}: net price"
        ),
        gross_price=agreement.amount(
            "ram:GrossPriceProductTradePrice/ram:ChargeAmount", f"{where}: gross price"
        ),
        category=settle.text("ram:ApplicableTradeTax/ram:CategoryCode"),
        rate=settle.amount(
            "ram:ApplicableTradeTax/ram:RateApplicablePercent", f"{where}: VAT rate"
        ),
        period=_period(_node(settle.find("ram:BillingSpecifiedPeriod"))),
        allowances_charges=[
            _charge(_node(e)) for e in settle.all("ram:SpecifiedTradeAllowanceCharge")
        ],
    )


def _charge(node: Node, logistics: bool = False) -> AllowanceCharge:
    field = "An allowance or charge"
    if logistics:
        return AllowanceCharge(
            charge=True,
            amount=node.amount("ram:AppliedAmount", f"{field}: amount"),
            category=node.text("ram:AppliedTradeTax/ram:CategoryCode"),
            rate=node.amount("ram:AppliedTradeTax/ram:RateApplicablePercent", f"{field}: VAT rate"),
            reason=node.text("ram:Description"),
            logistics=True,
        )
    return AllowanceCharge(
        charge=(node.text("ram:ChargeIndicator/udt:Indicator") or "").lower() == "true",
        amount=node.amount("ram:ActualAmount", f"{field}: amount"),
        base=node.amount("ram:BasisAmount", f"{field}: base amount"),
        percent=node.amount("ram:CalculationPercent", f"{field}: percentage"),
        category=node.text("ram:CategoryTradeTax/ram:CategoryCode"),
        rate=node.amount("ram:CategoryTradeTax/ram:RateApplicablePercent", f"{field}: VAT rate"),
        reason=node.text("ram:Reason"),
        reason_code=node.text("ram:ReasonCode"),
    )


def _document_charges(settlement: Node) -> list[AllowanceCharge]:
    found = [_charge(_node(e)) for e in settlement.all("ram:SpecifiedTradeAllowanceCharge")]
    found += [
        _charge(_node(e), logistics=True)
        for e in settlement.all("ram:SpecifiedLogisticsServiceCharge")
    ]
    return found


def _breakdown(node: Node) -> VatBreakdown:
    return VatBreakdown(
        taxable=node.amount("ram:BasisAmount", "VAT breakdown: taxable amount"),
        tax=node.amount("ram:CalculatedAmount", "VAT breakdown: tax amount"),
        category=node.text("ram:CategoryCode"),
        rate=node.amount("ram:RateApplicablePercent", "VAT breakdown: rate"),
        exemption_reason=node.text("ram:ExemptionReason"),
        exemption_code=node.text("ram:ExemptionReasonCode"),
    )


def _totals(settlement: Node) -> Totals:
    money = settlement.child("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
    amounts = tax_amounts(money.all("ram:TaxTotalAmount"))
    return totals(
        money,
        TOTALS,
        amounts,
        (settlement.text("ram:InvoiceCurrencyCode"), settlement.text("ram:TaxCurrencyCode")),
    )


def _means(node: Node) -> PaymentMeans:
    account = "ram:PayeePartyCreditorFinancialAccount"
    return PaymentMeans(
        code=node.text("ram:TypeCode"),
        text=node.text("ram:Information"),
        ibans=[t for e in node.all(f"{account}/ram:IBANID") if (t := v.text(e))]
        + [t for e in node.all(f"{account}/ram:ProprietaryID") if (t := v.text(e))],
        bic=node.text("ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID"),
        card=node.find("ram:ApplicableTradeSettlementFinancialCard") is not None,
        debited_account=node.text("ram:PayerPartyDebtorFinancialAccount/ram:IBANID"),
    )
