"""Lenient msgspec schemas for what sevDesk sends.

sevDesk sends ids, amounts, rates and flags as strings (``"1000"``, ``"65.45"``, ``"0"``), some
of them as numbers (``paidAmount``, Q4-Q5), empty strings for unset values (``sendType: ""``,
Q10) and ``true`` for a quantity of one. :func:`parse` accepts all of that: empty strings become
``None`` and scalars are converted loosely; money is always :class:`~decimal.Decimal`.
Unknown fields are ignored on purpose: sevDesk adds fields without notice. What does not fit,
even leniently, or lies outside the ranges of :mod:`~sevdesk_mcp.sevdesk.bounds` (a huge, infinite
or NaN amount, an id of 0, a date in year 9999) is a
:class:`~sevdesk_mcp.errors.MalformedResponseError` naming the field, never a value read.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Annotated, Final, TypeVar

import msgspec
import msgspec.structs

from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk import bounds, fits

T = TypeVar("T", bound=msgspec.Struct)
MAX_DAYS: Final = 36_500
_SCALARS: Final = frozenset({str, int, bool, float, Decimal, dt.datetime, dt.date, type(None)})
_CONTAINERS: Final = (dict, list)  # a tuple: ``dict | list`` would build a union per call
Days = Annotated[int, msgspec.Meta(ge=-MAX_DAYS, le=MAX_DAYS)]  # payment terms, added to dates
# text a member must not send empty; where sevDesk sends ``""`` it means unset (``None``) as
# everywhere, but a schema whose text is all of this kind reads a list without the substitution
# of empty strings first (``parsed.py``)
Text = Annotated[str, msgspec.Meta(min_length=1)]


class Ref(msgspec.Struct, frozen=True):
    """A relation: ``{"id": "3", "objectName": "Category"}``."""

    id: int
    objectName: str = ""


class Contact(msgspec.Struct, frozen=True):
    """``Contact``: an organisation (``name``) or a person (``surename``, ``familyname``)."""

    id: int
    name: str | None = None
    surename: str | None = None  # sic (Q37)
    familyname: str | None = None
    titel: str | None = None  # sic (Q37)
    academicTitle: str | None = None
    status: int | None = None
    customerNumber: str | None = None
    category: Ref | None = None
    parent: Ref | None = None
    description: str | None = None
    vatNumber: str | None = None
    taxNumber: str | None = None
    buyerReference: str | None = None
    exemptVat: bool | None = None
    defaultTimeToPay: Days | None = None
    create: dt.datetime | None = None
    update: dt.datetime | None = None


class ContactName(msgspec.Struct, frozen=True):
    """What naming a contact reads of a ``Contact`` (a whole list of them, for a report)."""

    id: int
    name: Text | None = None
    surename: Text | None = None  # sic (Q37)
    familyname: Text | None = None
    academicTitle: Text | None = None


class ContactAddress(msgspec.Struct, frozen=True):
    """``ContactAddress`` of a contact."""

    id: int
    contact: Ref | None = None
    street: str | None = None
    zip: str | None = None
    city: str | None = None
    country: Ref | None = None
    category: Ref | None = None
    name: str | None = None


class CommunicationWay(msgspec.Struct, frozen=True):
    """``CommunicationWay``: an email address, phone number or website of a contact."""

    id: int
    type: str
    value: str
    contact: Ref | None = None
    key: Ref | None = None
    main: bool | None = None


class TaxRule(msgspec.Struct, frozen=True):
    """``TaxRule`` (bookkeeping system 2.0)."""

    id: int
    name: str | None = None
    description: str | None = None
    code: str | None = None


class AccountDatev(msgspec.Struct, frozen=True):
    """A booking account (bookkeeping system 2.0)."""

    id: int
    number: str | None = None
    name: str | None = None
    hidden: bool | None = None


class GuidanceRule(msgspec.Struct, frozen=True):
    """A tax rule allowed for a booking account, with its rates (ints here, Q8)."""

    id: int
    name: str | None = None
    taxRates: list[str] = []


class ReceiptGuidance(msgspec.Struct, frozen=True):
    """What sevDesk allows for one booking account (``ReceiptGuidance``)."""

    accountDatevId: int
    accountNumber: str | None = None
    accountName: str | None = None
    description: str | None = None
    allowedTaxRules: list[GuidanceRule] = []
    allowedReceiptTypes: list[str] = []


class Named(msgspec.Struct, frozen=True):
    """Reference data with an id and a name (units, countries, payment methods, users)."""

    id: int
    name: str | None = None
    code: str | None = None
    translationCode: str | None = None
    uneceTradeUnitCode: str | None = None
    nameEn: str | None = None
    text: str | None = None
    username: str | None = None
    firstName: str | None = None
    lastName: str | None = None


def parse(raw: JsonValue, kind: type[T]) -> T:
    """Convert one sevDesk object leniently, then check the ranges of its values.

    An object is copied without its empty strings only when it has one where ``kind`` reads, or
    when ``kind`` reads few of its keys (unknown keys are ignored by the conversion anyway). The
    ranges are checked by :func:`~sevdesk_mcp.sevdesk.fits.fits` first, which passes only what
    :func:`~sevdesk_mcp.sevdesk.bounds.problem` passes too; anything else goes to the full check.

    :raises MalformedResponseError: if it does not fit ``kind`` even leniently, or a value is out
        of range; the message names the field and never repeats what sevDesk sent.
    """
    try:
        parsed = msgspec.convert(_cleaned(raw, kind), kind, strict=False)
    except msgspec.ValidationError as exc:
        raise _malformed(kind, _reason(exc)) from None
    except RecursionError:
        raise _malformed(kind, "it is nested too deeply") from None
    found = None if fits.fits(parsed) else bounds.problem(parsed)  # naming the field
    if found is not None:
        raise _malformed(kind, found)
    return parsed


def parse_all(raws: list[dict[str, JsonValue]], kind: type[T]) -> list[T]:
    """:returns: every object converted with :func:`parse`.

    :raises MalformedResponseError: if one does not fit.
    """
    return [parse(raw, kind) for raw in raws]


def decimal_value(raw: object, field: str) -> Decimal:
    """:returns: a scalar answer (``{"objects": "-1391.18"}``, a string or a number) as a decimal.

    :raises MalformedResponseError: if it is not a finite number below 10^15 in size.
    """
    number = _as_decimal(raw)
    if number is None:
        raise _unusable("an answer", f"`{field}` is not a number")
    found = bounds.scalar_problem(number, field)
    if found is not None:
        raise _unusable("an answer", found)
    return number


def _as_decimal(raw: object) -> Decimal | None:
    if isinstance(raw, Decimal):
        return raw
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        return None
    try:
        return Decimal(str(raw).strip())
    except (InvalidOperation, ValueError):
        return None


def _malformed(kind: type[msgspec.Struct], what: str) -> MalformedResponseError:
    return _unusable(f"a {kind.__name__.lstrip('_')}", what)


def _unusable(sent: str, what: str) -> MalformedResponseError:
    return MalformedResponseError(
        f"sevDesk sent {sent} this server cannot use: {what}. The answer was not used; try again, "
        "and if it persists check the record in sevDesk."
    )


def _reason(exc: msgspec.ValidationError) -> str:
    """:returns: msgspec's reason with the field it names, cut before any quoted value (an
    unknown enum value would otherwise repeat sevDesk's text)."""
    text, _, where = str(exc).partition(" - at `")
    for quote in ("'", '"'):
        text = text.split(quote, 1)[0]
    text = text.strip().rstrip(":").strip() or "it has an unexpected value"
    text = text[0].lower() + text[1:]
    field = where.rstrip("`").removeprefix("$").removeprefix(".")
    return f"`{field}`: {text}" if field else text


@functools.cache
def _nested(kind: type[msgspec.Struct]) -> tuple[str, ...]:
    """:returns: the wire names of ``kind``'s fields that can hold an object or a list."""
    fields = msgspec.structs.fields(kind)
    return tuple(f.encode_name for f in fields if not bounds.holds_only(f.type, _SCALARS))


def _cleaned(raw: JsonValue, kind: type[msgspec.Struct]) -> JsonValue:
    """:returns: ``raw`` without empty strings (at any depth), and without its unknown keys when
    ``kind`` reads few of them; ``raw`` itself when it has no empty string where ``kind`` reads
    (the conversion ignores unknown keys anyway)."""
    if not isinstance(raw, dict):
        return _clean(raw)
    known = _known(kind)
    if len(known) * 2 < len(raw):
        get = raw.get
        return {k: _clean(v) for k in known if (v := get(k, "")) != ""}
    if "" in raw.values() or any(_has_empty(raw.get(k)) for k in _nested(kind)):
        return _clean(raw)
    return raw


@functools.cache
def _known(kind: type[msgspec.Struct]) -> tuple[str, ...]:
    """:returns: the names ``kind``'s fields have on the wire."""
    return kind.__struct_encode_fields__


def _has_empty(value: JsonValue) -> bool:
    """:returns: whether an empty string is inside ``value`` (an object or a list)."""
    if isinstance(value, dict):
        inner: Iterable[JsonValue] = value.values()
    elif isinstance(value, list):
        inner = value
    else:
        return False
    if "" in inner:
        return True
    return any(isinstance(item, _CONTAINERS) and _has_empty(item) for item in inner)


def _clean(value: JsonValue) -> JsonValue:
    """:returns: ``value`` without empty strings in its objects (at any depth)."""
    if isinstance(value, dict):
        return {
            k: _clean(v) if isinstance(v, _CONTAINERS) else v for k, v in value.items() if v != ""
        }
    if isinstance(value, list):
        return [_clean(v) if isinstance(v, _CONTAINERS) else v for v in value]
    return value
