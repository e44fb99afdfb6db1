"""Units of the fake: value formats, input parsing, routing, the PDF and the store."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake.coerce import (
    parse_body,
    parse_date,
    parse_datetime,
    parse_decimal,
    parse_flag,
    parse_form,
    parse_int,
    parse_ref,
    parse_text,
)
from sevdesk_mcp.fake.documents import Invoice, InvoicePos
from sevdesk_mcp.fake.pdf import tiny_pdf
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.transport import api_path
from sevdesk_mcp.fake.wire import (
    BERLIN,
    FakeError,
    Ref,
    error_in_http_200,
    iso,
    money,
    number,
    scalar,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [("65.450", "65.45"), ("55.00", "55"), ("-15", "-15"), ("100", "100"), ("0.00", "0"),
     ("-0", "0"), ("1E+3", "1000"), ("0.350", "0.35")],
)  # fmt: skip
def test_money_is_plain(value: str, text: str) -> None:
    assert money(Decimal(value)) == text


def test_numbers_and_scalars() -> None:
    assert number(Decimal("87.49")) == 87.49 and number(Decimal("12.00")) == 12
    assert scalar(True) == "1" and scalar(False) == "0" and scalar(7) == "7"
    assert scalar(7, as_number=True) == 7 and scalar(None) is None
    assert scalar(date(2026, 3, 1)) == "2026-03-01"
    assert scalar(Ref("Category", 3)) == {"id": "3", "objectName": "Category"}
    with pytest.raises(TypeError, match="no wire form for float"):
        scalar(1.5)


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (datetime(2026, 1, 15, 12, tzinfo=BERLIN), "2026-01-15T12:00:00+01:00"),
        (datetime(2026, 8, 15, 12, tzinfo=BERLIN), "2026-08-15T12:00:00+02:00"),
        (datetime(2026, 3, 29, 1, 30, tzinfo=BERLIN), "2026-03-29T01:30:00+01:00"),
        (datetime(2026, 3, 29, 3, 30, tzinfo=BERLIN), "2026-03-29T03:30:00+02:00"),
        (datetime.fromisoformat("2026-10-25T00:30:00+00:00"), "2026-10-25T02:30:00+02:00"),
        (datetime.fromisoformat("2026-10-25T01:30:00+00:00"), "2026-10-25T02:30:00+01:00"),
    ],
)
def test_iso_uses_the_berlin_offset_of_the_instant(moment: datetime, text: str) -> None:
    """Q20, including both daylight-saving switches of 2026."""
    assert iso(moment) == text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("01.10.2026", "2026-10-01T00:00:00+02:00"),
        ("1.2.2026", "2026-02-01T00:00:00+01:00"),
        (1790805600, "2026-10-01T00:00:00+02:00"),
        ("1790805600", "2026-10-01T00:00:00+02:00"),
        ("2026-09-29T12:00:00+02:00", "2026-09-29T12:00:00+02:00"),
        ("2026-09-29T10:00:00Z", "2026-09-29T12:00:00+02:00"),
        ("2026-12-24", "2026-12-24T00:00:00+01:00"),
    ],
)
def test_dates_in_every_accepted_form(value: object, expected: str) -> None:
    """Q18: dd.mm.yyyy is Berlin midnight; Unix seconds; ISO (naive means Berlin)."""
    assert iso(parse_datetime(value, "d")) == expected


@pytest.mark.parametrize("value", ["31.02.2026", "yesterday", 1.5, True, None, [1]])
def test_bad_dates_are_400(value: object) -> None:
    with pytest.raises(FakeError) as caught:
        parse_datetime(value, "invoiceDate")
    assert caught.value.status == 400 and "invoiceDate" in caught.value.message


def test_parse_date_is_the_berlin_day() -> None:
    assert parse_date("2026-09-30T23:30:00+00:00", "d") == date(2026, 10, 1)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), (1, True), (0, False), ("1", True), ("0", False),
     ("true", True), ("FALSE", False)],
)  # fmt: skip
def test_flags_in(value: object, expected: bool) -> None:
    assert parse_flag(value, "f") is expected


@pytest.mark.parametrize("value", ["yes", 2, None, 1.0, {}])
def test_bad_flags_are_400(value: object) -> None:
    with pytest.raises(FakeError):
        parse_flag(value, "f")


def test_numbers_and_text_in() -> None:
    assert parse_int(" 42 ", "i") == 42 and parse_int(-3, "i") == -3
    assert parse_decimal(2.5, "d") == Decimal("2.5") and parse_decimal("10.00", "d") == 10
    assert parse_text(12, "t") == "12" and parse_text(True, "t") == "1"
    for bad_int in ("4.2", True, None):
        with pytest.raises(FakeError):
            parse_int(bad_int, "i")
    for bad_decimal in ("abc", "NaN", "Infinity", True, [1]):
        with pytest.raises(FakeError):
            parse_decimal(bad_decimal, "d")
    with pytest.raises(FakeError):
        parse_text({"a": 1}, "t")


@pytest.mark.parametrize(
    ("value", "kind"),
    [(3, "integer"), ("3", "string"), ({"id": 3}, "array"), (True, "boolean"), ([3], "array")],
)
def test_refs_need_id_and_object_name(value: object, kind: str) -> None:
    """Q34/Q38: the parser-style message names what was given."""
    with pytest.raises(FakeError) as caught:
        parse_ref(value, "contact")
    assert (
        caught.value.message == f"contact expected array with 'id' and 'objectName'. {kind} given"
    )
    assert parse_ref({"id": "5", "objectName": "Contact"}, "c") == Ref("Contact", 5)


def test_form_bodies_nest_by_brackets() -> None:
    body = (
        b"voucher[taxRule][id]=9&voucher[taxRule][objectName]=TaxRule&voucher[mapAll]=true"
        b"&voucherPosSave[0][sumNet]=10&voucherPosSave[1][sumNet]=20&tags[]=a&tags[]=b&plain="
    )
    assert parse_form(body) == {
        "voucher": {"taxRule": {"id": "9", "objectName": "TaxRule"}, "mapAll": "true"},
        "voucherPosSave": [{"sumNet": "10"}, {"sumNet": "20"}],
        "tags": ["a", "b"],
        "plain": "",
    }
    with pytest.raises(FakeError):
        parse_form(b"0=a&1=b")


@pytest.mark.parametrize(
    ("raw", "content_type", "expected"),
    [
        (b"", "application/json", {}),
        (b"  ", "application/json", {}),
        (b'{"a": 1}', "application/json", {"a": 1}),
        (b"a=1", "application/x-www-form-urlencoded; charset=utf-8", {"a": "1"}),
    ],
)
def test_bodies(raw: bytes, content_type: str, expected: dict[str, Any]) -> None:
    assert parse_body(raw, content_type) == expected


def test_errors_inside_http_200() -> None:
    """§1 Errors: code 390 comes as HTTP 200 with an error body."""
    error = error_in_http_200("Invoice is partially paid", 390)
    assert error.http_status == 200
    assert error.body()["error"] == {
        "exceptionUUID": "00000000-0000-0000-0000-000000000000",
        "message": "Invoice is partially paid",
        "errorCode": 0,
        "code": 390,
        "data": [],
        "responseCode": 200,
    }


def test_tiny_pdf_has_a_valid_cross_reference_table() -> None:
    pdf = tiny_pdf("Invoice RE-1001 (Entwurf) \\ ü")
    assert pdf.startswith(b"%PDF-1.4\n") and pdf.endswith(b"%%EOF\n")
    xref_at = int(pdf.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert pdf[xref_at:].startswith(b"xref\n0 6\n")
    offsets = [int(m) for m in re.findall(rb"(\d{10}) 00000 n", pdf)]
    for number_, offset in enumerate(offsets, start=1):
        assert pdf[offset:].startswith(b"%d 0 obj" % number_)
    assert b"\\(Entwurf\\) \\\\" in pdf


def test_literal_routes_win_over_parameters() -> None:
    router = Router()

    @router.route("GET", "/Thing/{id}")
    def by_id(ctx: Context) -> Reply:
        return Reply({"objects": ctx.params["id"]})

    literal = Router()

    @literal.route("GET", "/Thing/Factory")
    def factory(ctx: Context) -> Reply:
        return Reply({"objects": "factory"})

    joined = Router().include(router, literal)
    assert joined.match("GET", "/Thing/Factory")[0] is factory
    handler, params = joined.match("GET", "/Thing/12")
    assert handler is by_id and params == {"id": "12"}
    with pytest.raises(FakeError):
        joined.match("GET", "/Thing/12/more")


@pytest.mark.parametrize(
    ("raw", "path"),
    [("/api/v1/Contact", "/Contact"), ("/x/api/v1/Contact/", "/Contact"), ("/Contact", "/Contact"),
     ("/api/v1", "/"), ("/", "/")],
)  # fmt: skip
def test_api_path(raw: str, path: str) -> None:
    assert api_path(raw) == path


def test_store_clock_ids_and_numbers() -> None:
    store = Store(date(2026, 7, 1), "2.0")
    first, second = store.now(), store.now()
    assert (second - first).total_seconds() == 1 and iso(first) == "2026-07-01T09:00:01+02:00"
    invoice = store.add(store.invoices, Invoice(invoiceDate=first))
    assert invoice.id == 700001 and store.revision == 1
    assert store.next_number("RE-") == "RE-1001" and store.next_number("RE-") == "RE-1002"
    store.invoices.insert(Invoice(id=700010, invoiceDate=first))
    assert store.add(store.invoices, Invoice(invoiceDate=first)).id == 700011
    store.remove(store.invoices, invoice)
    assert store.invoices.find(invoice.id) is None and len(store.invoices) == 2
    position = InvoicePos(invoice=Ref("Invoice", 700010), quantity=Decimal("2.5"),
                          price=Decimal("10.01"), taxRate=Decimal(19))  # fmt: skip
    position.compute()
    assert (position.sumNet, position.sumTax, position.sumGross) == (
        Decimal("25.03"), Decimal("4.76"), Decimal("29.79"),
    )  # fmt: skip
    assert position.sumGrossAccounting == position.sumGross
