"""Output schemas, and the encoding of outputs that matches them (docs/adr/0007).

An output schema describes the top level of a tool's ``structuredContent`` completely and
nothing below it, so that the ``tools/list`` answer stays small (issue 14, point 4):

- every field is named with its JSON type (``string``, ``integer``, ``number``, ``boolean``,
  ``array``, ``object``) and nothing else;
- a field that is always present is ``required``; an optional field (``X | None``) is not, and
  has no ``null`` branch: :func:`omit_nulls` drops its key from the encoded output when the
  value is ``None`` (at every depth), so what the server sends validates;
- what a value holds is left out: the fields of a nested object, the items of a list, enum
  values, patterns, formats, bounds and descriptions (a client validates the result with the
  schema; the model reads the data itself, and the tool description says what it means);
- no ``$ref``, no composition, no ``null`` anywhere.

The whole Struct tree is still checked when the schema is built: every type below the top
level needs a JSON form too. Input schemas are built by :mod:`sevdesk_mcp.tools.schema`.

The text content of a result is the same data written for the model to read
(:func:`result_text`): every amount (an object of exactly ``amount`` and ``currency``) is one
string, ``"714.00 EUR"``, and a tool may shorten its text further with a brief (empty boxes,
zero buckets, the rule text unless asked for); ``structuredContent`` keeps the complete output
of the schema.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Final

import msgspec
import msgspec.inspect as mi

from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.mcp.types import JsonObject, JsonValue
from sevdesk_mcp.safety.preview import Preview, shown
from sevdesk_mcp.tools.schema import optional_member, scalar, struct_info

_LISTS: Final = (mi.ListType, mi.FrozenSetType, mi.SetType, mi.VarTupleType)


def output_schema(struct: type[msgspec.Struct] | mi.StructType) -> JsonObject:
    """:returns: the output schema of ``struct`` (a Struct type or its inspected form).

    :raises ToolDefinitionError: if a field, at any depth, has no JSON Schema form here, or
        ``None`` stands anywhere but as the value of an optional field.
    """
    info = struct_info(struct)
    _check_struct(info, set())
    properties: JsonObject = {}
    required: list[JsonValue] = []
    for field in info.fields:
        t, optional = _unwrap(field.type, where=f"{info.cls.__name__}.{field.name}")
        properties[field.encode_name] = _top(t)
        if field.required and not optional:
            required.append(field.encode_name)
    schema: JsonObject = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _top(t: mi.Type) -> JsonObject:
    """:returns: the JSON type of a top-level field's type (already checked)."""
    t = _bare(t)
    if isinstance(t, _LISTS):
        return {"type": "array"}
    if isinstance(t, mi.StructType | mi.DictType):
        return {"type": "object"}
    schema = scalar(t, flat=False, where="")
    assert schema is not None  # checked by _check
    return {"type": schema["type"]}


def _bare(t: mi.Type) -> mi.Type:
    return t.type if isinstance(t, mi.Metadata) else t


def _check_struct(info: mi.StructType, seen: set[type]) -> None:
    if info.cls in seen:
        return
    seen.add(info.cls)
    for field in info.fields:
        where = f"{info.cls.__name__}.{field.name}"
        _check(_unwrap(field.type, where=where)[0], where=where, seen=seen)


def _check(t: mi.Type, *, where: str, seen: set[type]) -> None:
    """:raises ToolDefinitionError: if ``t`` or a type inside it has no JSON form here."""
    t = _bare(t)
    if isinstance(t, mi.StructType):
        _check_struct(t, seen)
    elif isinstance(t, _LISTS):
        _check(t.item_type, where=where, seen=seen)
    elif not isinstance(t, mi.DictType) and scalar(t, flat=False, where=where) is None:
        note = " (None only as the value of an optional field)"
        raise ToolDefinitionError(
            f"{where}: {type(t).__name__} is not allowed here"
            + (note if isinstance(t, mi.UnionType | mi.NoneType) else "")
        )


class Omission(msgspec.Struct, frozen=True):
    """Where the ``None`` values of an encoded output stand.

    :param keys: the optional keys of this object, dropped when their value is ``None``.
    :param nested: the plans of values that hold objects (for a list, of each item).
    """

    keys: tuple[str, ...]
    nested: tuple[tuple[str, Omission], ...]


def omission(struct: type[msgspec.Struct] | mi.StructType) -> Omission | None:
    """:returns: the plan for :func:`omit_nulls`, or ``None`` if nothing can be ``None``.

    :raises ToolDefinitionError: for a union other than ``X | None``.
    """
    return _omission(struct_info(struct), {})


def omit_nulls(value: JsonValue, plan: Omission | None) -> None:
    """Drop, in place, the keys of optional fields whose encoded value is ``None``."""
    if plan is None:
        return
    if isinstance(value, list):
        for item in value:
            omit_nulls(item, plan)
        return
    if not isinstance(value, dict):
        return
    for key in plan.keys:
        if key in value and value[key] is None:
            del value[key]
    for key, inner in plan.nested:
        omit_nulls(value.get(key), inner)


def _omission(info: mi.StructType, seen: dict[type, Omission | None]) -> Omission | None:
    if info.cls in seen:
        return seen[info.cls]  # a recursive reference is not followed again
    seen[info.cls] = None
    keys: list[str] = []
    nested: list[tuple[str, Omission]] = []
    for field in info.fields:
        inner, optional = _unwrap(field.type, where=f"{info.cls.__name__}.{field.name}")
        if optional:
            keys.append(field.encode_name)
        below = _struct_below(inner)
        plan = _omission(below, seen) if below is not None else None
        if plan is not None:
            nested.append((field.encode_name, plan))
    seen[info.cls] = Omission(tuple(keys), tuple(nested)) if keys or nested else None
    return seen[info.cls]


def _unwrap(t: mi.Type, *, where: str) -> tuple[mi.Type, bool]:
    """:returns: the type of a field without ``| None``, and whether it had it.

    :raises ToolDefinitionError: for a union other than ``X | None``.
    """
    if isinstance(t, mi.UnionType):
        return optional_member(t, where=where), True
    if isinstance(t, mi.Metadata) and isinstance(t.type, mi.UnionType):
        inner = optional_member(t.type, where=where)
        return mi.Metadata(inner, t.extra_json_schema, t.extra), True
    return t, False


def _struct_below(t: mi.Type) -> mi.StructType | None:
    while isinstance(t, (mi.Metadata, *_LISTS)):
        t = t.type if isinstance(t, mi.Metadata) else t.item_type
    return t if isinstance(t, mi.StructType) else None


Brief = Callable[[JsonObject], None]
"""Shortens the text form of one result in place (never the structured content)."""
MONEY_KEYS: Final = frozenset({"amount", "currency"})


def result_text(data: JsonObject, brief: Brief | None = None) -> str:
    """:returns: the text content of a result: ``data`` as JSON with each amount written as one
    string (``"714.00 EUR"``), shortened by ``brief`` when the tool has one. ``data`` itself is
    left as it is (it is the structured content)."""
    shown = _money_shown(_preview_shown(data))
    assert isinstance(shown, dict)  # an object stays an object
    if brief is not None:
        brief(shown)
    return msgspec.json.encode(shown).decode("utf-8")


def _preview_shown(data: JsonObject) -> JsonObject:
    """:returns: ``data`` with a write result's preview data (both languages, typed pieces)
    as the model reads it: English sentences, machine forms, third-party text fenced."""
    preview = data.get("preview")
    if not isinstance(preview, dict) or "action" not in preview:
        return data
    text = msgspec.to_builtins(shown(msgspec.convert(preview, Preview)))
    return {**data, "preview": text}


def _money_shown(value: JsonValue) -> JsonValue:
    """:returns: a copy of ``value`` with every encoded Money object as ``"<amount> <CUR>"``."""
    if isinstance(value, dict):
        amount, currency = value.get("amount"), value.get("currency")
        if value.keys() == MONEY_KEYS and isinstance(amount, str) and isinstance(currency, str):
            return f"{amount} {currency}"
        return {key: _money_shown(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_money_shown(inner) for inner in value]
    return value


def is_zero(value: JsonValue) -> bool:
    """:returns: whether ``value`` is a zero amount as the text shows it (``"0.00 EUR"``,
    ``"0.00"``, ``"-0.00"``); anything else, a missing value included, is not."""
    if not isinstance(value, str) or not value:
        return False
    try:
        return Decimal(value.split(" ", 1)[0]) == 0
    except InvalidOperation:
        return False


def drop_zeros(value: JsonValue, keys: tuple[str, ...]) -> None:
    """Drop, in place, those ``keys`` of the object ``value`` whose amount is zero."""
    if isinstance(value, dict):
        for key in keys:
            if is_zero(value.get(key)):
                del value[key]


def objects(value: JsonValue) -> list[JsonObject]:
    """:returns: the objects of a list value (none for anything else)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
