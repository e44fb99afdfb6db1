"""A page read straight from its JSON into its schema (``parsed.straight``) gives exactly the
records the dict path (``wire.parse`` after decoding into dicts) gives, or gives nothing and
leaves the page to the dict path; checked over generated records with sevDesk's quirks
(strings for numbers, empty strings for unset values, numbers for amounts, nested relations)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.sevdesk import parsed, wire
from sevdesk_mcp.sevdesk.envelope import decoded, many, objects_of
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.wire_documents import Document, OpenDocument

KINDS: list[type[msgspec.Struct]] = [
    Document,
    OpenDocument,  # read without the substitution of empty strings first
    wire.Contact,
    wire.ContactName,  # the same
    wire.CommunicationWay,
    wire.Ref,
]
_TEXT = st.text(alphabet=' "\\:,{}[]aZ09.-+eE\u00e4', max_size=8)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**16), max_value=10**16),
    st.sampled_from(["", " ", "0", "1", "1000", "-5", "65.45", "-0.350", "1e3", "NaN", "true"]),
    st.sampled_from(["2024-01-05T00:00:00+01:00", "2024-01-05", "9999-01-01", "1899-12-31"]),
    st.sampled_from(["1700000000", "0x10", "1_000", "\u0663", " 7", "14 "]),
    _TEXT,
)


def _objects(value: object) -> msgspec.Raw:
    return objects_of(200, msgspec.json.encode({"objects": value}))


_REF = st.fixed_dictionaries(
    {"id": st.sampled_from(["3", 3, "", "0", None])},
    optional={"objectName": st.sampled_from(["Contact", "", None])},
)
_BY_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "int": st.sampled_from(["1", "42", 7, "-3", "", None, " 7", "0"]),
    "Decimal": st.one_of(
        st.sampled_from(["65.45", "-0.350", "0", 0, "", None, "1e400"]),
        st.decimals(-(10**16), 10**16, allow_nan=False, allow_infinity=False, places=2),
    ),
    "datetime": st.sampled_from(
        ["2026-11-27T00:00:00+01:00", "2026-11-27", "", None, "1800-01-01"]
    ),
    "bool": st.sampled_from(["0", "1", True, False, "", None, "yes"]),
    "Ref": st.one_of(_REF, st.just(""), st.none()),
    "str": st.one_of(_TEXT, _TEXT, _TEXT, st.none()),
}


def _field_values(kind: type[msgspec.Struct]) -> dict[str, st.SearchStrategy[Any]]:
    """:returns: per wire name a strategy of values of its type, now and then another one."""
    out: dict[str, st.SearchStrategy[Any]] = {"objectName": _TEXT, "unknown": _SCALARS}
    for field in msgspec.structs.fields(kind):
        text = str(field.type)
        fitting = [v for k, v in _BY_TYPE.items() if k in text] or [_SCALARS]
        odd = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=2), _REF)
        out[field.encode_name] = st.one_of(*fitting, *fitting, *fitting, odd)
    return out


@st.composite
def _records(draw: st.DrawFn, kind: type[msgspec.Struct]) -> list[dict[str, Any]]:
    """Records over ``kind``'s field names, mostly of their types; a JSON number with a
    fraction only where ``kind`` reads a decimal (elsewhere the two paths differ on purpose,
    see below)."""
    values = _field_values(kind)
    names = sorted(values)
    good_id = st.sampled_from(["1", "42", 7])
    ids = st.one_of(good_id, good_id, good_id, st.sampled_from(["", "0", None, "x"]))
    required = [f.encode_name for f in msgspec.structs.fields(kind) if f.required]
    rows = []
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        row: dict[str, Any] = {name: draw(values[name]) for name in required}
        row["id"] = draw(ids)
        for name in draw(st.lists(st.sampled_from(names), max_size=6, unique=True)):
            row[name] = draw(values[name])
        rows.append(row)
    return rows


def _dict_path(objects: msgspec.Raw, kind: type[msgspec.Struct]) -> list[Any] | str:
    try:
        return wire.parse_all(many(decoded(objects)), kind)
    except MalformedResponseError as exc:
        return str(exc)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@given(data=st.data())
def test_straight_records_equal_the_dict_path(kind: type[msgspec.Struct], data: Any) -> None:
    rows = data.draw(_records(kind))
    objects = _objects(rows)
    straight = parsed.straight(objects, kind)
    if straight is not None:
        assert straight == _dict_path(objects, kind)


def test_straight_reads_real_pages_and_empty_strings_as_unset() -> None:
    row = {
        "id": "5",
        "status": "200",
        "sendType": "",
        "header": 'says "x:""" and :"" inside',
        "contact": {"id": "3", "objectName": "Contact"},
        "sumGross": "119.00",
        "paidAmount": 87.49,
        "timeToPay": "",
        "invoiceDate": "2026-11-27T00:00:00+01:00",
    }
    spaced = msgspec.Raw(b'[{"id": "6", "header" :  "", "taxRule": ""}]')
    assert parsed.straight(spaced, Document) == [Document(id=6)]
    objects = _objects([row])
    records = parsed.straight(objects, Document)
    assert records is not None and records == _dict_path(objects, Document)
    first = records[0]
    assert isinstance(first, Document)
    assert first.header == 'says "x:""" and :"" inside'
    assert first.timeToPay is None and first.paidAmount == Decimal("87.49")


@pytest.mark.parametrize(
    "objects",
    [
        b'{"id": "1"}',  # a bare object: the dict path takes it as a list of one (Q6)
        b"null",
        b'[{"id": "0"}]',  # out of range: the dict path names the field
        b'[{"id": "1", "sumNet": "1e400"}]',
        b'[{"id": "1", "contact": {"id": ""}}]',  # an empty id of a relation
        b'[{"id": "1", "invoiceDate": "1800-01-01"}]',
        b"[" * 600 + b"]" * 600,
    ],
)
def test_what_straight_cannot_read_goes_the_dict_path(objects: bytes) -> None:
    raw = msgspec.Raw(objects)
    assert parsed.straight(raw, Document) is None
    rows = parsed.Rows.read(raw, Document) if objects.startswith(b'{"id"') else None
    assert rows is None or rows.records == [Document(id=1)]


def test_a_number_with_a_fraction_in_a_whole_number_field_is_the_one_difference() -> None:
    objects = msgspec.Raw(b'[{"id": "1", "status": 1e3}]')
    assert parsed.straight(objects, Document) == [Document(id=1, status=1000)]
    assert isinstance(_dict_path(objects, Document), str)  # refused: read as a decimal first


class _Defaulted(msgspec.Struct):
    id: int
    count: int | None = 5


class _Required(msgspec.Struct):
    id: int
    name: str | None


class _Mapping(msgspec.Struct):
    id: int
    labels: dict[str, str | None] = {}


class _Fine(msgspec.Struct):
    id: int
    refs: list[wire.Ref] = []
    labels: dict[str, str] = {}
    when: dt.date | None = None


@pytest.mark.parametrize("kind", [_Defaulted, _Required, _Mapping])
def test_a_schema_where_null_and_absent_differ_is_not_read_straight(
    kind: type[msgspec.Struct],
) -> None:
    assert parsed.straight(msgspec.Raw(b'[{"id": "1"}]'), kind) is None


def test_a_schema_where_null_and_absent_agree_is_read_straight() -> None:
    raw = msgspec.Raw(b'[{"id": "1", "refs": [{"id": "2"}], "labels": {"a": "b"}, "when": ""}]')
    assert parsed.straight(raw, _Fine) == [_Fine(id=1, refs=[wire.Ref(id=2)], labels={"a": "b"})]


def test_a_page_read_straight_builds_its_dicts_only_when_asked() -> None:
    built: list[int] = []

    def items() -> list[dict[str, Any]]:
        built.append(1)
        return [{"id": "1"}]

    page = Page.later(items, truncated=False, parsed=None)
    assert built == []
    assert page.items == [{"id": "1"}] and page.items == [{"id": "1"}]
    assert built == [1]


class _Listed(msgspec.Struct):
    id: int
    tags: list[str] = []
    kind: str = ""


@pytest.mark.parametrize(
    ("kind", "without"),
    [
        (OpenDocument, True),
        (wire.ContactName, True),
        (_Listed, True),  # text in a list is no member; an empty default reads the same
        (wire.Ref, True),
        (Document, False),  # its text may be empty
        (wire.Contact, False),
        (_Fine, False),  # a dict's values are members
    ],
)
def test_only_schemas_that_read_no_empty_text_skip_the_substitution(
    kind: type[msgspec.Struct], without: bool
) -> None:
    assert parsed._reads_no_empty_text(kind) is without


@pytest.mark.parametrize("field", ["currency", "sumGross", "contact", "timeToPay"])
def test_an_empty_string_where_a_lean_schema_reads_is_read_again_as_unset(field: str) -> None:
    row = {"id": "5", "status": "200", "currency": "EUR", "sumGross": "119.00", field: ""}
    objects = _objects([row, {"id": "6", "header": "", "sendType": ""}])
    records = parsed.straight(objects, OpenDocument)
    assert records is not None and records == _dict_path(objects, OpenDocument)
    assert getattr(records[0], field) is None
