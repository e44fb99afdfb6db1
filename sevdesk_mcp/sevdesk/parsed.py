"""Lists converted into their schema page by page, as the pages arrive.

The pages of a whole list arrive over time; converting each one as it arrives uses the wait for
the others, instead of converting the whole list after the last page. A reader names the list
and the schema around one ``get_all`` (:func:`pages_as`); the client converts each page of that
list as it arrives and keeps the result on the :class:`~sevdesk_mcp.sevdesk.page.Page`;
:func:`records` takes it from there, or converts the items itself when the client could not
(another port, or a page that does not fit: then the same
:class:`~sevdesk_mcp.errors.MalformedResponseError` is raised as without this module).

A page is read straight from its JSON into the schema (:func:`straight`), without building
Python dicts first, which takes about a third of the time of :func:`wire.parse` on dicts. It
gives the same records: msgspec's lax decoding converts the strings sevDesk sends as
:func:`wire.parse` does, an empty string as a member's value is read as ``null``, which is the
same as leaving the member out wherever a schema field takes ``null`` only with the default
``None`` (:func:`_unset_is_null` checks each schema once; others take the dict path), and the
ranges are checked the same way. A schema in which no member can read an empty string
(:func:`_reads_no_empty_text`) is read without the substitution first, which costs as much as
the decoding: where an empty string stands in what it reads, the decoding fails and the page is
read again with the substitution. One difference remains, only for what sevDesk never sends: a
JSON number with a fraction or exponent in a whole-number or date field (``"status": 1e3``)
is read as the number it means (``1000``, or seconds since 1970 as for a whole number), where
the dict path, which reads such numbers as decimals first, refuses it. Anything the straight
path cannot read goes the dict path, which reads or refuses it as before; the dicts of a page
read straight are built only if a reader asks for them (:class:`Rows`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final, TypeVar, cast

import msgspec
import msgspec.inspect as mi

from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk import bounds, fits, wire
from sevdesk_mcp.sevdesk.envelope import decoded, many
from sevdesk_mcp.sevdesk.page import Items, Page, Parsed

T = TypeVar("T", bound=msgspec.Struct)
# An empty string as the value of a member: in JSON that is well formed (``objects_of`` checked
# it), ``:`` followed by ``""`` can stand nowhere else (inside a string, a ``"`` that is not
# escaped ends it, and no ``"`` may follow a string directly).
_EMPTY_MEMBER: Final = re.compile(rb':[ \t\r\n]*""')

_WANTED: ContextVar[tuple[str, type[msgspec.Struct]] | None] = ContextVar(
    "sevdesk_pages_as", default=None
)


@contextmanager
def pages_as(path: str, kind: type[msgspec.Struct]) -> Iterator[None]:
    """Ask for the pages of the list at ``path`` to be converted into ``kind`` as they arrive,
    while the block runs (in this task and the tasks it starts)."""
    token = _WANTED.set((path, kind))
    try:
        yield
    finally:
        _WANTED.reset(token)


def wanted(path: str) -> type[msgspec.Struct] | None:
    """:returns: the schema the pages of ``path`` are to be converted into, if one was asked."""
    asked = _WANTED.get()
    return asked[1] if asked is not None and asked[0] == path else None


class Rows(msgspec.Struct, frozen=True):
    """The objects of one page of a list: converted into the schema when a reader asked for
    one (``records``), and as sevDesk sent them: decoded into dicts, or, for a page read
    straight, the JSON text, decoded into dicts only when they are asked for (:meth:`items`)."""

    count: int
    records: list[object] | None
    source: Items | msgspec.Raw

    @classmethod
    def of(cls, items: Items, kind: type[msgspec.Struct] | None) -> Rows:
        """:returns: the rows of a page already decoded into ``items``."""
        return cls(len(items), convert(items, kind), items)

    @classmethod
    def read(cls, objects: msgspec.Raw, kind: type[msgspec.Struct]) -> Rows:
        """:returns: the rows of a page's ``objects``, read straight into ``kind`` where they
        can be (:func:`straight`), else decoded into dicts and converted from them.

        :raises MalformedResponseError: if ``objects`` is not a list of objects.
        """
        records = straight(objects, kind)
        if records is None:
            return cls.of(many(decoded(objects)), kind)
        return cls(len(records), records, objects)

    def items(self) -> Items:
        """:returns: the objects as dicts (decoded now for a page read straight)."""
        return self.source if isinstance(self.source, list) else many(decoded(self.source))


def straight(objects: msgspec.Raw, kind: type[msgspec.Struct]) -> list[object] | None:
    """:returns: a list answer's ``objects`` read straight from their JSON into ``kind``, each
    as :func:`wire.parse` would convert it and inside the same ranges; ``None`` when they cannot
    be read so (the caller takes the dict path then, which refuses what does not fit).
    """
    decoder = _decoder(kind)
    if decoder is None:
        return None
    records = _decoded(decoder, objects) if _reads_no_empty_text(kind) else None
    if records is None:  # the substitution costs as much as the decoding: only when needed
        records = _decoded(decoder, _EMPTY_MEMBER.sub(b":null", objects))
    if records is None:
        return None
    fit = fits.all_fit(records, kind) or all(bounds.problem(r) is None for r in records)
    return list(records) if fit else None


def _decoded(
    decoder: msgspec.json.Decoder[list[msgspec.Struct]], text: bytes | msgspec.Raw
) -> list[msgspec.Struct] | None:
    try:
        return decoder.decode(text)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return None


@functools.cache
def _decoder(kind: type[msgspec.Struct]) -> msgspec.json.Decoder[list[msgspec.Struct]] | None:
    """:returns: the lax decoder of a list of ``kind``; ``None`` when reading an empty string
    as ``null`` could differ from leaving the member out (:func:`_unset_is_null`)."""
    if not _unset_is_null(mi.type_info(kind)):
        return None
    return msgspec.json.Decoder(list[kind], strict=False)  # type: ignore[valid-type]


def _unset_is_null(kind: mi.Type) -> bool:
    """:returns: whether every object member inside ``kind`` that takes ``null`` is a struct
    field whose default is ``None``: then ``null`` and a missing member read the same."""
    if isinstance(kind, mi.StructType):
        return all(_field_ok(f) for f in kind.fields)
    if isinstance(kind, mi.UnionType):
        return all(_unset_is_null(t) for t in kind.types)
    if isinstance(kind, mi.CollectionType | mi.Metadata):
        return _unset_is_null(kind.item_type if isinstance(kind, mi.CollectionType) else kind.type)
    if isinstance(kind, mi.DictType):  # a dict keeps a null value but loses an empty string
        return not _takes_null(kind.value_type) and _unset_is_null(kind.value_type)
    return not isinstance(kind, mi.TupleType | mi.AnyType | mi.CustomType)


@functools.cache
def _reads_no_empty_text(kind: type[msgspec.Struct]) -> bool:
    """:returns: whether no member of an object inside ``kind`` can read an empty string: each
    is a number, a date, a flag, an object or list of these, text that must not be empty
    (:data:`~sevdesk_mcp.sevdesk.wire.Text`), or text whose default is the empty string. Then
    the JSON of its list reads the same with and without the substitution (where an empty
    string stands, the decoding fails and the page is read again with it)."""
    return all(_member_refuses_empty(f) for f in _struct(kind).fields)


def _struct(kind: type[msgspec.Struct]) -> mi.StructType:
    info = mi.type_info(kind)
    assert isinstance(info, mi.StructType)
    return info


def _member_refuses_empty(field: mi.Field) -> bool:
    if isinstance(field.type, mi.StrType) and not field.required and field.default == "":
        return True  # an empty string read is the default a missing member gives
    return _refuses_empty(field.type)


def _refuses_empty(kind: mi.Type) -> bool:
    if isinstance(kind, mi.StrType):
        return (kind.min_length or 0) >= 1
    if isinstance(kind, mi.StructType):
        return all(_member_refuses_empty(f) for f in kind.fields)
    if isinstance(kind, mi.UnionType):
        return all(_refuses_empty(t) for t in kind.types)
    if isinstance(kind, mi.ListType):  # the substitution leaves items alone: text in a list too
        return isinstance(kind.item_type, mi.StrType) or _refuses_empty(kind.item_type)
    return isinstance(kind, _NEVER_TEXT)


_NEVER_TEXT: Final = (
    mi.IntType,
    mi.FloatType,
    mi.DecimalType,
    mi.BoolType,
    mi.DateTimeType,
    mi.DateType,
    mi.NoneType,
)


def _field_ok(field: mi.Field) -> bool:
    if _takes_null(field.type) and (field.required or field.default is not None):
        return False
    return _unset_is_null(field.type)


def _takes_null(kind: mi.Type) -> bool:
    if isinstance(kind, mi.Metadata):
        return _takes_null(kind.type)
    if isinstance(kind, mi.UnionType):
        return any(_takes_null(t) for t in kind.types)
    return isinstance(kind, mi.NoneType | mi.AnyType)


def convert(
    rows: list[dict[str, JsonValue]], kind: type[msgspec.Struct] | None
) -> list[object] | None:
    """:returns: ``rows`` converted into ``kind``; ``None`` without a kind or when one does
    not fit (the reader converts them again and raises then)."""
    if kind is None:
        return None
    try:
        return list(wire.parse_all(rows, kind))
    except MalformedResponseError:
        return None


def joined(kind: type | None, pages: list[Rows], count: int) -> Parsed | None:
    """:returns: the converted pages as one list of their first ``count`` records; ``None``
    unless every page was converted."""
    if kind is None or any(p.records is None for p in pages):
        return None
    return Parsed(kind, [r for p in pages if p.records is not None for r in p.records][:count])


def items_of(pages: list[Rows], count: int) -> Items:
    """:returns: the dicts of ``pages``, the first ``count`` of them."""
    return [row for page in pages for row in page.items()][:count]


def records(page: Page, kind: type[T]) -> list[T]:
    """:returns: the items of ``page`` converted into ``kind`` (as they arrived, if they were).

    :raises MalformedResponseError: if one does not fit.
    """
    if page.parsed is not None and page.parsed.kind is kind:
        return cast("list[T]", list(page.parsed.records))
    return wire.parse_all(page.items, kind)
