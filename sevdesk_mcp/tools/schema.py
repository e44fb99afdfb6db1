"""JSON Schemas of tool inputs generated from msgspec Structs, in the shape clients handle well.

Input schemas are flat (wire digest section 7.10): an object root, typed primitive properties
(strings, integers, booleans, enums, decimals as strings or exact numbers, dates) and arrays
of primitives; no ``$ref``, no composition, no floats. The one nesting allowed is a top-level
array of flat rows (objects of primitives, inlined), for document positions (docs/adr/0003).
Every string and list needs a ``max_length`` and every integer both bounds, so no argument is
unbounded (J07).
Output schemas are built by :mod:`sevdesk_mcp.tools.outputs` from the scalars defined here.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec
import msgspec.inspect as mi

from sevdesk_mcp.domain.records import MAX_ID
from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.mcp.types import JsonObject, JsonValue

DECIMAL_PATTERN: Final = r"^-?[0-9]+(\.[0-9]+)?$"


def struct_info(struct: type[msgspec.Struct] | mi.StructType) -> mi.StructType:
    """:returns: the inspected form of ``struct`` (inspected types pass through)."""
    if isinstance(struct, mi.StructType):
        return struct
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)  # struct is a Struct type
    return info


def input_schema(struct: type[msgspec.Struct] | mi.StructType) -> JsonObject:
    """:returns: the flat input schema of ``struct`` (a Struct type or its inspected form).

    :raises ToolDefinitionError: if a field cannot be expressed flat and bounded.
    """
    info = struct_info(struct)
    if not info.forbid_unknown_fields:
        raise ToolDefinitionError(f"{info.cls.__name__}: input Structs need forbid_unknown_fields")
    return _object(info, where=info.cls.__name__)


def _object(info: mi.StructType, *, where: str, nested: bool = False) -> JsonObject:
    properties: JsonObject = {}
    required: list[JsonValue] = []
    for field in info.fields:
        inner = f"{where}.{field.name}"
        properties[field.encode_name] = _schema(field.type, where=inner, top=not nested)
        if field.required:
            required.append(field.encode_name)
    schema: JsonObject = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if not properties:  # the form MCP asks for a tool without arguments
        schema["additionalProperties"] = False
    return schema


def _schema(t: mi.Type, *, where: str, top: bool = False) -> JsonObject:
    if isinstance(t, mi.Metadata):
        return {**_schema(t.type, where=where, top=top), **(t.extra_json_schema or {})}
    if isinstance(t, mi.UnionType):  # optional arguments are simply omittable, never null (7.14)
        return _schema(optional_member(t, where=where), where=where, top=top)
    schema = scalar(t, flat=True, where=where)
    if schema is not None:
        return schema
    if isinstance(t, mi.ListType | mi.FrozenSetType | mi.SetType | mi.VarTupleType):
        return _array(t, where=where, top=top)
    raise ToolDefinitionError(f"{where}: {type(t).__name__} is not allowed here")


def optional_member(t: mi.UnionType, *, where: str) -> mi.Type:
    """:returns: ``X`` of the union ``X | None``.

    :raises ToolDefinitionError: for any other union.
    """
    others = [m for m in t.types if not isinstance(m, mi.NoneType)]
    if len(others) != 1:
        raise ToolDefinitionError(f"{where}: unions other than X | None are not allowed")
    return others[0]


_FIXED: Final[dict[type[mi.Type], JsonObject]] = {
    mi.BoolType: {"type": "boolean"},
    mi.DecimalType: {"type": "string", "pattern": DECIMAL_PATTERN},
    mi.DateType: {"type": "string", "format": "date"},
    mi.DateTimeType: {"type": "string", "format": "date-time"},
}

_INPUT_DECIMAL: Final[JsonObject] = {"type": ["string", "number"], "pattern": DECIMAL_PATTERN}
"""An input decimal: "7", 7 and 7.0 alike (the registry takes exact numbers only)."""


def scalar(t: mi.Type, *, flat: bool, where: str) -> JsonObject | None:
    """:returns: the schema of a scalar type, or ``None`` if ``t`` is not a scalar.

    :param flat: input rules: strings, lists and integers must be bounded, no floats.
    :raises ToolDefinitionError: if ``flat`` and a string or integer is unbounded.
    """
    if type(t) in _FIXED:
        return dict(_INPUT_DECIMAL if flat and isinstance(t, mi.DecimalType) else _FIXED[type(t)])
    if isinstance(t, mi.StrType):
        return _string(t, flat=flat, where=where)
    if isinstance(t, mi.IntType):
        return _integer(t, flat=flat, where=where)
    if isinstance(t, mi.LiteralType | mi.EnumType):
        return _enum(t)
    if isinstance(t, mi.FloatType) and not flat:
        return {"type": "number"}
    return None


def _string(t: mi.StrType, *, flat: bool, where: str) -> JsonObject:
    if flat and t.max_length is None:
        raise ToolDefinitionError(f"{where}: input strings need Meta(max_length=...)")
    out: JsonObject = {"type": "string"}
    if t.min_length is not None:
        out["minLength"] = t.min_length
    if t.max_length is not None:
        out["maxLength"] = t.max_length
    if t.pattern is not None:
        out["pattern"] = t.pattern
    return out


def _integer(t: mi.IntType, *, flat: bool, where: str) -> JsonObject:
    low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else None)
    high = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else None)
    if flat and (low is None or high is None):
        raise ToolDefinitionError(f"{where}: input integers need Meta(ge=..., le=...)")
    out: JsonObject = {"type": "integer"}
    if low is not None:
        out["minimum"] = low
    if high is not None and high < MAX_ID:  # the id ceiling is a guard no caller reaches:
        out["maximum"] = high  # the Struct keeps it, the listed schema leaves it out (ADR 0007)
    return out


def _enum(t: mi.LiteralType | mi.EnumType) -> JsonObject:
    values = list(t.values) if isinstance(t, mi.LiteralType) else [m.value for m in t.cls]
    kind = "integer" if all(isinstance(v, int) for v in values) else "string"
    return {"type": kind, "enum": values}


def _array(
    t: mi.ListType | mi.FrozenSetType | mi.SetType | mi.VarTupleType, *, where: str, top: bool
) -> JsonObject:
    if not top or t.max_length is None:
        raise ToolDefinitionError(f"{where}: input lists need Meta(max_length=...), no nesting")
    item = t.item_type
    if isinstance(item, mi.StructType):
        items = _row(item, where=where)
    else:
        items = _schema(item, where=where)
    out: JsonObject = {"type": "array", "items": items}
    if t.min_length is not None:
        out["minItems"] = t.min_length
    out["maxItems"] = t.max_length
    return out


def _row(info: mi.StructType, *, where: str) -> JsonObject:
    """The one nesting input schemas allow: a top-level list of flat rows (document positions)
    whose fields are scalars only."""
    if not info.forbid_unknown_fields:
        raise ToolDefinitionError(f"{where}: input rows need forbid_unknown_fields")
    return _object(info, where=where, nested=True)


# What each pattern of a tool input means, in words: a refusal names what is expected instead of
# repeating the regular expression (which stays in the schema, for clients that check it).
PATTERN_WORDS: Final[dict[str, str]] = {
    DECIMAL_PATTERN: "a decimal number such as 1234.50 (a dot, no thousands separators)",
    "^[0-9]{4,8}$": "a booking account of 4 to 8 digits, such as 4930",
    "^[0-9a-fA-F]{64}$": "a SHA-256 checksum: 64 hexadecimal digits",
    "^[A-Za-z0-9._-]{1,200}$": "a file name of letters, digits, dots, dashes and underscores",
    "^[A-Z]{2}$": "a two-letter country code in capitals, such as DE",
    "^[A-Za-z]{3}$": "a three-letter currency code (ISO 4217), such as EUR or CHF",
    r"^\d{4}(-(0[1-9]|1[0-2]|Q[1-4]))?$": "a month (2026-10), a quarter (2026-Q4) or a year (2026)",
    r"^\d{4}-\d\d$": "a month such as 2026-11",
    r"^\+?[0-9][0-9 ()/.-]{2,39}$": "a phone number: digits, spaces and ( ) / . -, "
    "optionally with a leading +",
    r"^[^@\s]+@[^@\s]+\.[^@\s]+$": "an e-mail address such as name@example.com",
    r"^/[A-Za-z0-9/]{1,199}$": "a sevDesk API path such as /Contact/123",
}
_REGEX_EXPECTED: Final = re.compile(r"Expected `str` matching regex '(.*)'(?= - at `|$)")
_FORMAT_WORDS: Final = (
    ("Invalid RFC3339 encoded datetime", "Expected a date and time such as 2026-11-24T14:05:00"),
    ("Invalid RFC3339 encoded date", "Expected a date as YYYY-MM-DD, such as 2026-11-24"),
)


def in_words(message: str) -> str:
    """:returns: a validation ``message`` with a pattern or format mismatch said in words
    ("Expected a date as YYYY-MM-DD …") instead of the regular expression; a pattern without
    words here is named as "text in the form the argument's description gives"."""
    for raw, words in _FORMAT_WORDS:
        message = message.replace(raw, words)
    return _REGEX_EXPECTED.sub(_pattern_words, message)


def _pattern_words(match: re.Match[str]) -> str:
    """:returns: "Expected <words>" for one "Expected `str` matching regex '…'"."""
    pattern = match.group(1).replace("\\\\", "\\")  # msgspec doubles each backslash
    words = PATTERN_WORDS.get(pattern, "text in the form the argument's description gives")
    return f"Expected {words}"
