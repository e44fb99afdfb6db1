"""Safe XML parsing for e-invoices.

``defusedxml``'s parser with DTDs, entities and external references forbidden, fed bytes (so
expat detects the encoding and a UTF-16 DOCTYPE is still seen), building a tree that refuses
more than :data:`MAX_DEPTH` levels or :data:`MAX_ELEMENTS` elements. The size is capped before
any byte is parsed. Processing instructions and comments are dropped; nothing is included
(no XInclude) or transformed. Every failure is one :class:`EInvoiceRefusedError`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Final
from xml.parsers.expat import ExpatError

from defusedxml import (  # type: ignore[import-untyped]
    DefusedXmlException,
    DTDForbidden,
    EntitiesForbidden,
    ExternalReferenceForbidden,
)
from defusedxml.ElementTree import DefusedXMLParser  # type: ignore[import-untyped]

from sevdesk_mcp.errors import EInvoiceRefusedError

MAX_XML_BYTES: Final = 20 * 1024 * 1024
MAX_DEPTH: Final = 64
MAX_ELEMENTS: Final = 500_000
_FEED: Final = 64 * 1024


class _Limited(ET.TreeBuilder):
    """A tree builder that counts depth and elements."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.count = 0

    def start(self, tag: str, attrs: dict[str, str], /) -> ET.Element:
        self.depth += 1
        self.count += 1
        if self.depth > MAX_DEPTH:
            raise EInvoiceRefusedError(
                "depth",
                f"The XML nests elements more than {MAX_DEPTH} levels deep; no e-invoice does "
                "that. The file is refused as unsafe; ask the sender for a standard XRechnung "
                "or ZUGFeRD file.",
            )
        if self.count > MAX_ELEMENTS:
            raise EInvoiceRefusedError(
                "size",
                f"The XML has more than {MAX_ELEMENTS} elements; the file is refused as too "
                "large. Ask the sender to split the invoice.",
            )
        return super().start(tag, attrs)

    def end(self, tag: str, /) -> ET.Element:
        self.depth -= 1
        return super().end(tag)


def parse(data: bytes, what: str = "The XML file") -> ET.Element:
    """Parse ``data`` safely.

    :returns: the root element.
    :raises EInvoiceRefusedError: for a file over the size cap, a DTD, an entity, an external
        reference, too deep or too many elements, a wrong encoding, or malformed XML.
    """
    if len(data) > MAX_XML_BYTES:
        raise EInvoiceRefusedError(
            "size",
            f"{what} is larger than {MAX_XML_BYTES // (1024 * 1024)} MiB, the cap for an "
            "e-invoice. Ask the sender for the invoice without large attachments.",
        )
    parser = DefusedXMLParser(
        target=_Limited(), forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    try:
        for start in range(0, len(data), _FEED):
            parser.feed(data[start : start + _FEED])
        root = parser.close()
    except EInvoiceRefusedError:
        raise
    except DefusedXmlException as exc:
        raise _forbidden(exc, what) from None
    except (ET.ParseError, ExpatError, UnicodeError, LookupError, ValueError) as exc:
        raise _malformed(what, exc) from None
    except RecursionError:
        raise _refused("depth", f"{what} nests too deeply") from None
    if not isinstance(root, ET.Element):
        raise _malformed(what, None)
    return root


def _forbidden(exc: DefusedXmlException, what: str) -> EInvoiceRefusedError:
    if isinstance(exc, DTDForbidden):
        return _refused("dtd", f"{what} declares a DTD (<!DOCTYPE>)")
    if isinstance(exc, EntitiesForbidden):
        return _refused("entity", f"{what} declares entities")
    if isinstance(exc, ExternalReferenceForbidden):
        return _refused("external", f"{what} refers to an external resource")
    return _refused("dtd", f"{what} uses a forbidden XML feature")


def _refused(reason: str, what: str) -> EInvoiceRefusedError:
    return EInvoiceRefusedError(
        reason,
        f"{what}, which e-invoices never need and attacks use; it is refused and was not "
        "read. Ask the sender for a standard XRechnung or ZUGFeRD file.",
    )


def _malformed(what: str, exc: Exception | None) -> EInvoiceRefusedError:
    where = ""
    position = getattr(exc, "position", None)
    if isinstance(position, tuple) and len(position) == 2:
        where = f" (line {int(position[0])}, column {int(position[1])})"
    if isinstance(exc, UnicodeError | LookupError):
        return EInvoiceRefusedError(
            "encoding",
            f"{what} declares an unknown character encoding or does not match the one it "
            "declares; it cannot be read. Ask the sender for a UTF-8 copy.",
        )
    return EInvoiceRefusedError(
        "not_wellformed",
        f"{what} is not well-formed XML{where}; it is no readable e-invoice. Ask the sender "
        "for a new copy.",
    )
