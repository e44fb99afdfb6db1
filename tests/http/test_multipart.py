"""The strict ``multipart/form-data`` reader of the upload page: what a browser sends is read
part by part; anything else (a malformed boundary, a broken part head, a part without a name,
a field sent twice, a body cut short, too many parts, bare LF line ends) refuses the whole body."""

from __future__ import annotations

import httpx
import pytest

from sevdesk_mcp.http.web.multipart import MAX_HEAD_BYTES, MAX_PARTS, Part, parse

BOUNDARY = "----FormBoundary7MA4YWxkTrZu0gW"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
PDF = b"%PDF-1.4\r\n1 0 obj<<>>endobj\r\n--not-the-boundary\r\n%%EOF\r\n"


def _part(head: bytes, data: bytes) -> bytes:
    return b"\r\n--" + BOUNDARY.encode() + b"\r\n" + head + b"\r\n\r\n" + data


def _field(name: str, data: bytes) -> bytes:
    return _part(f'Content-Disposition: form-data; name="{name}"'.encode(), data)


def _body(*parts: bytes, close: bytes | None = None) -> bytes:
    end = b"\r\n--" + BOUNDARY.encode() + b"--\r\n" if close is None else close
    return b"".join(parts).removeprefix(b"\r\n") + end


def _form(*parts: bytes) -> dict[str, Part] | None:
    return parse(CONTENT_TYPE, _body(*parts))


def test_the_body_a_browser_client_sends_is_read_part_by_part() -> None:
    request = httpx.Request(
        "POST",
        "http://127.0.0.1/upload?id=x",
        data={"csrf": "tok-en_1"},
        files={"file": ("beleg.pdf", PDF, "application/pdf")},
    )
    body = request.read()
    parts = parse(request.headers["content-type"], body)
    assert parts == {
        "csrf": Part(b"tok-en_1"),
        "file": Part(PDF, "beleg.pdf", "application/pdf"),
    }


def test_data_keeps_its_own_line_ends_and_an_empty_field_is_a_field() -> None:
    parts = _form(_field("note", b"line\r\n\r\n"), _field("empty", b""))
    assert parts == {"note": Part(b"line\r\n\r\n"), "empty": Part(b"")}


@pytest.mark.parametrize(
    "content_type",
    [
        pytest.param("multipart/form-data", id="no-boundary"),
        pytest.param("multipart/form-data; boundary=", id="empty-boundary"),
        pytest.param('multipart/form-data; boundary=""', id="empty-quoted-boundary"),
        pytest.param("multipart/mixed; boundary=" + BOUNDARY, id="not-form-data"),
        pytest.param("application/x-www-form-urlencoded", id="urlencoded"),
        pytest.param("", id="no-content-type"),
        pytest.param(f"multipart/form-data; boundary={BOUNDARY[:-1]}", id="other-boundary"),
        pytest.param(f"multipart/form-data; boundary={BOUNDARY}x", id="longer-boundary"),
    ],
)
def test_a_body_under_a_missing_or_wrong_boundary_is_refused(content_type: str) -> None:
    assert parse(content_type, _body(_field("csrf", b"t"))) is None


def test_a_quoted_boundary_and_another_parameter_before_it_are_read() -> None:
    content_type = f'Multipart/Form-Data; charset=utf-8; boundary="{BOUNDARY}"'
    assert parse(content_type, _body(_field("csrf", b"t"))) == {"csrf": Part(b"t")}


def test_a_boundary_with_a_space_is_not_split_at_its_first_word() -> None:
    spaced = "abc def"
    body = f'--{spaced}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--{spaced}--'
    assert parse(f'multipart/form-data; boundary="{spaced}"', body.encode()) is None


def test_a_boundary_longer_than_seventy_characters_is_refused() -> None:
    long = "b" * 71
    body = f'--{long}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--{long}--'.encode()
    assert parse(f"multipart/form-data; boundary={long}", body) is None
    fits = long[:70]
    ok = f'--{fits}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--{fits}--'.encode()
    assert parse(f"multipart/form-data; boundary={fits}", ok) == {"a": Part(b"v")}


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"--" + BOUNDARY.encode() + b"--\r\n", id="no-parts"),
        pytest.param(b"preamble\r\n" + _body(_field("csrf", b"t")), id="preamble"),
        pytest.param(_body(_field("csrf", b"t"), close=b""), id="no-closing-delimiter"),
        pytest.param(
            _body(_field("csrf", b"t"), close=b"\r\n--" + BOUNDARY.encode() + b"\r\n"),
            id="delimiter-instead-of-close",
        ),
        pytest.param(_body(_field("csrf", b"t"))[:-20], id="cut-in-the-last-part"),
        pytest.param(_body(_field("csrf", b"t")).replace(b"\r\n", b"\n"), id="bare-lf-throughout"),
    ],
)
def test_a_body_cut_short_or_not_delimited_is_refused(body: bytes) -> None:
    assert parse(CONTENT_TYPE, body) is None


def test_parts_after_the_closing_delimiter_are_not_read_but_refuse_the_body() -> None:
    close = b"\r\n--" + BOUNDARY.encode() + b"--"
    smuggled = _body(_field("file", b"x"), close + _field("csrf", b"t") + close)
    assert parse(CONTENT_TYPE, smuggled) is None


def test_more_parts_than_the_form_has_are_refused() -> None:
    fields = [_field(f"f{i}", b"v") for i in range(MAX_PARTS)]
    assert parse(CONTENT_TYPE, _body(*fields)) is not None
    assert parse(CONTENT_TYPE, _body(*fields, _field("extra", b"v"))) is None


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(_field("csrf", b"token-of-the-page"), id="plain-twice"),
        pytest.param(
            _part(
                b'Content-Disposition: form-data; name="csrf"; filename="c.txt"',
                b"token-of-the-page",
            ),
            id="once-as-file",
        ),
    ],
)
def test_a_field_sent_twice_refuses_the_body_rather_than_picking_one(first: bytes) -> None:
    assert _form(first, _field("csrf", b"forged")) is None
    assert _form(_field("csrf", b"forged")) == {"csrf": Part(b"forged")}


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"Content-Disposition: form-data", id="no-name"),
        pytest.param(b'Content-Disposition: form-data; filename="x.pdf"', id="only-filename"),
        pytest.param(b"Content-Disposition: form-data; name=csrf", id="unquoted-name"),
        pytest.param(b'Content-Disposition: attachment; name="csrf"', id="not-form-data"),
        pytest.param(b'Content-Type: text/plain; name="csrf"', id="no-disposition"),
        pytest.param(b'Content-Disposition form-data; name="csrf"', id="line-without-colon"),
        pytest.param(
            b'Content-Disposition: form-data; name="csrf"\r\n'
            b'content-disposition: form-data; name="file"',
            id="disposition-twice",
        ),
        pytest.param(
            b'Content-Disposition: form-data; name="csrf"\r\nContent-Type: a/b\r\nContent-Type: c/d',
            id="content-type-twice",
        ),
        pytest.param(b'Content-Disposition: form-data; name="c\xffsrf"', id="not-utf8"),
        pytest.param(
            b'Content-Disposition: form-data; name="csrf"\r\nX-Pad: ' + b"a" * MAX_HEAD_BYTES,
            id="head-too-long",
        ),
        pytest.param(b"", id="no-head"),
    ],
)
def test_a_malformed_part_head_refuses_the_body(head: bytes) -> None:
    assert _form(_part(head, b"value")) is None


def test_a_part_whose_head_never_ends_is_refused() -> None:
    endless = b"\r\n--" + BOUNDARY.encode() + b'\r\nContent-Disposition: form-data; name="a"\r\nv'
    assert _form(endless) is None


def test_a_head_is_read_up_to_its_bound_and_refused_one_byte_over() -> None:
    disposition = b'Content-Disposition: form-data; name="csrf"\r\nX-Pad: '
    head = disposition + b"a" * (MAX_HEAD_BYTES - len(disposition))
    assert len(head) == MAX_HEAD_BYTES
    assert _form(_part(head, b"t")) == {"csrf": Part(b"t")}
    assert _form(_part(head + b"a", b"t")) is None


def test_a_delimiter_not_followed_by_crlf_is_refused() -> None:
    glued = b"\r\n--" + BOUNDARY.encode() + b'Content-Disposition: form-data; name="a"\r\n\r\nv'
    assert _form(glued) is None


def test_a_head_separated_from_its_data_by_bare_lf_is_refused() -> None:
    lf = b"\r\n--" + BOUNDARY.encode() + b'\r\nContent-Disposition: form-data; name="a"\n\nv'
    assert _form(lf) is None


def test_a_bare_lf_inside_a_part_head_is_refused() -> None:
    head = b'Content-Disposition: form-data; name="file"\nContent-Type: application/pdf'
    assert _form(_part(head, b"v")) is None


def test_a_disposition_with_two_names_is_refused() -> None:
    head = b'Content-Disposition: form-data; name="file"; name="csrf"'
    assert _form(_part(head, b"v")) is None


def test_a_disposition_type_that_only_starts_with_form_data_is_refused() -> None:
    head = b'Content-Disposition: form-dataX; name="csrf"'
    assert _form(_part(head, b"v")) is None


def test_a_files_name_and_declared_type_are_kept_as_sent() -> None:
    head = (
        b'Content-Disposition: form-data; name="file"; filename="Beleg M\xc3\xa4rz.pdf"\r\n'
        b"Content-Type: application/pdf"
    )
    parts = _form(_part(head, PDF))
    assert parts == {"file": Part(PDF, "Beleg März.pdf", "application/pdf")}
