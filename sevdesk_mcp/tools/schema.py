"""JSON Schemas generated from msgspec Structs, in the shape clients handle well.

Input schemas are flat (wire digest section 7.10): an object root, typed primitive properties
(strings, integers, booleans, enums, decimals as strings, dates) and arrays of primitives; no
``$ref``, no composition, no floats. The one nesting allowed is a top-level array of flat rows
(objects of primitives, inlined), for document positions (docs/adr/0003). Every string and
list needs a ``max_length`` and every integer both bounds, so no argument is unbounded (J07).
Output schemas may nest objects; nested Structs are inlined, never referenced.
"""

from __future__ import annotations

from typing import Final

import msgspec
import msgspec.inspect as mi

from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.mcp.types import JsonObject, JsonValue

DECIMAL_PATTERN: Final = r"^-?[0-9]+(\.[0-9]+)?$"


def input_schema(struct: type[msgspec.Struct]) -> JsonObject:
    """:returns: the flat input schema of ``struct``.

    :raises ToolDefinitionError: if a field cannot be expressed flat and bounded.
    """
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)  # struct is a Struct type
    if not info.forbid_unknown_fields:
        raise ToolDefinitionError(f"{struct.__name__}: input Structs need forbid_unknown_fields")
    return _object(info, flat=True, where=struct.__name__)


def output_schema(struct: type[msgspec.Struct]) -> JsonObject:
    """:returns: the output schema of ``struct``, nested Structs inlined.

    :raises ToolDefinitionError: if a field has no JSON Schema form here.
    """
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)  # struct is a Struct type
    return _object(info, flat=False, where=struct.__name__)


def _object(info: mi.StructType, *, flat: bool, where: str, nested: bool = False) -> JsonObject:
    properties: JsonObject = {}
    required: list[JsonValue] = []
    for field in info.fields:
        inner = f"{where}.{field.name}"
        properties[field.encode_name] = _schema(field.type, flat=flat, where=inner, top=not nested)
        if field.required:
            required.append(field.encode_name)
    schema: JsonObject = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if flat:
        schema["additionalProperties"] = False
    return schema


def _schema(t: mi.Type, *, flat: bool, where: str, top: bool = False) -> JsonObject:
    if isinstance(t, mi.Metadata):
        return {**_schema(t.type, flat=flat, where=where, top=top), **(t.extra_json_schema or {})}
    if isinstance(t, mi.UnionType):
        return _optional(t, flat=flat, where=where, top=top)
    scalar = _scalar(t, flat=flat, where=where)
    if scalar is not None:
        return scalar
    if isinstance(t, mi.ListType | mi.FrozenSetType | mi.SetType | mi.VarTupleType):
        return _array(t, flat=flat, where=where, top=top)
    if not flat and isinstance(t, mi.StructType):
        return _object(t, flat=False, where=where)
    if not flat and isinstance(t, mi.DictType):
        return {"type": "object"}
    raise ToolDefinitionError(f"{where}: {type(t).__name__} is not allowed here")


_FIXED: Final[dict[type[mi.Type], JsonObject]] = {
    mi.BoolType: {"type": "boolean"},
    mi.DecimalType: {"type": "string", "pattern": DECIMAL_PATTERN},
    mi.DateType: {"type": "string", "format": "date"},
    mi.DateTimeType: {"type": "string", "format": "date-time"},
}


def _scalar(t: mi.Type, *, flat: bool, where: str) -> JsonObject | None:
    if type(t) in _FIXED:
        return dict(_FIXED[type(t)])
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
    if high is not None:
        out["maximum"] = high
    return out


def _enum(t: mi.LiteralType | mi.EnumType) -> JsonObject:
    values = list(t.values) if isinstance(t, mi.LiteralType) else [m.value for m in t.cls]
    kind = "integer" if all(isinstance(v, int) for v in values) else "string"
    return {"type": kind, "enum": values}


def _array(
    t: mi.ListType | mi.FrozenSetType | mi.SetType | mi.VarTupleType,
    *,
    flat: bool,
    where: str,
    top: bool,
) -> JsonObject:
    if flat and (not top or t.max_length is None):
        raise ToolDefinitionError(f"{where}: input lists need Meta(max_length=...), no nesting")
    item = t.item_type
    if flat and isinstance(item, mi.StructType):
        items = _row(item, where=where)
    else:
        items = _schema(item, flat=flat, where=where)
    out: JsonObject = {"type": "array", "items": items}
    if t.min_length is not None:
        out["minItems"] = t.min_length
    if t.max_length is not None:
        out["maxItems"] = t.max_length
    return out


def _row(info: mi.StructType, *, where: str) -> JsonObject:
    """The one nesting input schemas allow: a top-level list of flat rows (document positions)
    whose fields are scalars only."""
    if not info.forbid_unknown_fields:
        raise ToolDefinitionError(f"{where}: input rows need forbid_unknown_fields")
    return _object(info, flat=True, where=where, nested=True)


def _optional(t: mi.UnionType, *, flat: bool, where: str, top: bool) -> JsonObject:
    others = [m for m in t.types if not isinstance(m, mi.NoneType)]
    if len(others) != 1:
        raise ToolDefinitionError(f"{where}: unions other than X | None are not allowed")
    schema = _schema(others[0], flat=flat, where=where, top=top)
    if flat:
        return schema  # optional arguments are simply omittable, never null (section 7.14)
    return {**schema, "type": [schema["type"], "null"]} if "type" in schema else schema
