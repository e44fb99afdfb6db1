"""One page of a list read from sevDesk: plain data, so the domain's port can name it without
importing the HTTP client."""

from __future__ import annotations

from dataclasses import dataclass

from sevdesk_mcp.jsontypes import JsonValue


@dataclass(frozen=True, slots=True)
class Parsed:
    """The objects of a list already converted, one for each item, in the same order."""

    kind: type
    records: list[object]


@dataclass(frozen=True, slots=True)
class Page:
    """Objects of a list, and whether more existed than were asked for.

    ``parsed`` holds them converted into a schema when the reader asked for that while the
    pages arrived (``parsed.py``); ``None`` otherwise.
    """

    items: list[dict[str, JsonValue]]
    truncated: bool
    parsed: Parsed | None = None
