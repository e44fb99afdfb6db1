"""How the fake sevDesk writes values, rows, envelopes and errors (``docs/sevdesk-api.md`` §1).

- Ids, status codes, money, rates and 0/1 flags go out as **strings** (Q4); only the fields a
  row lists in ``NUMBERS`` (``paidAmount``, the transaction log's ``amountPaid``) are numbers.
- Relations are ``{"id": "3", "objectName": "Category"}`` with a string id (Q8).
- Datetimes carry the Europe/Berlin offset of their day (Q18, Q20).
- Money is :class:`~decimal.Decimal` inside and a plain string outside: ``"65.45"``, ``"55"``.
- Errors use the recorded body with ``responseCode`` equal to the HTTP status (§5.7).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import ClassVar, Final
from zoneinfo import ZoneInfo

from sevdesk_mcp.jsontypes import JsonObject, JsonValue

BERLIN: Final = ZoneInfo("Europe/Berlin")
EPOCH: Final = datetime(2026, 1, 1, tzinfo=BERLIN)
ZERO_UUID: Final = "00000000-0000-0000-0000-000000000000"
CODE_NOT_FOUND: Final = 151
CODE_NOT_DELETABLE: Final = 159


@dataclass(frozen=True, slots=True)
class Ref:
    """A relation to another object: ``{"id": "<id>", "objectName": "<Model>"}`` on the wire."""

    objectName: str
    id: int

    def wire(self) -> JsonObject:
        """:returns: the reference with its id as a string (Q8)."""
        return {"id": str(self.id), "objectName": self.objectName}


@dataclass(kw_only=True, slots=True)
class Row:
    """Base of every stored object. Field names are the wire names.

    Class attributes shape the wire form: ``NULLS`` are always ``null``, ``CONSTANTS`` fixed
    values, ``HIDDEN`` fields are never written, ``NUMBERS`` are JSON numbers instead of strings
    (Q4) and ``READ_ONLY`` fields are never set from a request body.
    """

    OBJECT_NAME: ClassVar[str] = "Row"
    NULLS: ClassVar[tuple[str, ...]] = ()
    CONSTANTS: ClassVar[tuple[tuple[str, JsonValue], ...]] = ()
    HIDDEN: ClassVar[frozenset[str]] = frozenset()
    NUMBERS: ClassVar[frozenset[str]] = frozenset()
    READ_ONLY: ClassVar[frozenset[str]] = frozenset()

    id: int = 0
    create: datetime = EPOCH
    update: datetime = EPOCH

    def ref(self) -> Ref:
        """:returns: a reference to this row."""
        return Ref(self.OBJECT_NAME, self.id)


def money(value: Decimal) -> str:
    """:returns: ``value`` without exponent or needless zeros: ``"65.45"``, ``"55"``, ``"-15"``."""
    if value == 0:
        return "0"
    return format(value.normalize(), "f")


def number(value: Decimal) -> int | float:
    """:returns: ``value`` as a JSON number, an int when it is whole (Q4 ``paidAmount``)."""
    if value == value.to_integral_value():
        return int(value)
    return float(value)


def iso(value: datetime) -> str:
    """:returns: ``value`` in ISO 8601 with the Europe/Berlin offset of that instant (Q20)."""
    return value.astimezone(BERLIN).replace(microsecond=0).isoformat()


def berlin_midnight(day: date) -> datetime:
    """:returns: the start of ``day`` in Berlin, as ``dd.mm.yyyy`` dates are stored (Q18)."""
    return datetime(day.year, day.month, day.day, tzinfo=BERLIN)


def scalar(value: object, *, as_number: bool = False) -> JsonValue:
    """Convert one stored value to its wire form.

    :returns: the JSON value: strings for ids, flags, money and dates; ``None`` stays ``null``.
    :raises TypeError: for a value type rows never hold.
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, Decimal):
        return number(value) if as_number else money(value)
    if isinstance(value, int):
        return value if as_number else str(value)
    return _structured(value)


def _structured(value: object) -> JsonValue:
    if isinstance(value, Ref):
        return value.wire()
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"no wire form for {type(value).__name__}")


def to_wire(row: Row, client: Ref) -> JsonObject:
    """:returns: the wire object of ``row``, owned by the SevClient ``client``."""
    out: JsonObject = {
        "id": str(row.id),
        "objectName": row.OBJECT_NAME,
        "additionalInformation": None,
    }
    for f in dataclasses.fields(row):
        if f.name not in row.HIDDEN and f.name != "id":
            out[f.name] = scalar(getattr(row, f.name), as_number=f.name in row.NUMBERS)
    if "sevClient" not in row.HIDDEN:
        out["sevClient"] = client.wire()
    out.update(dict.fromkeys(row.NULLS))
    out.update(row.CONSTANTS)
    return out


class FakeError(Exception):
    """An error answer of the fake, in sevDesk's error body (§5.7).

    :param status: the ``responseCode`` and, unless ``http_status`` is given, the HTTP status.
    :param message: the error message.
    :param code: sevDesk's ``error.code`` (``None`` is written as ``null``).
    :param data: ``error.data``; ``[]`` when not given.
    :param http_status: a different HTTP status, for the documented errors inside HTTP 200.
    """

    def __init__(
        self,
        status: int,
        message: str,
        code: int | None = None,
        data: JsonValue = None,
        http_status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.data: JsonValue = [] if data is None else data
        self.http_status = status if http_status is None else http_status

    def body(self) -> JsonObject:
        """:returns: the error body, ``{"error": {...}, "objects": null}``."""
        return error_body(self.status, self.message, self.code, self.data)


def error_body(status: int, message: str, code: int | None, data: JsonValue) -> JsonObject:
    """:returns: sevDesk's error body with ``responseCode`` = ``status`` (§5.7)."""
    return {
        "error": {
            "exceptionUUID": ZERO_UUID,
            "message": message,
            "errorCode": 0,
            "code": code,
            "data": data,
            "responseCode": status,
        },
        "objects": None,
    }


def not_found(object_name: str, ident: object) -> FakeError:
    """:returns: the 404 with code 151 that sevDesk gives for an unknown id (§5.7)."""
    return FakeError(
        404, f"No Model_{object_name} with the id {ident} was found", code=CODE_NOT_FOUND
    )


def error_in_http_200(message: str, code: int) -> FakeError:
    """:returns: an error sevDesk answers inside HTTP 200, such as code 390 (§1 Errors)."""
    return FakeError(200, message, code=code)
