"""The PDF reader's own lookup: the catalog's name tree only, objects taken one by one out of
object streams, a strict reading first and a lenient one only for files that need repair, and
every cap still on."""

from __future__ import annotations

import io
import zlib

import pytest

from sevdesk_mcp.domain.einvoice import pdf, pdfwalk, safexml
from sevdesk_mcp.errors import EInvoiceRefusedError
from tests.einvoice import pdfs
from tests.einvoice.samples import SHARED

CII = b'<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>'
OTHER = CII.replace(b"/>", b"><!-- another --></rsm:CrossIndustryInvoice>")


def _with_object_stream(xml: bytes, junk: int = 0) -> bytes:
    """:returns: a PDF whose catalog, pages and file specification (and ``junk`` unrelated
    dictionaries) live in one object stream behind a cross-reference stream."""
    members = [
        b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(factur-x.xml) 3 0 R] >> >> >>",
        b"<< /Type /Pages /Kids [] /Count 0 >>",
        b"<< /Type /Filespec /F (factur-x.xml) /EF << /F 4 0 R >> >>",
    ] + [b"<< /Junk %d >>" % n for n in range(junk)]
    numbers = [1, 2, 3] + [7 + n for n in range(junk)]
    bodies, header = b"", b""
    for number, body in zip(numbers, members, strict=True):
        header += b"%d %d " % (number, len(bodies))
        bodies += body + b"\n"
    packed = zlib.compress(header + bodies)
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = {4: len(out)}
    out += b"4 0 obj\n" + pdfs.stream("/Type /EmbeddedFile", xml) + b"\nendobj\n"
    offsets[5] = len(out)
    head = f"/Type /ObjStm /N {len(members)} /First {len(header)} /Filter /FlateDecode"
    out += b"5 0 obj\n" + pdfs.stream(head, packed) + b"\nendobj\n"
    size = 7 + junk
    offsets[6] = len(out)
    rows = b"\x00" + (0).to_bytes(4, "big") + b"\xff\xff"
    for number in range(1, size):
        if number in (4, 5, 6):
            rows += b"\x01" + offsets[number].to_bytes(4, "big") + b"\x00\x00"
        else:
            rows += b"\x02" + (5).to_bytes(4, "big") + numbers.index(number).to_bytes(2, "big")
    xref = f"/Type /XRef /W [1 4 2] /Index [0 {size}] /Size {size} /Root 1 0 R"
    out += b"6 0 obj\n" + pdfs.stream(xref, rows) + b"\nendobj\n"
    out += f"startxref\n{offsets[6]}\n%%EOF\n".encode()
    return bytes(out)


def test_an_invoice_behind_an_object_stream_is_found() -> None:
    assert pdf.invoice_xml(_with_object_stream(CII, junk=50)) == ("factur-x.xml", CII)


def test_only_the_objects_on_the_way_are_parsed() -> None:
    import pypdf

    data = _with_object_stream(CII, junk=50)
    with pypdf.apply_configuration(pdf._limits()):
        reader = pypdf.PdfReader(io.BytesIO(data), strict=True)
        objects = pdfwalk.Objects(reader)
        entries = list(pdfwalk.embedded_files(objects, pdf._catalog(objects, reader)))
    assert [entry.names for entry in entries] == [("factur-x.xml",)]
    parsed = {number for _, number in reader.resolved_objects}
    # the catalog, the file specification, the object stream and the cross-reference stream
    assert parsed <= {1, 3, 5, 6}


def test_an_unusual_object_stream_header_is_left_to_pypdf(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdfwalk, "object_offsets", lambda *_: None)
    assert pdf.invoice_xml(_with_object_stream(CII, junk=5)) == ("factur-x.xml", CII)


@pytest.mark.parametrize(
    ("header", "count", "expected"),
    [
        (b"1 0 2 10 ", 2, {1: 0, 2: 10}),
        (b"1 0 1 10 ", 2, {1: 0}),  # a number given twice: the first offset counts
        (b"1 0 2 x ", 2, None),
        (b"1 10 2 5 ", 2, None),  # offsets must rise
        (b"1 0 2 999 ", 2, None),  # outside the stream
        (b"1 0 ", 2, None),  # fewer pairs than declared
        (b"1 -1 ", 1, None),
    ],
)
def test_object_stream_headers(header: bytes, count: int, expected: dict[int, int] | None) -> None:
    data = header + b"<< >> " * 4
    assert pdfwalk.object_offsets(data, count, len(header)) == expected


def test_a_negative_count_or_first_is_no_header() -> None:
    assert pdfwalk.object_offsets(b"1 0 << >>", -1, 4) is None
    assert pdfwalk.object_offsets(b"1 0 << >>", 1, 99) is None


def test_a_file_needing_repair_is_read_leniently(monkeypatch: pytest.MonkeyPatch) -> None:
    data = pdfs.zugferd(CII)
    at = data.index(b"startxref\n") + len(b"startxref\n")
    broken = data[:at] + str(int(data[at:].split()[0]) + 7).encode() + b"\n%%EOF\n"
    calls: list[bool] = []
    real = pdf._read

    def counted(data: bytes, *, strict: bool) -> dict[str, list[bytes]]:
        calls.append(strict)
        return real(data, strict=strict)

    monkeypatch.setattr(pdf, "_read", counted)
    assert pdf.invoice_xml(broken) == ("factur-x.xml", CII)
    assert calls == [True, False]


def test_a_cap_reached_in_the_strict_reading_is_not_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bomb = zlib.compress(zlib.compress(b"\0" * (safexml.MAX_XML_BYTES + 1)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(factur-x.xml) 3 0 R] >> >> >>",
        b"<< /Type /Pages /Kids [] /Count 0 >>",
        b"<< /Type /Filespec /F (factur-x.xml) /EF << /F 4 0 R >> >>",
        pdfs.stream("/Type /EmbeddedFile /Filter [/FlateDecode /FlateDecode]", bomb),
    ]
    data = pdfs.build(objects)
    calls: list[bool] = []
    real = pdf._read

    def counted(data: bytes, *, strict: bool) -> dict[str, list[bytes]]:
        calls.append(strict)
        return real(data, strict=strict)

    monkeypatch.setattr(pdf, "_read", counted)
    with pytest.raises(EInvoiceRefusedError) as caught:
        pdf.invoice_xml(data)
    assert caught.value.reason == "inflate" and calls == [True]


def test_the_caps_are_built_once() -> None:
    assert pdf._limits() is pdf._limits()
    assert pdf._limits().zlib_maximum_output_length == safexml.MAX_XML_BYTES


def _tree(kids: bytes, spec: bytes) -> bytes:
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles 3 0 R >> >>",
        b"<< /Type /Pages /Kids [] /Count 0 >>",
        kids,
        b"<< /Names [(invoice.xml) 5 0 R] >>",
        spec,
        pdfs.stream("/Type /EmbeddedFile", CII),
    ]
    return pdfs.build(objects)


def test_a_kid_of_the_name_tree_and_the_unicode_name_are_read() -> None:
    spec = b"<< /Type /Filespec /F (invoice.xml) /UF (factur-x.xml) /EF << /F 6 0 R >> >>"
    assert pdf.invoice_xml(_tree(b"<< /Kids [4 0 R] >>", spec)) == ("factur-x.xml", CII)


def test_a_kids_entry_that_is_no_array_ends_the_walk() -> None:
    spec = b"<< /Type /Filespec /UF (factur-x.xml) /EF << /F 6 0 R >> >>"
    with pytest.raises(EInvoiceRefusedError) as caught:
        pdf.invoice_xml(_tree(b"<< /Kids 4 /Names [(factur-x.xml) 5 0 R] >>", spec))
    assert caught.value.reason == "no_attachment"


def test_a_specification_without_an_embedded_stream_is_a_broken_pdf() -> None:
    spec = b"<< /Type /Filespec /UF (factur-x.xml) /EF << /F 2 0 R >> >>"
    with pytest.raises(EInvoiceRefusedError) as caught:
        pdf.invoice_xml(_tree(b"<< /Kids [4 0 R] >>", spec))
    assert caught.value.reason == "pdf"


def test_the_same_invoice_twice_is_read_and_two_different_are_refused() -> None:
    assert pdf._chosen({"factur-x.xml": [CII], "xrechnung.xml": [CII]}) == ("factur-x.xml", CII)
    with pytest.raises(EInvoiceRefusedError) as caught:
        pdf._chosen({"factur-x.xml": [CII], "xrechnung.xml": [OTHER]})
    assert caught.value.reason == "attachments"


def test_the_object_count_is_still_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf, "MAX_OBJECTS", 3)
    with pytest.raises(EInvoiceRefusedError) as caught:
        pdf.invoice_xml(_with_object_stream(CII).replace(b"/Size 7", b"/Size 3 "))
    assert caught.value.reason == "objects"


def test_the_shared_object_stream_sample_reads_like_pypdf() -> None:
    sample = SHARED / "derived_ferd233_EN16931_Physiotherapeut_objstm.pdf"
    if not sample.is_file():
        pytest.skip("the shared samples are not present next to the checkout")
    import pypdf

    data = sample.read_bytes()
    expected = pypdf.PdfReader(io.BytesIO(data)).attachments
    name, xml = pdf.invoice_xml(data)
    assert [xml] == list(expected[name])
