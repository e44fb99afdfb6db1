"""How a whole list is read: the page size, the total sevDesk reports on ``countAll=true``, and
the pages that remain once the first page and the total are known (section 1, Pagination)."""

from __future__ import annotations

from typing import Final

import msgspec

PAGE_LIMIT: Final = 1000  # sevDesk refuses a larger limit with HTTP 400


class _Counted(msgspec.Struct):
    total: int | str | None = None


_COUNTED: Final = msgspec.json.Decoder(_Counted)


def total_of(body: bytes) -> int | None:
    """:returns: the ``total`` of a list answer (sevDesk sends it as a string, ``"157"``);
    ``None`` when it is absent or not a count."""
    try:
        total = _COUNTED.decode(body).total
    except (msgspec.DecodeError, RecursionError):
        return None
    if isinstance(total, str):
        total = int(total) if total.isascii() and total.isdigit() and len(total) < 16 else None
    return total if isinstance(total, int) and total >= 0 else None


def page_plan(read: int, total: int, max_items: int) -> list[tuple[int, int]]:
    """:returns: ``(offset, limit)`` of each page after the first ``read`` items, up to the
    ``total`` or one item past ``max_items`` (which tells a cut list from a whole one)."""
    end = min(total, max_items + 1)
    return [(o, min(PAGE_LIMIT, max_items + 1 - o)) for o in range(read, end, PAGE_LIMIT)]
