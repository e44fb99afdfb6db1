"""A tiny PDF writer for tests: exact control over objects, streams, xref and trailer, so that
hostile PDFs (bombs, loops, encryption) can be built without any PDF library."""

from __future__ import annotations

import zlib


def stream(head: str, data: bytes) -> bytes:
    """:returns: a stream object body with ``head`` (dictionary entries) and ``/Length``."""
    return f"<< {head} /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"


def build(objects: list[bytes], trailer: str = "", prev_self: bool = False) -> bytes:
    """:returns: a PDF of ``objects`` (numbered from 1; object 1 is the catalog) with a classic
    xref table; ``prev_self`` makes the trailer's ``/Prev`` point at its own xref (a loop)."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    extra = f" /Prev {xref}" if prev_self else ""
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{extra} {trailer} >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def zugferd(
    xml: bytes, name: str = "factur-x.xml", *, compressed: bool = True, trailer: str = ""
) -> bytes:
    """:returns: a one-page PDF with ``xml`` attached under ``name`` (as ZUGFeRD does)."""
    data = zlib.compress(xml) if compressed else xml
    flate = "/Filter /FlateDecode" if compressed else ""
    escaped = name.replace("(", "\\(").replace(")", "\\)")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [("
        + escaped.encode()
        + b") 4 0 R] >> >> /AF [4 0 R] >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>",
        b"<< /Type /Filespec /F ("
        + escaped.encode()
        + b") /UF ("
        + escaped.encode()
        + b") /EF << /F 5 0 R >> /AFRelationship /Alternative >>",
        stream(f"/Type /EmbeddedFile /Subtype /text#2Fxml {flate}", data),
    ]
    return build(objects, trailer)
