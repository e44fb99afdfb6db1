"""The quick range checks (``fits``) never pass what the full check (``bounds.problem``) refuses
(threat case S06), object by object and a page column by column, whatever the fields hold."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sevdesk_mcp.sevdesk import bounds, fits, parsed, wire
from sevdesk_mcp.sevdesk.wire_documents import Document, OpenDocument, Position
from tests.sevdesk.test_wire_parse import EDGES


class _Inner(msgspec.Struct, frozen=True):
    id: int = 1
    amount: Decimal | None = None


class _Typed(msgspec.Struct, frozen=True):
    """Fields of each kind a column check covers; a struct built without validation, so a field
    may hold anything."""

    id: int = 1
    status: int | None = None
    partnerId: int | None = None
    sumGross: Decimal | None = None
    when: dt.datetime | None = None
    day: dt.date | None = None
    contact: wire.Ref | None = None
    inner: _Inner | None = None
    days: wire.Days | None = None
    name: str | None = None
    label: wire.Text | None = None  # text: neither check looks at it


_ANY = st.sampled_from([*EDGES, _Inner(), _Inner(id=0), _Inner(amount=Decimal("NaN"))])
_RECORDS = st.lists(
    st.builds(_Typed, **{name: _ANY for name in _Typed.__struct_fields__}), max_size=4
)


@pytest.mark.threat("S06")
@given(records=_RECORDS)
def test_a_page_the_full_check_refuses_never_fits_by_columns(records: list[_Typed]) -> None:
    if any(bounds.problem(r) is not None for r in records):  # most drawn pages
        assert not fits.all_fit(records, _Typed)
    elif fits.all_fit(records, _Typed):  # the columns are the stricter of the two quick checks
        assert all(map(fits.fits, records))


@pytest.mark.threat("S06")
@given(records=_RECORDS)
def test_an_object_the_full_check_refuses_never_fits(records: list[_Typed]) -> None:
    for record in records:
        if bounds.problem(record) is not None:
            assert not fits.fits(record)


@pytest.mark.threat("S06")
@pytest.mark.parametrize(
    "bad",
    [
        _Typed(id=0),
        _Typed(status=bounds.LIMIT),
        _Typed(partnerId=-1),
        _Typed(sumGross=Decimal("Infinity")),
        _Typed(sumGross=Decimal(-bounds.LIMIT)),
        _Typed(when=dt.datetime(2200, 1, 1)),
        _Typed(day=dt.date(1899, 12, 31)),
        _Typed(contact=wire.Ref(id=0)),
        _Typed(inner=_Inner(amount=Decimal("sNaN"))),
        _Typed(days=bounds.LIMIT),
        _Typed(status=True),  # a flag where a whole number belongs: the full check decides
    ],
)
def test_one_bad_value_among_good_ones_fails_the_columns(bad: _Typed) -> None:
    assert not fits.all_fit([_Typed(), bad, _Typed(sumGross=Decimal("1.5"))], _Typed)


def _page(kind: type[msgspec.Struct]) -> list[Any]:
    row = {
        "id": "7",
        "status": "200",
        "contact": {"id": "3", "objectName": "Contact"},
        "invoiceDate": "2026-03-01T00:00:00+01:00",
        "currency": "EUR",
        "sumGross": "119.00",
        "paidAmount": 0,
        "timeToPay": "14",
    }
    records = parsed.straight(msgspec.Raw(msgspec.json.encode([row] * 3)), kind)
    assert records is not None
    return records


@pytest.mark.parametrize("kind", [OpenDocument, Document])
def test_real_pages_pass_by_columns(kind: type[msgspec.Struct]) -> None:
    assert fits.all_fit(_page(kind), kind)


def test_a_schema_with_a_field_no_column_covers_goes_object_by_object() -> None:
    assert fits._columns(Position) is None  # ``quantity`` is a decimal or a flag
    assert fits.all_fit([Position(id=1, quantity=True)], Position)
    assert not fits.all_fit([Position(id=1, quantity=Decimal("NaN"))], Position)
