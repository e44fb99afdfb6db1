"""Rule results: official rule id, severity, a sentence a bookkeeper understands, the XPath.

XPaths are written with the usual prefixes (``ubl``/``cn`` for the UBL roots, ``cac``, ``cbc``,
``rsm``, ``ram``, ``udt``) and 1-based positions for repeated groups, as the official
validators report them.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.einvoice.model import Invoice

Severity = Literal["error", "warning"]

_CII_S: Final = (
    "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement"
)
_CII_A: Final = (
    "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement"
)
_CII_M: Final = f"{_CII_S}/ram:SpecifiedTradeSettlementHeaderMonetarySummation"
_CII_DOC: Final = "/rsm:CrossIndustryInvoice/rsm:ExchangedDocument"
_CII_LINE: Final = (
    "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem"
)
_SELLER: Final = "cac:AccountingSupplierParty/cac:Party"
_BUYER: Final = "cac:AccountingCustomerParty/cac:Party"
_MONEY: Final = "cac:LegalMonetaryTotal"

PATHS: Final[dict[str, tuple[str, str]]] = {  # key: (UBL relative to the root, CII absolute)
    "BT-1": ("cbc:ID", f"{_CII_DOC}/ram:ID"),
    "BT-2": ("cbc:IssueDate", f"{_CII_DOC}/ram:IssueDateTime"),
    "BT-3": ("cbc:InvoiceTypeCode", f"{_CII_DOC}/ram:TypeCode"),
    "BT-5": ("cbc:DocumentCurrencyCode", f"{_CII_S}/ram:InvoiceCurrencyCode"),
    "BT-6": ("cbc:TaxCurrencyCode", f"{_CII_S}/ram:TaxCurrencyCode"),
    "BT-7": ("cbc:TaxPointDate", f"{_CII_S}/ram:ApplicableTradeTax/ram:TaxPointDate"),
    "BT-10": ("cbc:BuyerReference", f"{_CII_A}/ram:BuyerReference"),
    "BT-20": (
        "cac:PaymentTerms/cbc:Note",
        f"{_CII_S}/ram:SpecifiedTradePaymentTerms/ram:Description",
    ),
    "BT-24": (
        "cbc:CustomizationID",
        "/rsm:CrossIndustryInvoice/rsm:ExchangedDocumentContext/"
        "ram:GuidelineSpecifiedDocumentContextParameter/ram:ID",
    ),
    "BG-3": ("cac:BillingReference", f"{_CII_S}/ram:InvoiceReferencedDocument"),
    "BG-4": (_SELLER, f"{_CII_A}/ram:SellerTradeParty"),
    "BT-27": (
        f"{_SELLER}/cac:PartyLegalEntity/cbc:RegistrationName",
        f"{_CII_A}/ram:SellerTradeParty/ram:Name",
    ),
    "BT-31": (
        f"{_SELLER}/cac:PartyTaxScheme/cbc:CompanyID",
        f"{_CII_A}/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID",
    ),
    "BG-5": (
        f"{_SELLER}/cac:PostalAddress",
        f"{_CII_A}/ram:SellerTradeParty/ram:PostalTradeAddress",
    ),
    "BG-6": (f"{_SELLER}/cac:Contact", f"{_CII_A}/ram:SellerTradeParty/ram:DefinedTradeContact"),
    "BG-7": (_BUYER, f"{_CII_A}/ram:BuyerTradeParty"),
    "BT-44": (
        f"{_BUYER}/cac:PartyLegalEntity/cbc:RegistrationName",
        f"{_CII_A}/ram:BuyerTradeParty/ram:Name",
    ),
    "BT-48": (
        f"{_BUYER}/cac:PartyTaxScheme/cbc:CompanyID",
        f"{_CII_A}/ram:BuyerTradeParty/ram:SpecifiedTaxRegistration/ram:ID",
    ),
    "BG-8": (f"{_BUYER}/cac:PostalAddress", f"{_CII_A}/ram:BuyerTradeParty/ram:PostalTradeAddress"),
    "BG-12": (
        "cac:TaxRepresentativeParty/cac:PostalAddress",
        f"{_CII_A}/ram:SellerTaxRepresentativeTradeParty/ram:PostalTradeAddress",
    ),
    "BG-13": (
        "cac:Delivery",
        "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeDelivery",
    ),
    "BG-14": ("cac:InvoicePeriod", f"{_CII_S}/ram:BillingSpecifiedPeriod"),
    "BG-15": (
        "cac:Delivery/cac:DeliveryLocation/cac:Address",
        "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeDelivery/ram:ShipToTradeParty/ram:PostalTradeAddress",
    ),
    "BG-16": ("cac:PaymentMeans", f"{_CII_S}/ram:SpecifiedTradeSettlementPaymentMeans"),
    "BG-20": ("cac:AllowanceCharge", f"{_CII_S}/ram:SpecifiedTradeAllowanceCharge"),
    "BG-23": ("cac:TaxTotal/cac:TaxSubtotal", f"{_CII_S}/ram:ApplicableTradeTax"),
    "BG-25": ("cac:InvoiceLine", _CII_LINE),
    "BT-106": (f"{_MONEY}/cbc:LineExtensionAmount", f"{_CII_M}/ram:LineTotalAmount"),
    "BT-107": (f"{_MONEY}/cbc:AllowanceTotalAmount", f"{_CII_M}/ram:AllowanceTotalAmount"),
    "BT-108": (f"{_MONEY}/cbc:ChargeTotalAmount", f"{_CII_M}/ram:ChargeTotalAmount"),
    "BT-109": (f"{_MONEY}/cbc:TaxExclusiveAmount", f"{_CII_M}/ram:TaxBasisTotalAmount"),
    "BT-110": ("cac:TaxTotal/cbc:TaxAmount", f"{_CII_M}/ram:TaxTotalAmount"),
    "BT-111": ("cac:TaxTotal/cbc:TaxAmount", f"{_CII_M}/ram:TaxTotalAmount"),
    "BT-112": (f"{_MONEY}/cbc:TaxInclusiveAmount", f"{_CII_M}/ram:GrandTotalAmount"),
    "BT-115": (f"{_MONEY}/cbc:PayableAmount", f"{_CII_M}/ram:DuePayableAmount"),
}
_LINE_PATHS: Final[dict[str, tuple[str, str]]] = {
    "": ("", ""),
    "BT-126": ("cbc:ID", "ram:AssociatedDocumentLineDocument/ram:LineID"),
    "BT-129": ("cbc:InvoicedQuantity", "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"),
    "BT-131": (
        "cbc:LineExtensionAmount",
        "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount",
    ),
    "BT-146": (
        "cac:Price/cbc:PriceAmount",
        "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount",
    ),
    "BT-148": (
        "cac:Price/cac:AllowanceCharge/cbc:BaseAmount",
        "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount",
    ),
    "BT-151": (
        "cac:Item/cac:ClassifiedTaxCategory/cbc:ID",
        "ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode",
    ),
    "BT-153": ("cac:Item/cbc:Name", "ram:SpecifiedTradeProduct/ram:Name"),
    "BG-26": ("cac:InvoicePeriod", "ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod"),
    "BG-27": (
        "cac:AllowanceCharge",
        "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge",
    ),
}


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """One rule result."""

    rule: str
    severity: Severity
    message: str
    xpath: str


def root_of(invoice: Invoice) -> str:
    """:returns: the XPath of the document's root element."""
    return {"ubl-invoice": "/ubl:Invoice", "ubl-creditnote": "/cn:CreditNote"}.get(
        invoice.syntax, "/rsm:CrossIndustryInvoice"
    )


def xpath(invoice: Invoice, key: str, index: int | None = None) -> str:
    """:returns: the XPath of business term ``key`` (``[index]`` for a repeated group)."""
    ubl, cii = PATHS.get(key, ("", ""))
    if invoice.syntax == "cii":
        return f"{cii}[{index}]" if index else cii
    path = _credit(invoice, ubl)
    return f"{root_of(invoice)}/{path}[{index}]" if index else f"{root_of(invoice)}/{path}"


def line_xpath(invoice: Invoice, index: int, key: str = "") -> str:
    """:returns: the XPath of line ``index`` (1-based), or of its term ``key``."""
    ubl, cii = _LINE_PATHS[key]
    if invoice.syntax == "cii":
        return f"{_CII_LINE}[{index}]" + (f"/{cii}" if cii else "")
    tag = "cac:CreditNoteLine" if invoice.syntax == "ubl-creditnote" else "cac:InvoiceLine"
    path = _credit(invoice, ubl)
    return f"{root_of(invoice)}/{tag}[{index}]" + (f"/{path}" if path else "")


def _credit(invoice: Invoice, path: str) -> str:
    if invoice.syntax != "ubl-creditnote":
        return path
    return path.replace("cbc:InvoiceTypeCode", "cbc:CreditNoteTypeCode").replace(
        "cbc:InvoicedQuantity", "cbc:CreditedQuantity"
    )


def error(rule: str, message: str, path: str) -> Finding:
    """:returns: a fatal finding (the official validators' ``fatal``)."""
    return Finding(rule=rule, severity="error", message=message, xpath=path)


def warning(rule: str, message: str, path: str) -> Finding:
    """:returns: a warning (the official ``warning``, or a difference within tolerance)."""
    return Finding(rule=rule, severity="warning", message=message, xpath=path)
