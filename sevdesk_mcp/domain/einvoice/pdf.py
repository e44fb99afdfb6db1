"""The invoice XML inside a ZUGFeRD / Factur-X PDF, taken out with ``pypdf`` under caps.

Refused before any object is read: a file over :data:`MAX_PDF_BYTES`, an encrypted file
(``/Encrypt``: PDF/A forbids it), a cross-reference declaring more than :data:`MAX_OBJECTS`
objects. While reading, ``pypdf`` runs with every inflate stage capped at the XML cap
(FlateDecode, LZW, run-length, array streams), a cap on declared stream lengths, on filters per
stream and on decoding work. The attachment is chosen by name (``factur-x.xml``,
``zugferd-invoice.xml``, ``xrechnung.xml``, ``ZUGFeRD-invoice.xml``, case-insensitively), never
by position; two different invoice XMLs are refused. Only the objects on the way to it are
opened (:mod:`pdfwalk`). The file is read strictly first; only one that ``pypdf`` must repair
is read once more leniently, under the same caps (a cap reached is never retried). ``pypdf`` is
imported only here and in :mod:`pdfwalk`, only for PDFs.
"""

from __future__ import annotations

import functools
import io
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.domain.einvoice import pdfwalk
from sevdesk_mcp.domain.einvoice.safexml import MAX_XML_BYTES
from sevdesk_mcp.errors import EInvoiceRefusedError

if TYPE_CHECKING:
    import pypdf
    from pypdf.generic import DictionaryObject

MAX_PDF_BYTES: Final = 32 * 1024 * 1024
MAX_OBJECTS: Final = 100_000
MAX_ATTACHMENTS: Final = 100
INVOICE_NAMES: Final = frozenset({"factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"})


@functools.cache
def _limits() -> pypdf.Configuration:
    """:returns: ``pypdf``'s configuration with every inflate stage capped, built once (its
    construction looks up a helper program on the search path). Legacy module-level limits
    are ignored, so no other code can loosen these caps."""
    import pypdf  # noqa: PLC0415 - only for PDFs

    return pypdf.Configuration(
        maximum_declared_stream_length=MAX_PDF_BYTES,
        zlib_maximum_output_length=MAX_XML_BYTES,
        lzw_maximum_output_length=MAX_XML_BYTES,
        run_length_maximum_output_length=MAX_XML_BYTES,
        array_based_stream_maximum_output_length=MAX_XML_BYTES,
        zlib_maximum_recovery_input_length=1024 * 1024,
        stream_filters_maximum_length=4,
        stream_decoding_work_maximum_length=4 * MAX_XML_BYTES,
        array_maximum_element_count=20_000,
        dictionary_maximum_element_count=20_000,
        disable_legacy_handling=True,
    )


def invoice_xml(data: bytes) -> tuple[str, bytes]:
    """Take the invoice XML out of a ZUGFeRD / Factur-X PDF.

    :returns: the attachment's name and its bytes (still to be parsed safely).
    :raises EInvoiceRefusedError: for a file over the cap, an encrypted or broken PDF, too many
        objects, an inflate over the cap, no invoice attachment, or two different ones.
    """
    if len(data) > MAX_PDF_BYTES:
        raise EInvoiceRefusedError(
            "size",
            f"The PDF is larger than {MAX_PDF_BYTES // (1024 * 1024)} MiB, the cap for an "
            "e-invoice. Ask the sender for a smaller ZUGFeRD file or the XML alone.",
        )
    try:
        found = _attachments(data)
    except EInvoiceRefusedError:
        raise
    except RecursionError:
        raise _broken("its structure nests or loops too deeply") from None
    except Exception as exc:
        raise _classified(exc) from None
    return _chosen(found)


def _attachments(data: bytes) -> dict[str, list[bytes]]:
    """Read strictly first (it skips ``pypdf``'s re-check of every cross-reference entry); a
    file only a lenient reading repairs is read once more, leniently, under the same caps.

    :returns: the invoice-named attachments' contents by name.
    :raises EInvoiceRefusedError: for a refusal; a cap reached is never retried.
    :raises Exception: whatever ``pypdf`` raises on the lenient reading.
    """
    try:
        return _read(data, strict=True)
    except (EInvoiceRefusedError, RecursionError):
        raise
    except Exception as exc:
        if _classified(exc).reason != "pdf":
            raise
    return _read(data, strict=False)


def _read(data: bytes, *, strict: bool) -> dict[str, list[bytes]]:
    import pypdf  # noqa: PLC0415 - only for PDFs: the XML path never loads it

    with pypdf.apply_configuration(_limits()):
        reader = pypdf.PdfReader(io.BytesIO(data), strict=strict)
        _check_trailer(reader)
        objects = pdfwalk.Objects(reader)
        entries = list(pdfwalk.embedded_files(objects, _catalog(objects, reader)))
        if len({name for entry in entries for name in entry.names}) > MAX_ATTACHMENTS:
            raise EInvoiceRefusedError(
                "attachments",
                f"The PDF carries more than {MAX_ATTACHMENTS} attachments; it is refused as "
                "too large. Ask the sender for the invoice XML alone.",
            )
        return _invoice_contents(objects, entries)


def _check_trailer(reader: pypdf.PdfReader) -> None:
    """Refuse an encrypted file and one with too many objects, before any object is read.

    :raises EInvoiceRefusedError: for ``/Encrypt`` or more than :data:`MAX_OBJECTS` objects.
    """
    if "/Encrypt" in reader.trailer:
        raise EInvoiceRefusedError(
            "encrypted",
            "The PDF is encrypted; PDF/A (and so ZUGFeRD/Factur-X) forbids encryption and "
            "the invoice cannot be read. Ask the sender for an unencrypted copy or the XML "
            "alone.",
        )
    size = reader.trailer.get("/Size", 0)
    if not isinstance(size, int) or size > MAX_OBJECTS or _too_many_objects(reader):
        raise EInvoiceRefusedError(
            "objects",
            f"The PDF declares more than {MAX_OBJECTS} objects; the file is refused as "
            "too large. Ask the sender for the invoice XML alone.",
        )


def _too_many_objects(reader: object) -> bool:
    """:returns: whether the cross-references name more than :data:`MAX_OBJECTS` distinct
    objects (counted without a set while the plain sum stays under the cap)."""
    tables = getattr(reader, "xref", {}).values()
    total = sum(len(table) for table in tables) + len(getattr(reader, "xref_objStm", {}))
    return total > MAX_OBJECTS and len(_xref_ids(reader)) > MAX_OBJECTS


def _catalog(objects: pdfwalk.Objects, reader: pypdf.PdfReader) -> DictionaryObject:
    """:returns: the trailer's ``/Root`` if it is a catalog, else ``pypdf``'s recovered one."""
    from pypdf.generic import DictionaryObject  # noqa: PLC0415 - only for PDFs

    if "/Root" in reader.trailer:
        root = objects.resolve(reader.trailer.raw_get("/Root"))
        if isinstance(root, DictionaryObject) and root.get("/Type") == "/Catalog":
            return root
    return reader.root_object


def _invoice_contents(
    objects: pdfwalk.Objects, entries: list[pdfwalk.Entry]
) -> dict[str, list[bytes]]:
    """:returns: the contents of the invoice-named attachments by name; no other is inflated."""
    found: dict[str, list[bytes]] = {}
    for entry in entries:
        for name in entry.names:
            if name.strip().lower() in INVOICE_NAMES:
                found.setdefault(name, []).append(pdfwalk.content(objects, entry.spec))
    return found


def _xref_ids(reader: object) -> set[int]:
    ids: set[int] = set()
    for table in getattr(reader, "xref", {}).values():
        ids.update(table)
    ids.update(getattr(reader, "xref_objStm", {}))
    return ids


def _chosen(found: dict[str, list[bytes]]) -> tuple[str, bytes]:
    contents = [content for named in found.values() for content in named]
    if not contents:
        raise EInvoiceRefusedError(
            "no_attachment",
            "The PDF carries no e-invoice: no attachment named factur-x.xml, xrechnung.xml or "
            "zugferd-invoice.xml. It is a plain PDF; file it as a receipt with "
            "sevdesk_upload_receipt, or ask the sender for a ZUGFeRD or XRechnung invoice.",
        )
    if any(content != contents[0] for content in contents[1:]):
        raise EInvoiceRefusedError(
            "attachments",
            "The PDF carries more than one different invoice XML; which one is binding is "
            "unclear. Ask the sender for a file with exactly one.",
        )
    return sorted(found)[0], contents[0]


def _classified(exc: Exception) -> EInvoiceRefusedError:
    kind = type(exc).__name__
    if kind == "LimitReachedError" or "limit" in kind.lower():
        return EInvoiceRefusedError(
            "inflate",
            "A compressed part of the PDF unpacks to more than the cap for an e-invoice "
            f"({MAX_XML_BYTES // (1024 * 1024)} MiB) or exceeds another safety limit; the "
            "file is refused as a possible decompression bomb. Ask the sender for the XML alone.",
        )
    if kind == "FileNotDecryptedError":
        return EInvoiceRefusedError(
            "encrypted", "The PDF is encrypted; ask for an unencrypted copy."
        )
    return _broken("it is damaged or not a PDF")


def _broken(why: str) -> EInvoiceRefusedError:
    return EInvoiceRefusedError(
        "pdf",
        f"The PDF cannot be read safely: {why}. Ask the sender for a new copy, or for the "
        "invoice XML alone.",
    )
