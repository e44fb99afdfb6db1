"""What ``prepare`` read: a digest of every answer, so an approval binds the records themselves.

A write tool's ``prepare`` runs on a read-only client view that carries a :class:`Witness`.
Every successful read is recorded under a label naming the request (``/Invoice/42``,
``/Invoice/42/getPositions``), as the SHA-256 of its canonical JSON (keys sorted). An approval
binds these digests; the approved retry reads everything again and any difference (a changed
position, text, date, status or update time, an answer that appeared or went away) asks the
human again, naming the request whose answer changed.

Reads of one ``prepare`` may run concurrently and their answers arrive in any order, so nothing
here depends on the order: the pages of one list are kept by offset and folded in offset order,
and the records are given sorted by label.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlencode

import msgspec

from sevdesk_mcp.jsontypes import JsonValue

_PAGING: Final = frozenset({"offset", "countAll"})


class Witness:
    """Collects the digests of the answers one ``prepare`` read."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[str, dict[int, str]] = {}

    def saw(self, path: str, params: Mapping[str, str], answer: JsonValue) -> None:
        """Record one answer, replacing an earlier one of the same request and page; the pages
        of one list (``offset`` above 0) belong to the entry of its first page."""
        data = msgspec.json.encode(answer, order="sorted")
        offset = params.get("offset", "0")
        page = int(offset) if offset.isascii() and offset.isdigit() else -1
        self._seen.setdefault(label(path, params), {})[page] = hashlib.sha256(data).hexdigest()

    def records(self) -> dict[str, str]:
        """:returns: label -> SHA-256 (hex) of every answer read (a list's pages folded in
        offset order), sorted by label: the same whatever order the answers arrived in."""
        return {name: _fold(pages) for name, pages in sorted(self._seen.items())}


def _fold(pages: dict[int, str]) -> str:
    if list(pages) == [0]:
        return pages[0]
    joined = "".join(f"{offset}:{digest};" for offset, digest in sorted(pages.items()))
    return hashlib.sha256(joined.encode()).hexdigest()


def label(path: str, params: Mapping[str, str]) -> str:
    """:returns: the request as a human can name it and as the witness keys it: the path and
    its query without the offset and ``countAll`` (the pages of one list share it), escaped, so
    two different requests never share a name."""
    query = urlencode(sorted((k, v) for k, v in params.items() if k not in _PAGING))
    return f"{path}?{query}" if query else path
