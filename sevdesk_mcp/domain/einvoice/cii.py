"""Reader of UN/CEFACT CII D16B documents (``rsm:CrossIndustryInvoice``: XRechnung CII and
every ZUGFeRD 2.x / Factur-X profile)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Final

from sevdesk_mcp.domain.einvoice import amounts, pieces
from sevdesk_mcp.domain.einvoice import values as v
from sevdesk_mcp.domain.einvoice.model import AllowanceCharge, Invoice, Party, Totals
from sevdesk_mcp.domain.einvoice.nodes import Node
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

ADDRESS: Final = pieces.AddressPaths(
    street="ram:LineOne", city="ram:CityName", post_code="ram:PostcodeCode", country="ram:CountryID"
)
PERIOD: Final = pieces.PeriodPaths(start=f"ram:StartDateTime/{DT}", end=f"ram:EndDateTime/{DT}")
CONTACT: Final = pieces.ContactPaths(
    names=("ram:PersonName", "ram:DepartmentName"),
    phone="ram:TelephoneUniversalCommunication/ram:CompleteNumber",
    email="ram:EmailURIUniversalCommunication/ram:URIID",
)
REPRESENTATIVE: Final = pieces.RepresentativePaths(
    name="ram:Name",
    vat_id="ram:SpecifiedTaxRegistration/ram:ID",
    address="ram:PostalTradeAddress",
    address_paths=ADDRESS,
)
CHARGE: Final = amounts.ChargePaths(
    indicator="ram:ChargeIndicator/udt:Indicator",
    amount="ram:ActualAmount",
    base="ram:BasisAmount",
    percent="ram:CalculationPercent",
    category="ram:CategoryTradeTax/ram:CategoryCode",
    rate="ram:CategoryTradeTax/ram:RateApplicablePercent",
    reason="ram:Reason",
    reason_code="ram:ReasonCode",
)
LINE: Final = amounts.LinePaths(
    id="ram:AssociatedDocumentLineDocument/ram:LineID",
    name="ram:SpecifiedTradeProduct/ram:Name",
    description="ram:SpecifiedTradeProduct/ram:Description",
    quantity="ram:SpecifiedLineTradeDelivery/ram:BilledQuantity",
    settlement="ram:SpecifiedLineTradeSettlement",
    net="ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount",
    category="ram:ApplicableTradeTax/ram:CategoryCode",
    rate="ram:ApplicableTradeTax/ram:RateApplicablePercent",
    period="ram:BillingSpecifiedPeriod",
    period_paths=PERIOD,
    charges="ram:SpecifiedTradeAllowanceCharge",
    charge_paths=CHARGE,
    agreement="ram:SpecifiedLineTradeAgreement",
    price="ram:NetPriceProductTradePrice/ram:ChargeAmount",
    gross_price="ram:GrossPriceProductTradePrice/ram:ChargeAmount",
)
BREAKDOWN: Final = amounts.BreakdownPaths(
    taxable="ram:BasisAmount",
    tax="ram:CalculatedAmount",
    category="ram:CategoryCode",
    rate="ram:RateApplicablePercent",
    exemption_reason="ram:ExemptionReason",
    exemption_code="ram:ExemptionReasonCode",
)
TOTALS: Final = amounts.TotalPaths(
    line_net="ram:LineTotalAmount",
    allowances="ram:AllowanceTotalAmount",
    charges="ram:ChargeTotalAmount",
    net="ram:TaxBasisTotalAmount",
    gross="ram:GrandTotalAmount",
    prepaid="ram:TotalPrepaidAmount",
    rounding="ram:RoundingAmount",
    due="ram:DuePayableAmount",
)
ACCOUNT: Final = "ram:PayeePartyCreditorFinancialAccount"
MEANS: Final = pieces.MeansPaths(
    code="ram:TypeCode",
    text="ram:Information",
    ibans=(f"{ACCOUNT}/ram:IBANID", f"{ACCOUNT}/ram:ProprietaryID"),
    bic="ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID",
    card="ram:ApplicableTradeSettlementFinancialCard",
    mandate=None,
    debited_account="ram:PayerPartyDebtorFinancialAccount/ram:IBANID",
)


def read(root: ET.Element) -> Invoice:
    """:returns: the invoice of a ``rsm:CrossIndustryInvoice`` root.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    doc = Node(root, NS)
    spec = doc.text(
        "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"
    )
    settlement = doc.child(SETTLEMENT)
    terms = settlement.child("ram:SpecifiedTradePaymentTerms")
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
        notes=doc.texts("rsm:ExchangedDocument/ram:IncludedNote/ram:Content"),
        seller=_party(doc.child(f"{AGREEMENT}/ram:SellerTradeParty")),
        buyer=_party(doc.child(f"{AGREEMENT}/ram:BuyerTradeParty")),
        tax_representative=pieces.representative(
            doc.child(f"{AGREEMENT}/ram:SellerTaxRepresentativeTradeParty"), REPRESENTATIVE
        ),
        deliver_to=pieces.address(
            doc.child(f"{DELIVERY}/ram:ShipToTradeParty/ram:PostalTradeAddress"), ADDRESS
        ),
        delivery_date=doc.date(
            f"{DELIVERY}/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/{DT}"
        ),
        period=pieces.period(settlement.child("ram:BillingSpecifiedPeriod"), PERIOD),
        lines=[
            amounts.line(n, i, LINE)
            for i, n in enumerate(doc.nodes(f"{TX}/ram:IncludedSupplyChainTradeLineItem"), 1)
        ],
        allowances_charges=_document_charges(settlement),
        vat_breakdown=[
            amounts.breakdown(n, BREAKDOWN) for n in settlement.nodes("ram:ApplicableTradeTax")
        ],
        totals=_totals(settlement),
        payment_means=[
            pieces.means(n, MEANS)
            for n in settlement.nodes("ram:SpecifiedTradeSettlementPaymentMeans")
        ],
        payment_terms=terms.lines("ram:Description"),
        creditor_id=settlement.text("ram:CreditorReferenceID"),
        attachment_names=doc.attributes(
            f"{AGREEMENT}/ram:AdditionalReferencedDocument/ram:AttachmentBinaryObject", "filename"
        ),
    )


def _party(party: Node) -> Party:
    if party.el is None:
        return Party()
    registrations = {
        e.get("schemeID"): v.text(e) for e in party.all("ram:SpecifiedTaxRegistration/ram:ID")
    }
    return Party(
        name=party.text("ram:Name"),
        trading_name=party.text("ram:SpecifiedLegalOrganization/ram:TradingBusinessName"),
        identifiers=party.texts("ram:ID", "ram:GlobalID"),
        legal_id=party.text("ram:SpecifiedLegalOrganization/ram:ID"),
        vat_id=registrations.get("VA"),
        tax_number=registrations.get("FC"),
        address=pieces.address(party.child("ram:PostalTradeAddress"), ADDRESS),
        contact=pieces.contact(party.child("ram:DefinedTradeContact"), CONTACT),
        electronic_address=party.text("ram:URIUniversalCommunication/ram:URIID"),
    )


def _document_charges(settlement: Node) -> list[AllowanceCharge]:
    found = [
        amounts.charge(n, CHARGE) for n in settlement.nodes("ram:SpecifiedTradeAllowanceCharge")
    ]
    found += [_logistics(n) for n in settlement.nodes("ram:SpecifiedLogisticsServiceCharge")]
    return found


def _logistics(node: Node) -> AllowanceCharge:
    field = "An allowance or charge"
    return AllowanceCharge(
        charge=True,
        amount=node.amount("ram:AppliedAmount", f"{field}: amount"),
        category=node.text("ram:AppliedTradeTax/ram:CategoryCode"),
        rate=node.amount("ram:AppliedTradeTax/ram:RateApplicablePercent", f"{field}: VAT rate"),
        reason=node.text("ram:Description"),
        logistics=True,
    )


def _totals(settlement: Node) -> Totals:
    money = settlement.child("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
    vat = amounts.tax_amounts(money.all("ram:TaxTotalAmount"))
    return amounts.totals(
        money,
        TOTALS,
        vat,
        (settlement.text("ram:InvoiceCurrencyCode"), settlement.text("ram:TaxCurrencyCode")),
    )
