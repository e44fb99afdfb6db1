"""Bytes in, invoice out: XML (UBL or CII) or a ZUGFeRD / Factur-X PDF."""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.domain.einvoice import cii, pdf, safexml, ubl
from sevdesk_mcp.domain.einvoice.model import Invoice
from sevdesk_mcp.errors import EInvoiceRefusedError

_UBL_ROOTS: Final = {f"{{{ubl.INVOICE_NS}}}Invoice", f"{{{ubl.CREDIT_NS}}}CreditNote"}
_CII_ROOT: Final = f"{{{cii.ROOT_NS}}}CrossIndustryInvoice"
_ZUGFERD_1: Final = "urn:ferd:CrossIndustryDocument:invoice:1p0"


class Read(msgspec.Struct, frozen=True):
    """An invoice and where it came from: ``container`` is ``xml`` or ``pdf``; ``attachment``
    names the PDF's invoice file."""

    invoice: Invoice
    container: str
    attachment: str | None = None


def read_bytes(data: bytes) -> Read:
    """Read an e-invoice from a file's bytes.

    :returns: the invoice and its container.
    :raises EInvoiceRefusedError: if the file is unsafe, malformed, too large, or no e-invoice.
    """
    if data.startswith(b"%PDF-"):
        name, xml = pdf.invoice_xml(data)
        return Read(read_xml(xml, f"The attachment {name}"), "pdf", name)
    return Read(read_xml(data), "xml")


def read_xml(data: bytes, what: str = "The XML file") -> Invoice:
    """:returns: the invoice of UBL or CII XML.

    :raises EInvoiceRefusedError: if the XML is unsafe, malformed, or no UBL/CII invoice.
    """
    root = safexml.parse(data, what)
    if root.tag in _UBL_ROOTS:
        return ubl.read(root)
    if root.tag == _CII_ROOT:
        return cii.read(root)
    if root.tag.startswith(f"{{{_ZUGFERD_1}}}"):
        raise EInvoiceRefusedError(
            "not_invoice",
            "This is a ZUGFeRD 1.0 invoice, which is not supported (it predates EN 16931). "
            "Book it as a plain receipt, or ask the sender for ZUGFeRD 2 or XRechnung.",
        )
    raise EInvoiceRefusedError(
        "not_invoice",
        f"{what} is XML but no e-invoice: its root is neither a UBL Invoice/CreditNote nor a "
        "CII CrossIndustryInvoice. Check that it is the invoice file.",
    )
