"""A list read in a rehearsal: the real list with the rehearsal's changes laid over it.

Each record written in the rehearsal is replaced by the overlay's version, or dropped when the
overlay's answer to the same query no longer has it (a booked invoice leaves the open items);
records the overlay's answer has and the real one lacks (created, or changed so that the query
now finds them) are added after the real ones, on the first page only.
"""

from __future__ import annotations

from collections.abc import Set

from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.rehearsal.seed import Key


def key_of(record: JsonValue) -> Key | None:
    """:returns: ``(objectName, id)`` of a record, or ``None`` for anything else."""
    if not isinstance(record, dict):
        return None
    name, ident = record.get("objectName"), record.get("id")
    if not isinstance(name, str) or not isinstance(ident, str | int) or isinstance(ident, bool):
        return None
    text = str(ident)
    return (name, int(text)) if text.isdigit() else None


def merged(
    real: list[JsonValue], overlay: list[JsonValue], written: Set[Key], *, first_page: bool
) -> list[JsonValue]:
    """:returns: the list a rehearsal answers (see the module's text)."""
    overlay_by_key = {k: r for r in overlay if (k := key_of(r)) is not None}
    out: list[JsonValue] = []
    seen: set[Key] = set()
    for record in real:
        key = key_of(record)
        if key is None or key not in written:
            out.append(record)
            continue
        seen.add(key)
        if key in overlay_by_key:
            out.append(overlay_by_key[key])
    if first_page:
        out.extend(
            record for key, record in overlay_by_key.items() if key in written and key not in seen
        )
    return out
