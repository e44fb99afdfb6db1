"""The quick paths of ``wire.parse`` give what the full cleaning and range check give."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec
import pytest

from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.sevdesk import bounds, fits, wire
from sevdesk_mcp.sevdesk.wire_documents import Document
from sevdesk_mcp.sevdesk.wire_finance import CheckAccountTransaction, Voucher

EDGES: list[object] = [
    None,
    "",
    "x",
    True,
    0,
    1,
    -1,
    bounds.LIMIT - 1,
    bounds.LIMIT,
    -bounds.LIMIT,
    Decimal("1.5"),
    Decimal(bounds.LIMIT),
    Decimal(bounds.LIMIT - 1),
    Decimal("-1e15"),
    Decimal("NaN"),
    Decimal("Infinity"),
    dt.datetime(1899, 12, 31, 23, 0),
    dt.datetime(1900, 1, 1),
    dt.datetime(2199, 12, 31),
    dt.datetime(2200, 1, 1),
    dt.date(1899, 1, 1),
    dt.date(2026, 1, 1),
    wire.Ref(id=0),
    wire.Ref(id=1),
    wire.Ref(id=bounds.LIMIT),
    [wire.Ref(id=0)],
]


class _Probe(msgspec.Struct, frozen=True):
    id: object = 1
    accountDatevId: object = None
    status: object = None
    amount: object = None


@pytest.mark.parametrize("value", EDGES)
@pytest.mark.parametrize("field", ["id", "accountDatevId", "status", "amount"])
def test_the_quick_range_check_never_passes_what_the_full_check_refuses(
    field: str, value: object
) -> None:
    probe = _Probe(**{field: value})
    if fits.fits(probe):
        assert bounds.problem(probe) is None


def test_the_quick_range_check_passes_ordinary_records() -> None:
    voucher = wire.parse(
        {
            "id": "7",
            "voucherDate": "2026-03-01T00:00:00+01:00",
            "supplier": {"id": "3", "objectName": "Contact"},
            "sumGross": "119.00",
            "paidAmount": 0,
            "status": "100",
        },
        Voucher,
    )
    assert fits.fits(voucher)


class _Few(msgspec.Struct, frozen=True):
    id: int
    update: dt.datetime | None = None


RAW_INVOICE: dict[str, object] = {
    "id": "5",
    "objectName": "Invoice",
    "status": "200",
    "contact": {"id": "3", "objectName": "Contact", "extra": ""},
    "invoiceNumber": "RE-1",
    "sendType": "",
    "header": "",
    "sumGross": "119.00",
    "paidAmount": 0,
    "taxRate": "",
    "unknownList": ["", {"a": ""}],
}


NESTED_EMPTY = {k: v for k, v in RAW_INVOICE.items() if v != ""}  # only inside ``contact``
NO_EMPTY = {**NESTED_EMPTY, "contact": {"id": "3", "objectName": "Contact"}}


@pytest.mark.parametrize("raw", [RAW_INVOICE, NESTED_EMPTY, NO_EMPTY])
@pytest.mark.parametrize("kind", [Document, Voucher, CheckAccountTransaction, wire.Ref, _Few])
def test_parse_equals_converting_the_fully_cleaned_object(
    kind: type[msgspec.Struct], raw: dict[str, object]
) -> None:
    expected = msgspec.convert(wire._clean(raw), kind, strict=False)  # type: ignore[arg-type]
    assert wire.parse(raw, kind) == expected  # type: ignore[arg-type]


def test_empty_strings_anywhere_read_as_unset() -> None:
    doc = wire.parse({"id": "5", "header": "", "contact": {"id": "3", "objectName": ""}}, Document)
    assert doc.header is None
    assert doc.contact == wire.Ref(id=3)
    few = wire.parse({"id": "5", "update": "", **{f"k{n}": n for n in range(9)}}, _Few)
    assert few.update is None


def test_an_out_of_range_value_is_still_named() -> None:
    with pytest.raises(MalformedResponseError, match=r"`contact\.id` is not an id"):
        wire.parse({"id": "5", "contact": {"id": "0", "objectName": "Contact"}}, Document)
    with pytest.raises(MalformedResponseError, match="`sumGross` is out of range"):
        wire.parse({"id": "5", "sumGross": "1e15"}, Document)
    with pytest.raises(MalformedResponseError, match="`invoiceDate` is not a date"):
        wire.parse({"id": "5", "invoiceDate": "2200-01-01T00:00:00+01:00"}, Document)
