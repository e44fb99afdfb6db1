"""One page of a list read from sevDesk: plain data, so the domain's port can name it without
importing the HTTP client."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from sevdesk_mcp.jsontypes import JsonValue

Items = list[dict[str, JsonValue]]


class Parsed(msgspec.Struct, frozen=True):
    """The objects of a list already converted, one for each item, in the same order."""

    kind: type
    records: list[object]


class Page:
    """Objects of a list, and whether more existed than were asked for.

    ``parsed`` holds them converted into a schema when the reader asked for that while the
    pages arrived (``parsed.py``); ``None`` otherwise. A page read straight into its schema
    builds its ``items`` (dicts) only when they are first asked for (:meth:`later`).
    """

    __slots__ = ("_items", "parsed", "truncated")

    def __init__(self, items: Items, truncated: bool, parsed: Parsed | None = None) -> None:
        self._items: Items | Callable[[], Items] = items
        self.truncated = truncated
        self.parsed = parsed

    @classmethod
    def later(cls, items: Callable[[], Items], truncated: bool, parsed: Parsed | None) -> Page:
        """:returns: a page whose ``items`` are built by ``items`` when first asked for."""
        page = cls([], truncated, parsed)
        page._items = items
        return page

    @property
    def items(self) -> Items:
        """:returns: the objects as sevDesk sent them (decoded into dicts)."""
        if callable(self._items):
            self._items = self._items()
        return self._items
