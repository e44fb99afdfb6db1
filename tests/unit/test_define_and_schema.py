"""``define_tool`` rules and the generated schemas."""

from __future__ import annotations

import datetime as dt
import enum
from decimal import Decimal
from typing import Annotated, Any

import msgspec
import pytest

from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import define_tool
from sevdesk_mcp.tools.definitions import ALL_TOOLS
from sevdesk_mcp.tools.outputs import output_schema
from sevdesk_mcp.tools.schema import DECIMAL_PATTERN, input_schema
from tests.tool_fixtures import LOOKUP, READ, WRITE, Found, NoInput, _lookup

Short = Annotated[str, msgspec.Meta(max_length=5)]


def test_input_schema_is_flat_typed_and_bounded() -> None:
    assert LOOKUP.input_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 20, "description": "What to look for"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "amount": {"type": ["string", "number"], "pattern": DECIMAL_PATTERN},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 10}, "maxItems": 3},
        },
        "required": ["query"],
    }  # unknown arguments are refused by the server; only an empty object says so (ADR 0007)


def test_a_tool_without_arguments_says_so() -> None:
    assert input_schema(NoInput) == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_output_schema_describes_the_top_level_only() -> None:
    schema: Any = output_schema(Found)
    assert "$ref" not in str(schema)
    assert "$defs" not in schema
    assert schema["properties"]["lines"] == {"type": "array"}


class Colour(enum.Enum):
    RED = "red"


class Everything(msgspec.Struct):
    when: dt.date
    stamp: dt.datetime
    ok: bool
    ratio: float
    maybe: Short | None
    colour: Colour
    level: Annotated[int, msgspec.Meta(gt=0, lt=10)]
    free: dict[str, str]
    amount: Decimal


def test_output_schema_covers_the_scalar_types() -> None:
    props = output_schema(Everything)["properties"]
    assert props == {
        "when": {"type": "string"},
        "stamp": {"type": "string"},
        "ok": {"type": "boolean"},
        "ratio": {"type": "number"},
        "maybe": {"type": "string"},  # optional: omitted, never null
        "colour": {"type": "string"},
        "level": {"type": "integer"},
        "free": {"type": "object"},
        "amount": {"type": "string"},
    }


class Loose(msgspec.Struct):
    a: Short


class Unbounded(msgspec.Struct, forbid_unknown_fields=True):
    a: str


class NoIntBounds(msgspec.Struct, forbid_unknown_fields=True):
    a: Annotated[int, msgspec.Meta(ge=0)]


class Floaty(msgspec.Struct, forbid_unknown_fields=True):
    a: float


class Nested(msgspec.Struct, forbid_unknown_fields=True):
    a: Loose


class ListUnbounded(msgspec.Struct, forbid_unknown_fields=True):
    a: list[Short]


class ListNested(msgspec.Struct, forbid_unknown_fields=True):
    a: Annotated[
        list[Annotated[list[Short], msgspec.Meta(max_length=2)]], msgspec.Meta(max_length=2)
    ]


class Union(msgspec.Struct, forbid_unknown_fields=True):
    a: Short | Annotated[int, msgspec.Meta(ge=0, le=1)]


class AnyField(msgspec.Struct, forbid_unknown_fields=True):
    a: Any


class Row(msgspec.Struct, forbid_unknown_fields=True):
    name: Short
    amount: Decimal


class LooseRow(msgspec.Struct):
    name: Short


class RowWithList(msgspec.Struct, forbid_unknown_fields=True):
    names: Annotated[list[Short], msgspec.Meta(max_length=2)]


class Rows(msgspec.Struct, forbid_unknown_fields=True):
    rows: Annotated[list[Row], msgspec.Meta(max_length=3)]


class LooseRows(msgspec.Struct, forbid_unknown_fields=True):
    rows: Annotated[list[LooseRow], msgspec.Meta(max_length=3)]


class RowsWithLists(msgspec.Struct, forbid_unknown_fields=True):
    rows: Annotated[list[RowWithList], msgspec.Meta(max_length=3)]


def test_a_top_level_list_of_flat_rows_is_allowed_and_inlined() -> None:
    schema = input_schema(Rows)["properties"]
    assert isinstance(schema, dict)
    assert schema["rows"] == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 5},
                "amount": {"type": ["string", "number"], "pattern": DECIMAL_PATTERN},
            },
            "required": ["name", "amount"],
        },
        "maxItems": 3,
    }


@pytest.mark.parametrize(
    ("struct", "fragment"),
    [
        (Loose, "forbid_unknown_fields"),
        (Unbounded, "max_length"),
        (NoIntBounds, "ge=..., le=..."),
        (Floaty, "FloatType"),
        (Nested, "StructType"),
        (ListUnbounded, "max_length"),
        (ListNested, "no nesting"),
        (Union, "unions"),
        (AnyField, "AnyType"),
        (LooseRows, "input rows need forbid_unknown_fields"),
        (RowsWithLists, "no nesting"),
    ],
)
def test_input_structs_that_cannot_be_flat_and_bounded_are_refused(
    struct: type[msgspec.Struct], fragment: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=fragment.replace(".", r"\.")):
        input_schema(struct)


def _define(**overrides: Any) -> None:
    spec: dict[str, Any] = {
        "name": "sevdesk_ok",
        "title": "Okay",
        "description": "A perfectly fine description.",
        "toolset": "t",
        "tier": Tier.READ,
        "annotations": READ,
        "input": NoInput,
        "output": Found,
        "handler": _lookup,
    }
    define_tool(**{**spec, **overrides})


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"name": "lookup"}, "names are"),
        ({"name": "sevdesk_Bad"}, "names are"),
        ({"name": "sevdesk_" + "x" * 33}, "names are"),
        ({"name": "sevdesk_dot.name"}, "names are"),
        ({"description": "short"}, "description"),
        ({"description": "x" * 1025}, "description"),
        ({"title": ""}, "title"),
        ({"title": "x" * 61}, "title"),
        ({"tier": Tier.WRITE}, "readOnlyHint"),
        ({"annotations": WRITE}, "readOnlyHint"),
    ],
)
def test_define_tool_refuses_broken_declarations(overrides: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ToolDefinitionError, match=fragment):
        _define(**overrides)


def test_a_valid_declaration_passes() -> None:
    _define(name="sevdesk_" + "x" * 32)


def test_every_shipped_tool_has_valid_schemas() -> None:
    for tool in ALL_TOOLS:  # built on first use, so a broken one would only fail at tools/list
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema["type"] == "object", tool.name
