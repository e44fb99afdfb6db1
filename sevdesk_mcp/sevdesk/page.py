"""One page of a list read from sevDesk: plain data, so the domain's port can name it without
importing the HTTP client."""

from __future__ import annotations

from dataclasses import dataclass

from sevdesk_mcp.jsontypes import JsonValue


@dataclass(frozen=True, slots=True)
class Page:
    """Objects of a list, and whether more existed than were asked for."""

    items: list[dict[str, JsonValue]]
    truncated: bool
