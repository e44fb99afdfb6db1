"""Lists converted into their schema page by page, as the pages arrive.

The pages of a whole list arrive over time; converting each one (:func:`wire.parse`) as it
arrives uses the wait for the others, instead of converting the whole list after the last page.
A reader names the list and the schema around one ``get_all`` (:func:`pages_as`); the client
converts each page of that list as it arrives (:func:`convert`) and keeps the result on the
:class:`~sevdesk_mcp.sevdesk.page.Page`; :func:`records` takes it from there, or converts the
items itself when the client could not (another port, or a page that does not fit: then the
same :class:`~sevdesk_mcp.errors.MalformedResponseError` is raised as without this module).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar, cast

import msgspec

from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.page import Page, Parsed

T = TypeVar("T", bound=msgspec.Struct)

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


def joined(kind: type | None, parts: list[list[object] | None], count: int) -> Parsed | None:
    """:returns: the converted pages as one list of their first ``count`` records; ``None``
    unless every page was converted."""
    if kind is None or any(p is None for p in parts):
        return None
    return Parsed(kind, [r for p in parts if p is not None for r in p][:count])


def records(page: Page, kind: type[T]) -> list[T]:
    """:returns: the items of ``page`` converted into ``kind`` (as they arrived, if they were).

    :raises MalformedResponseError: if one does not fit.
    """
    if page.parsed is not None and page.parsed.kind is kind:
        return cast("list[T]", list(page.parsed.records))
    return wire.parse_all(page.items, kind)
