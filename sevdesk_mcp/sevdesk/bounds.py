"""The ranges of what sevDesk sends, checked after a lenient conversion (threat case S06).

msgspec reads ``"1e308"``, ``"NaN"`` and ``"Infinity"`` as decimals, integers of any size and
timestamps from year 1 to 9999. sevDesk sends none of that, and each would fail later and far
from here: ``quantize`` raises ``InvalidOperation`` on a huge amount, ``astimezone`` and
``timedelta`` overflow at the ends of the calendar, an id of 0 cannot name a record. So
:func:`problem` walks a converted object and describes the first value outside these ranges,
naming its field by our own attribute names (never by anything sevDesk sent):

- amounts, rates and quantities: finite decimals below 10^15 in size (far above any real
  amount, and far inside the 28 digits decimal arithmetic keeps);
- ids (``id`` and fields ending in ``Id``): whole numbers from 1 to 10^15 - 1, as ``api_path``
  accepts them; other whole numbers (status, counts, days) below 10^15 in size;
- dates: the years 1900 to 2199.
"""

from __future__ import annotations

import datetime as dt
import functools
import types
import typing
from decimal import Decimal
from typing import Final

import msgspec
import msgspec.structs

from sevdesk_mcp.sevdesk.paths import MAX_ID

LIMIT: Final = MAX_ID
DECIMAL_LIMIT: Final = Decimal(LIMIT)
FIRST_YEAR: Final = 1900
LAST_YEAR: Final = 2199
PLAIN: Final = frozenset({str, bool, type(None)})  # values no range applies to
UNIONS: Final = frozenset({typing.Union, types.UnionType})


def problem(value: object) -> str | None:
    """:returns: what is wrong with the first value out of range inside ``value``, naming its
    field (``"`contact.id` is not an id …"``), or ``None`` when everything fits."""
    found = _find(value, "")
    return None if found is None else f"`{found[0]}` {found[1]}"


def scalar_problem(value: object, name: str) -> str | None:
    """:returns: what is wrong with one decimal, whole number or date called ``name``, or
    ``None``."""
    reason = _reason(value, name)
    return None if reason is None else f"`{name}` {reason}"


Found = tuple[str, str]  # (the path of the field, what is wrong with it)


def _find(value: object, name: str) -> Found | None:
    """Paths are only built on the way back from a problem: most answers have none."""
    if isinstance(value, msgspec.Struct):
        for _, field in checked_fields(type(value)):
            found = _find(getattr(value, field), field)
            if found is not None:
                return (f"{name}.{found[0]}" if name else found[0]), found[1]
        return None
    if isinstance(value, list | tuple | dict):
        items = value.values() if isinstance(value, dict) else value
        for index, item in enumerate(items):
            found = _find(item, "")
            if found is not None:
                key = "…" if isinstance(value, dict) else str(index)  # dict keys: sevDesk's text
                inner = f".{found[0]}" if found[0] else ""
                return f"{name}[{key}]{inner}", found[1]
        return None
    reason = _reason(value, name)
    return None if reason is None else (name, reason)


@functools.cache
def checked_fields(kind: type[msgspec.Struct]) -> tuple[tuple[int, str], ...]:
    """:returns: the position and name of each field of ``kind`` that can hold a value to
    check (not only text, flags or nothing)."""
    return tuple(
        (index, field.name)
        for index, field in enumerate(msgspec.structs.fields(kind))
        if not holds_only(field.type, PLAIN)
    )


def holds_only(annotation: object, kinds: frozenset[object]) -> bool:
    """:returns: whether a field of this type (a union, or ``Annotated``, of them) holds only
    values of ``kinds``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return holds_only(typing.get_args(annotation)[0], kinds)
    if origin in UNIONS:
        return all(holds_only(a, kinds) for a in typing.get_args(annotation))
    return annotation in kinds


def _reason(value: object, name: str) -> str | None:
    if isinstance(value, Decimal):
        return _decimal(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return _whole(value, name)
    if isinstance(value, dt.date):
        return _date(value)
    return None


def _decimal(value: Decimal) -> str | None:
    if not value.is_finite():
        return "is not a finite number"
    if value.copy_abs() >= DECIMAL_LIMIT:  # copy_abs: no context, so no Overflow either
        return "is out of range (10^15 or more in size)"
    return None


def is_id(name: str) -> bool:
    """:returns: whether a field called ``name`` holds an id (``id`` or ``…Id``)."""
    return name == "id" or name.endswith("Id")


def _whole(value: int, name: str) -> str | None:
    if is_id(name) and not 0 < value < LIMIT:
        return "is not an id (a whole number from 1 to 10^15 - 1)"
    if abs(value) >= LIMIT:
        return "is out of range (10^15 or more in size)"
    return None


def _date(value: dt.date) -> str | None:
    if not FIRST_YEAR <= value.year <= LAST_YEAR:
        return f"is not a date between {FIRST_YEAR} and {LAST_YEAR}"
    return None
