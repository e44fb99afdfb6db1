"""Safe XML parsing for e-invoices.

No DTD, so no entity, parameter entity or external reference (the things only a DTD can
declare), a tree of at most :data:`MAX_DEPTH` levels and :data:`MAX_ELEMENTS` elements, the size
capped before any byte is parsed, and so are the attributes (:data:`MAX_ATTRIBUTES`, counted by
their ``=`` bytes). Each parser gets the whole file in one feed, as bytes, so expat detects
the encoding and a UTF-16 DOCTYPE is still seen. Processing instructions and comments are
dropped; nothing is included (no XInclude) or transformed. Every failure is one
:class:`EInvoiceRefusedError`.

Every file first goes through ``defusedxml``'s parser, with DTDs, entities and external
references forbidden, up to the start of its root element: a DOCTYPE can stand only before it,
so past that point nothing can declare an entity. Then (ADR 0010):

- a file with at most :data:`FAST_ELEMENTS` ``<``, ``&`` and newline bytes together (every
  element needs a ``<``, and the C parser hands text over in a piece per reference and line;
  expat refuses encodings in which these are other bytes) is built by ElementTree's C parser,
  whose tree builder refuses a DOCTYPE again, and its depth is checked on the finished tree;
- anything larger is built by ``defusedxml``'s parser, counting depth and elements as the tree
  grows.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Final, NoReturn
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
FAST_ELEMENTS: Final = 50_000
MAX_ATTRIBUTES: Final = 100_000  # bounded by the "=" bytes: every attribute needs one


class _RootReached(Exception):
    """The prolog gate saw the root element start."""


class _Prolog:
    """A ``defusedxml`` target that stops at the root element."""

    def start(self, tag: str, attrs: dict[str, str], /) -> NoReturn:
        """:raises _RootReached: always."""
        raise _RootReached

    def close(self) -> None:
        """Nothing was built."""


class _NoDoctype(ET.TreeBuilder):
    """ElementTree's C tree builder that refuses a DOCTYPE (the C parser calls ``doctype`` at
    its start, before any declaration in it is read)."""

    def doctype(self, name: str, pubid: str | None, system: str | None, /) -> NoReturn:
        """:raises DTDForbidden: always."""
        raise DTDForbidden(name, system, pubid)


class _Limited(ET.TreeBuilder):
    """A tree builder that counts depth and elements."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.count = 0

    def start(self, tag: str, attrs: dict[str, str], /) -> ET.Element:
        """:raises EInvoiceRefusedError: past :data:`MAX_DEPTH` levels or :data:`MAX_ELEMENTS`."""
        self.depth += 1
        self.count += 1
        if self.depth > MAX_DEPTH:
            raise _too_deep()
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
    if data.count(b"=") > MAX_ATTRIBUTES:
        raise EInvoiceRefusedError(
            "size",
            f"{what} has more than {MAX_ATTRIBUTES} attributes; the file is refused as too "
            "large. Ask the sender for a standard XRechnung or ZUGFeRD file.",
        )
    _gate(data, what)
    if data.count(b"<") + data.count(b"&") + data.count(b"\n") <= FAST_ELEMENTS:
        parser = ET.XMLParser(target=_NoDoctype())  # noqa: S314 (the gate above ran defusedxml)
        root = _built(data, parser, what)
        _check_depth(root)
        return root
    parser = DefusedXMLParser(
        target=_Limited(), forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    return _built(data, parser, what)


def _gate(data: bytes, what: str) -> None:
    """Run ``defusedxml``'s parser over the prolog of ``data``, up to its root element.

    :raises EInvoiceRefusedError: for a DTD, an entity, an external reference, a wrong encoding
        or malformed XML before the root element.
    """
    gate = DefusedXMLParser(
        target=_Prolog(), forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    try:
        _built(data, gate, what)
    except _RootReached:
        return


def _built(data: bytes, parser: ET.XMLParser, what: str) -> ET.Element:
    """:returns: the root ``parser`` builds from ``data``, fed in one call (expat before 2.6
    rescans a token that spans two feeds from its start: pieces made one long token quadratic).

    :raises EInvoiceRefusedError: as :func:`parse`.
    :raises _RootReached: from the prolog gate.
    """
    try:
        parser.feed(data)
        root = parser.close()
    except (EInvoiceRefusedError, _RootReached):
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


def _check_depth(root: ET.Element) -> None:
    """:raises EInvoiceRefusedError: if ``root`` has elements deeper than :data:`MAX_DEPTH`."""
    level = [root]
    for _ in range(MAX_DEPTH):
        level = [child for parent in level for child in parent]
        if not level:
            return
    raise _too_deep()


def _too_deep() -> EInvoiceRefusedError:
    return EInvoiceRefusedError(
        "depth",
        f"The XML nests elements more than {MAX_DEPTH} levels deep; no e-invoice does "
        "that. The file is refused as unsafe; ask the sender for a standard XRechnung "
        "or ZUGFeRD file.",
    )


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
