"""What ``prepare`` read: a digest of every answer, so an approval binds the records themselves.

A write tool's ``prepare`` runs on a read-only client view that carries a :class:`Witness`.
Every successful read is recorded under a label naming the request (``/Invoice/42``,
``/Invoice/42/getPositions``), as the SHA-256 of its canonical JSON (keys sorted). An approval
binds these digests; the approved retry reads everything again and any difference (a changed
position, text, date, status or update time, an answer that appeared or went away) asks the
human again, naming the request whose answer changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from urllib.parse import urlencode

import msgspec

from sevdesk_mcp.jsontypes import JsonValue


class Witness:
    """Collects the digests of the answers one ``prepare`` read."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def saw(self, path: str, params: Mapping[str, str], answer: JsonValue) -> None:
        """Record one answer, replacing an earlier one of the same request; the pages of one
        list (``offset`` above 0) are folded into the entry of its first page."""
        name = label(path, params)
        data = msgspec.json.encode(answer, order="sorted")
        offset = params.get("offset", "0")
        previous = self._seen.get(name, "") if offset != "0" else ""
        self._seen[name] = hashlib.sha256(f"{previous}:{offset}:".encode() + data).hexdigest()

    def records(self) -> dict[str, str]:
        """:returns: label -> SHA-256 (hex) of every answer read, in reading order."""
        return dict(self._seen)


def label(path: str, params: Mapping[str, str]) -> str:
    """:returns: the request as a human can name it and as the witness keys it: the path and
    its query without the offset, escaped, so two different requests never share a name."""
    query = urlencode(sorted((k, v) for k, v in params.items() if k != "offset"))
    return f"{path}?{query}" if query else path
