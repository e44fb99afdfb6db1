"""Compact output schemas (the top level only, no ``null``), and the encoding that omits ``None``."""

from __future__ import annotations

import enum
import json
from decimal import Decimal
from typing import Annotated, Any

import jsonschema
import msgspec
import pytest

from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.tools.outputs import Omission, omission, omit_nulls, output_schema

Fenced = Annotated[str, msgspec.Meta(description="Third-party text, fenced in brackets")]


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Money(msgspec.Struct):
    amount: Decimal
    currency: str


class Line(msgspec.Struct):
    name: Fenced | None
    net: Money
    gross: Money
    colour: Colour | None = None


class Doc(msgspec.Struct):
    id: int
    number: str | None
    note: Fenced | None
    header: Fenced
    lines: list[Line]
    total: Money
    tax: Money | None
    colour: Colour
    tags: dict[str, str | None]


class Tiny(msgspec.Struct):
    a: int


class Once(msgspec.Struct):
    only: Tiny
    maybe: Annotated[int | None, msgspec.Meta(description="Maybe a number, maybe nothing")]


def _doc(**changes: Any) -> Doc:
    money = Money(Decimal("1.50"), "EUR")
    line = Line(name=None, net=money, gross=money)
    fields: dict[str, Any] = {
        "id": 1,
        "number": None,
        "note": None,
        "header": "⟦x⟧",
        "lines": [line, Line(name="⟦y⟧", net=money, gross=money, colour=Colour.BLUE)],
        "total": money,
        "tax": None,
        "colour": Colour.RED,
        "tags": {"free": None},
    }
    return Doc(**{**fields, **changes})


def test_optional_fields_are_not_required_and_have_no_null_branch() -> None:
    schema: Any = output_schema(Doc)
    assert schema["required"] == ["id", "header", "lines", "total", "colour", "tags"]
    assert schema["properties"]["number"] == {"type": "string"}
    assert '"null"' not in json.dumps(schema)


def test_the_top_level_is_named_and_typed_and_nothing_below_it() -> None:
    schema: Any = output_schema(Doc)
    assert schema["properties"] == {
        "id": {"type": "integer"},
        "number": {"type": "string"},
        "note": {"type": "string"},  # described (fenced text): the description is left out
        "header": {"type": "string"},
        "lines": {"type": "array"},
        "total": {"type": "object"},
        "tax": {"type": "object"},
        "colour": {"type": "string"},  # enum values are left out
        "tags": {"type": "object"},
    }
    assert "$defs" not in schema and "$ref" not in json.dumps(schema)
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_described_optional_field_is_just_its_type() -> None:
    schema: Any = output_schema(Once)
    assert schema["properties"] == {"only": {"type": "object"}, "maybe": {"type": "integer"}}
    assert schema["required"] == ["only"]


def test_encoded_outputs_without_nulls_validate() -> None:
    data = msgspec.to_builtins(_doc())
    omit_nulls(data, omission(Doc))
    assert "number" not in data and "note" not in data and "tax" not in data
    assert "name" not in data["lines"][0] and data["lines"][1]["name"] == "⟦y⟧"
    assert "colour" not in data["lines"][0] and data["lines"][1]["colour"] == "blue"
    assert data["tags"] == {"free": None}  # free-form values are data, left alone
    jsonschema.validate(data, output_schema(Doc))


def test_present_optional_values_are_kept() -> None:
    data = msgspec.to_builtins(_doc(number="RE-1", tax=Money(Decimal(0), "EUR")))
    omit_nulls(data, omission(Doc))
    assert data["number"] == "RE-1" and data["tax"] == {"amount": "0", "currency": "EUR"}


def test_a_struct_without_optional_fields_needs_no_plan() -> None:
    assert omission(Tiny) is None
    value: Any = {"a": None}
    omit_nulls(value, None)
    assert value == {"a": None}


def test_the_plan_names_keys_and_nested_values() -> None:
    plan = omission(Doc)
    assert plan is not None
    assert plan.keys == ("number", "note", "tax")
    assert dict(plan.nested)["lines"] == Omission(keys=("name", "colour"), nested=())


class Node(msgspec.Struct):
    label: str | None
    children: list[Node]


def test_recursive_structs_are_described_once_and_their_nulls_omitted() -> None:
    schema: Any = output_schema(Node)
    assert schema["properties"] == {"label": {"type": "string"}, "children": {"type": "array"}}
    data = msgspec.to_builtins(Node(label=None, children=[Node(label="x", children=[])]))
    omit_nulls(data, omission(Node))
    assert data == {"children": [{"label": "x", "children": []}]}
    jsonschema.validate(data, schema)


class Deep(msgspec.Struct):
    inner: Once
    rows: list[NullItemsInside]


class NullItemsInside(msgspec.Struct):
    values: list[int | None]


class NullItems(msgspec.Struct):
    values: list[int | None]


class TwoTypes(msgspec.Struct):
    value: int | str


@pytest.mark.parametrize(
    ("struct", "fragment"),
    [(NullItems, "None only"), (TwoTypes, "X | None"), (Deep, "NullItemsInside.values")],
)
def test_none_stands_only_as_an_optional_field(struct: type, fragment: str) -> None:
    with pytest.raises(ToolDefinitionError, match=fragment.replace("|", r"\|")):
        output_schema(struct)
