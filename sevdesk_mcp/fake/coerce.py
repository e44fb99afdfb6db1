"""Reading request values the way sevDesk accepts them (``docs/sevdesk-api.md`` §1, Q16, Q18).

- Booleans: ``true``/``false``, ``1``/``0``, ``"1"``/``"0"``, ``"true"``/``"false"``.
- Dates: ``dd.mm.yyyy`` (Berlin midnight), Unix seconds, or ISO 8601 (naive means Berlin).
- Relations: an object with ``id`` and ``objectName``, else the parser-style error of Q34/Q38.
- Bodies: JSON, or form-urlencoded with bracket keys (``voucher[taxRule][id]=9``).
- Unknown body fields are dropped without error (Q16).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Final, get_args, get_type_hints
from urllib.parse import parse_qsl

import msgspec

from sevdesk_mcp.fake.wire import BERLIN, FakeError, Ref, Row, berlin_midnight

_GERMAN_DATE: Final = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})")
_UNIX: Final = re.compile(r"-?\d+")
_INTEGER: Final = re.compile(r"-?\d+")
_TRUE: Final = frozenset({"1", "true"})
_FALSE: Final = frozenset({"0", "false"})
_BASE_FIELDS: Final = frozenset({"id", "create", "update"})


def invalid(field: str, value: object) -> FakeError:
    """:returns: the 400 for a value of the wrong shape."""
    return FakeError(400, f"Invalid value for '{field}': {value!r}")


def _php_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, dict | list):
        return "array"
    return "string"


def parse_text(value: object, field: str) -> str:
    """:returns: ``value`` as text. :raises FakeError: for objects and lists."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, str | int | float):
        return str(value)
    raise invalid(field, value)


def parse_int(value: object, field: str) -> int:
    """:returns: ``value`` as an int. :raises FakeError: unless it is an integer or its text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value)
    raise invalid(field, value)


def parse_flag(value: object, field: str) -> bool:
    """:returns: ``value`` as a bool. :raises FakeError: for anything but the accepted forms."""
    text = str(value).lower() if isinstance(value, str | int) else None
    if value is True or text in _TRUE:
        return True
    if value is False or text in _FALSE:
        return False
    raise invalid(field, value)


def parse_decimal(value: object, field: str) -> Decimal:
    """:returns: ``value`` as a Decimal. :raises FakeError: unless it is a finite number."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise invalid(field, value)
    try:
        result = Decimal(str(value).strip())
    except InvalidOperation:
        raise invalid(field, value) from None
    if not result.is_finite():
        raise invalid(field, value)
    return result


def parse_datetime(value: object, field: str) -> datetime:
    """:returns: ``value`` as an aware datetime (Q18: ``dd.mm.yyyy``, Unix seconds or ISO).

    :raises FakeError: for any other shape.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, BERLIN)
    if not isinstance(value, str):
        raise invalid(field, value)
    text = value.strip()
    german = _GERMAN_DATE.fullmatch(text)
    try:
        if german:
            day, month, year = (int(g) for g in german.groups())
            return berlin_midnight(date(year, month, day))
        if _UNIX.fullmatch(text):
            return datetime.fromtimestamp(int(text), BERLIN)
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise invalid(field, value) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=BERLIN)


def parse_date(value: object, field: str) -> date:
    """:returns: the Berlin calendar day of ``value``.

    :raises FakeError: as :func:`parse_datetime`.
    """
    return parse_datetime(value, field).astimezone(BERLIN).date()


def parse_ref(value: object, field: str) -> Ref:
    """:returns: the relation in ``value``.

    :raises FakeError: 400 with the parser-style message of Q34 when ``id`` or ``objectName``
        is missing.
    """
    if not isinstance(value, dict) or "id" not in value or "objectName" not in value:
        raise FakeError(
            400,
            f"{field} expected array with 'id' and 'objectName'. {_php_type(value)} given",
        )
    return Ref(parse_text(value["objectName"], field), parse_int(value["id"], field))


_PARSERS: Final[Mapping[object, Callable[[object, str], object]]] = {
    str: parse_text,
    int: parse_int,
    bool: parse_flag,
    Decimal: parse_decimal,
    datetime: parse_datetime,
    date: parse_date,
    Ref: parse_ref,
}


_WRITABLE: dict[type[Row], Mapping[str, object]] = {}


def _writable(model: type[Row]) -> Mapping[str, object]:
    if model not in _WRITABLE:
        hints = get_type_hints(model)
        _WRITABLE[model] = {
            f.name: hints[f.name]
            for f in dataclasses.fields(model)
            if f.name not in _BASE_FIELDS and f.name not in model.READ_ONLY
        }
    return _WRITABLE[model]


def coerce(hint: object, value: object, field: str) -> object:
    """:returns: ``value`` converted to the field type ``hint`` (``None`` only where optional).

    :raises FakeError: when the value does not fit.
    """
    args = get_args(hint)
    if value is None:
        if type(None) in args:
            return None
        raise invalid(field, value)
    base = next((a for a in args if a is not type(None)), hint)
    return _PARSERS[base](value, field)


def apply_body(row: Row, body: Mapping[str, object]) -> None:
    """Set every writable field of ``row`` named in ``body``; other keys are ignored (Q16).

    :raises FakeError: when a value does not fit its field; ``row`` may then be half-updated,
        so callers validate on a copy.
    """
    fields = _writable(type(row))
    for key, value in body.items():
        if key in fields:
            setattr(row, key, coerce(fields[key], value, key))


def parse_body(raw: bytes, content_type: str) -> dict[str, object]:
    """:returns: the request body as an object (JSON, or form-urlencoded with bracket keys).

    :raises FakeError: 400 when the body is not an object.
    """
    if not raw.strip():
        return {}
    if "x-www-form-urlencoded" in content_type:
        return parse_form(raw)
    try:
        decoded = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        raise FakeError(400, "Malformed JSON body") from None
    if not isinstance(decoded, dict):
        raise FakeError(400, "The request body must be an object")
    return decoded


def _split_key(key: str) -> list[str]:
    head, _, rest = key.partition("[")
    if not rest:
        return [head]
    return [head, *rest.rstrip("]").split("][")]


def parse_form(raw: bytes) -> dict[str, object]:
    """:returns: a form body as nested objects: ``a[b][c]=1`` becomes ``{"a":{"b":{"c":"1"}}}``.

    Objects whose keys are all digits (``pos[0][x]``, ``pos[]``) become lists.

    :raises FakeError: 400 when the top level would be a list.
    """
    root: dict[str, object] = {}
    for key, value in parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True):
        node = root
        parts = _split_key(key)
        for part in parts[:-1]:
            child = node.get(part or str(len(node)))
            if not isinstance(child, dict):
                child = {}
                node[part or str(len(node))] = child
            node = child
        node[parts[-1] or str(len(node))] = value
    result = _listify(root)
    if not isinstance(result, dict):
        raise FakeError(400, "The request body must be an object")
    return result


def _listify(node: object) -> object:
    if not isinstance(node, dict):
        return node
    converted = {k: _listify(v) for k, v in node.items()}
    if converted and all(k.isdigit() for k in converted):
        return [converted[k] for k in sorted(converted, key=int)]
    return converted
