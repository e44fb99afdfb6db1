"""Receipt files for demo mode: invented supplier invoices of the demo company (Holzwerk
Sonnenberg GmbH) as small, valid PDFs, written into a folder that demo mode offers as
``SEVDESK_FILE_DIRS``, so "file this receipt" runs as a user would run it.

Three of them are paid by an unmatched transaction of the demo bank account
(``demo_bank.UNMATCHED``): the Mercatura card payment (-89.99), the bank's fee (-12.90) and the
guild fee (-240.00). The fourth is a ZUGFeRD e-invoice (EN 16931, CII embedded as
``factur-x.xml``) from a supplier of the demo contacts, still unpaid. Everything is invented
and deterministic: the same bytes on every run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Final

MODE: Final = 0o600


@dataclass(frozen=True, slots=True)
class DemoReceipt:
    """One receipt file: its name, what it shows, and what the books should get from it.

    :param account: the SKR03 booking account of its one position.
    :param paid_by: the amount of the unmatched demo transaction that pays it, if any.
    """

    filename: str
    supplier: str
    number: str
    day: str
    account: str
    tax_rate: int
    net: Decimal
    gross: Decimal
    lines: tuple[str, ...]
    paid_by: Decimal | None = None


RECEIPTS: Final = (
    DemoReceipt(
        "mercatura-302-5521907.pdf", "Versandhaus Mercatura GmbH", "302-5521907", "2026-10-20",
        "4930", 19, Decimal("75.62"), Decimal("89.99"),
        ("Versandhaus Mercatura GmbH - Marketplace", "Rechnung 302-5521907 vom 20.10.2026",
         "Kunde: Holzwerk Sonnenberg GmbH, Freiburg", "",
         "1 x Ordner, Druckerpapier, Toner (Bestellung 302-5521907)", "",
         "Netto 75,62 EUR   USt 19 % 14,37 EUR   Brutto 89,99 EUR",
         "Bezahlt per Kartenzahlung am 20.10.2026"),
        Decimal("-89.99"),
    ),
    DemoReceipt(
        "dreisambank-entgelt-2026-10.pdf", "Dreisambank eG", "KTO-2026-10", "2026-11-02",
        "4970", 0, Decimal("12.90"), Decimal("12.90"),
        ("Dreisambank eG", "Entgeltaufstellung 10/2026",
         "Geschaeftskonto DE00 6809 0000 0012 3456 78", "",
         "Kontofuehrungsentgelt Oktober 2026: 12,90 EUR",
         "Finanzdienstleistung, umsatzsteuerfrei nach 4 Nr. 8 UStG",
         "Belastet am 02.11.2026"),
        Decimal("-12.90"),
    ),
    DemoReceipt(
        "innung-beitrag-2026-0815.pdf", "Innung Holz Südbaden", "2026-0815", "2026-11-02",
        "4900", 0, Decimal("240.00"), Decimal("240.00"),
        ("Innung Holz Suedbaden", "Beitragsrechnung 2026, Mitgl.-Nr. 0815",
         "Holzwerk Sonnenberg GmbH, Freiburg", "",
         "Innungsbeitrag 2026: 240,00 EUR (nicht steuerbar)",
         "Zahlbar bis 16.11.2026 auf DE00 6809 0000 0000 7770 01"),
        Decimal("-240.00"),
    ),
    DemoReceipt(
        "beschlag-rhein-BHR-2026-1187.pdf", "Beschlag-Handel Rhein GmbH", "BHR-2026-1187",
        "2026-11-20", "3400", 19, Decimal("180.00"), Decimal("214.20"),
        ("Beschlag-Handel Rhein GmbH, Hafenstrasse 8, 77694 Kehl",
         "Rechnung BHR-2026-1187 vom 20.11.2026 (ZUGFeRD, EN 16931)",
         "Kunde: Holzwerk Sonnenberg GmbH, Freiburg", "",
         "40 x Topfscharnier 110 Grad mit Daempfung a 4,50 EUR = 180,00 EUR", "",
         "Netto 180,00 EUR   USt 19 % 34,20 EUR   Brutto 214,20 EUR",
         "Zahlbar bis 04.12.2026 auf DE00 6645 0000 0000 2010 02"),
    ),
)  # fmt: skip
EINVOICE: Final = RECEIPTS[3]


def write_demo_receipts(directory: Path) -> Path:
    """Write the demo receipt files into ``directory`` (created, mode 0700, if missing).

    A file of the same name is left alone if it holds the same bytes; nothing is overwritten.

    :returns: ``directory`` as its real path, for ``SEVDESK_FILE_DIRS``.
    :raises FileExistsError: if a file of the same name holds other bytes.
    :raises OSError: if the folder or a file cannot be written.
    """
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    for receipt in RECEIPTS:
        _write(directory / receipt.filename, receipt_bytes(receipt))
    return Path(os.path.realpath(directory))


def receipt_bytes(receipt: DemoReceipt) -> bytes:
    """:returns: the file of ``receipt``: a one-page PDF, with its CII embedded for the
    e-invoice."""
    xml = _cii(receipt) if receipt is EINVOICE else None
    return text_pdf(receipt.lines, ("factur-x.xml", xml) if xml is not None else None)


def text_pdf(lines: tuple[str, ...], attachment: tuple[str, bytes] | None = None) -> bytes:
    """:returns: a one-page A4 PDF 1.4 showing ``lines`` in Helvetica, with a correct xref;
    with ``attachment`` (name, bytes) that file embedded as ZUGFeRD / Factur-X embed theirs
    (the catalog's ``/Names /EmbeddedFiles`` and ``/AF``), written by hand, so the demo start
    needs no PDF library."""
    shown = " ".join(f"({_escape(line)}) '" for line in lines)
    stream = f"BT /F1 11 Tf 56 780 Td 15 TL {shown} ET".encode("latin-1", "replace")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    if attachment is not None:
        name, data = attachment[0].encode("ascii"), attachment[1]
        objects += [
            b"<< /Type /EmbeddedFile /Subtype /text#2Fxml /Length %d >>\nstream\n%s\nendstream"
            % (len(data), data),
            b"<< /Type /Filespec /F (%s) /UF (%s) /EF << /F 6 0 R >> /AFRelationship "
            b"/Alternative >>" % (name, name),
        ]
        objects[0] = (
            b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(%s) 7 0 R] "
            b">> >> /AF [7 0 R] >>" % name
        )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _write(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, MODE)
    except FileExistsError:
        if path.is_file() and not path.is_symlink() and path.read_bytes() == data:
            return
        raise FileExistsError(
            f"'{path}' already exists with other content; demo receipts never overwrite a "
            "file. Give an empty folder."
        ) from None
    with os.fdopen(fd, "wb") as file:
        file.write(data)


def _cii(receipt: DemoReceipt) -> bytes:
    tax = receipt.gross - receipt.net
    replaced = (
        _CII.replace("{number}", receipt.number)
        .replace("{net}", f"{receipt.net:f}")
        .replace("{tax}", f"{tax:f}")
        .replace("{gross}", f"{receipt.gross:f}")
    )
    return replaced.encode()


_CII: Final = """<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice \
xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" \
xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" \
xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>\
<ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>\
</rsm:ExchangedDocumentContext>
<rsm:ExchangedDocument><ram:ID>{number}</ram:ID><ram:TypeCode>380</ram:TypeCode>\
<ram:IssueDateTime><udt:DateTimeString format="102">20261120</udt:DateTimeString>\
</ram:IssueDateTime></rsm:ExchangedDocument>
<rsm:SupplyChainTradeTransaction>
<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>1\
</ram:LineID></ram:AssociatedDocumentLineDocument><ram:SpecifiedTradeProduct><ram:Name>\
Topfscharnier 110 Grad mit Daempfung</ram:Name></ram:SpecifiedTradeProduct>\
<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>4.50\
</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>\
<ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">40</ram:BilledQuantity>\
</ram:SpecifiedLineTradeDelivery><ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax>\
<ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode>\
<ram:RateApplicablePercent>19</ram:RateApplicablePercent></ram:ApplicableTradeTax>\
<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>{net}\
</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>\
</ram:SpecifiedLineTradeSettlement></ram:IncludedSupplyChainTradeLineItem>
<ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Beschlag-Handel Rhein \
GmbH</ram:Name><ram:DefinedTradeContact><ram:PersonName>Buchhaltung</ram:PersonName>\
<ram:TelephoneUniversalCommunication><ram:CompleteNumber>+49 69 90009 202</ram:CompleteNumber>\
</ram:TelephoneUniversalCommunication><ram:EmailURIUniversalCommunication><ram:URIID>\
bestellung.beschlag@example.com</ram:URIID></ram:EmailURIUniversalCommunication>\
</ram:DefinedTradeContact><ram:PostalTradeAddress><ram:PostcodeCode>77694</ram:PostcodeCode>\
<ram:LineOne>Hafenstrasse 8</ram:LineOne><ram:CityName>Kehl</ram:CityName><ram:CountryID>DE\
</ram:CountryID></ram:PostalTradeAddress><ram:SpecifiedTaxRegistration>\
<ram:ID schemeID="VA">DE000201002</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>\
<ram:BuyerTradeParty><ram:Name>Holzwerk Sonnenberg GmbH</ram:Name><ram:PostalTradeAddress>\
<ram:PostcodeCode>79110</ram:PostcodeCode><ram:LineOne>Hofackerstrasse 12</ram:LineOne>\
<ram:CityName>Freiburg im Breisgau</ram:CityName><ram:CountryID>DE</ram:CountryID>\
</ram:PostalTradeAddress></ram:BuyerTradeParty></ram:ApplicableHeaderTradeAgreement>
<ram:ApplicableHeaderTradeDelivery/>
<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>\
<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode>\
<ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE00664500000000201002</ram:IBANID>\
</ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>\
<ram:ApplicableTradeTax><ram:CalculatedAmount>{tax}</ram:CalculatedAmount><ram:TypeCode>VAT\
</ram:TypeCode><ram:BasisAmount>{net}</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode>\
<ram:RateApplicablePercent>19</ram:RateApplicablePercent></ram:ApplicableTradeTax>\
<ram:SpecifiedTradePaymentTerms><ram:Description>Zahlbar innerhalb 14 Tagen.</ram:Description>\
</ram:SpecifiedTradePaymentTerms><ram:SpecifiedTradeSettlementHeaderMonetarySummation>\
<ram:LineTotalAmount>{net}</ram:LineTotalAmount><ram:TaxBasisTotalAmount>{net}\
</ram:TaxBasisTotalAmount><ram:TaxTotalAmount currencyID="EUR">{tax}</ram:TaxTotalAmount>\
<ram:GrandTotalAmount>{gross}</ram:GrandTotalAmount><ram:DuePayableAmount>{gross}\
</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>\
</ram:ApplicableHeaderTradeSettlement>
</rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
"""
