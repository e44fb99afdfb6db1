"""A tiny, valid, deterministic one-page PDF for the getPdf endpoints (Q3)."""

from __future__ import annotations

from typing import Final

_FONT: Final = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
_PAGE: Final = (
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R"
    b" /Resources << /Font << /F1 5 0 R >> >> >>"
)


def _escape(text: str) -> bytes:
    raw = text.encode("latin-1", "replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def tiny_pdf(title: str) -> bytes:
    """:returns: a one-page A4 PDF showing ``title``, with a correct cross-reference table."""
    stream = b"BT /F1 18 Tf 72 760 Td (" + _escape(title) + b") Tj ET"
    objects = (
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        _PAGE,
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        _FONT,
    )
    out = bytearray(b"%PDF-1.4\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref_at,
    )
    return bytes(out)
