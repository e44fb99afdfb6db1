"""Envelopes, paging and list filters (``docs/sevdesk-api.md`` §1, Q1, Q2, Q7, Q12, Q19).

- Lists are ``{"objects": [...]}``, paged by ``limit`` (1..1000, else HTTP 400) and ``offset``;
  without ``limit`` at most 100 rows come back. ``countAll=true`` adds ``"total"`` as a string.
- A GET by id is an array of one (Q2); creates and actions a bare object (Q1); a DELETE is
  ``{"objects": [null]}`` (Q7).
- Filters are looked up by exact query key; any other key is ignored, so a misspelled filter
  returns everything (Q12).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Final, TypeVar

from sevdesk_mcp.fake.coerce import parse_datetime
from sevdesk_mcp.fake.router import Context, Reply
from sevdesk_mcp.fake.wire import BERLIN, FakeError, Ref
from sevdesk_mcp.jsontypes import JsonValue

T = TypeVar("T")
Filter = Callable[[T, str], bool]

DEFAULT_PAGE_ROWS: Final = 100
MAX_LIMIT_ROWS: Final = 1000
LIMIT_MESSAGE: Final = (
    "Invalid 'limit' parameter. Please provide an integer value between 1 and 1000."
)
_DIGITS: Final = re.compile(r"\d+")
_TRUE: Final = frozenset({"1", "true"})


def page_bounds(query: Mapping[str, str]) -> tuple[int, int]:
    """:returns: ``(limit, offset)`` of a list request.

    :raises FakeError: 400 with sevDesk's message when ``limit`` is not an integer in 1..1000.
    """
    raw = query.get("limit")
    if raw is None:
        limit = DEFAULT_PAGE_ROWS
    elif _DIGITS.fullmatch(raw) and 1 <= int(raw) <= MAX_LIMIT_ROWS:
        limit = int(raw)
    else:
        raise FakeError(400, LIMIT_MESSAGE)
    offset_raw = query.get("offset", "0")
    offset = int(offset_raw) if _DIGITS.fullmatch(offset_raw) else 0
    return limit, offset


def list_reply(ctx: Context, rows: Sequence[T], render: Callable[[T], JsonValue]) -> Reply:
    """:returns: one page of ``rows`` rendered, with ``"total"`` on ``countAll=true``.

    :raises FakeError: 400 for an invalid ``limit``.
    """
    limit, offset = page_bounds(ctx.query)
    payload: dict[str, JsonValue] = {"objects": [render(r) for r in rows[offset : offset + limit]]}
    if ctx.flag("countAll"):
        payload["total"] = str(len(rows))
    return Reply(payload)


def one_reply(obj: JsonValue) -> Reply:
    """:returns: a GET-by-id answer: an array of one (Q2)."""
    return Reply({"objects": [obj]})


def object_reply(obj: JsonValue, status: int = 200) -> Reply:
    """:returns: a create, factory or action answer: the bare object (Q1), or a scalar."""
    return Reply({"objects": obj}, status)


def deleted_reply() -> Reply:
    """:returns: the answer to a DELETE, ``{"objects": [null]}`` (Q7)."""
    return Reply({"objects": [None]})


def filtered(
    rows: Sequence[T], query: Mapping[str, str], filters: Mapping[str, Filter[T]]
) -> list[T]:
    """:returns: the rows that pass every filter named in ``query``; other keys are ignored."""
    result = list(rows)
    for key, keep in filters.items():
        if key in query:
            value = query[key]
            result = [r for r in result if keep(r, value)]
    return result


def by_int(get: Callable[[T], int | None]) -> Filter[T]:
    """:returns: a filter on an integer field (``status=200``); non-numbers match nothing."""
    return lambda row, value: value.strip().isdigit() and get(row) == int(value)


def by_text(get: Callable[[T], str | None]) -> Filter[T]:
    """:returns: a filter on exact text (``customerNumber``, ``customerInternalNote``)."""
    return lambda row, value: get(row) == value


def containing(get: Callable[[T], str | None]) -> Filter[T]:
    """:returns: a case-insensitive substring filter (``name``, ``paymtPurpose``)."""
    return lambda row, value: value.casefold() in (get(row) or "").casefold()


def by_ref(get: Callable[[T], Ref | None]) -> Filter[T]:
    """:returns: a filter on a relation's id (``contact[id]=5``)."""

    def keep(row: T, value: str) -> bool:
        ref = get(row)
        return ref is not None and value.strip().isdigit() and ref.id == int(value)

    return keep


def _instant(value: str, iso_allowed: bool) -> datetime | None:
    text = value.strip()
    if _DIGITS.fullmatch(text):
        return datetime.fromtimestamp(int(text), BERLIN)
    if not iso_allowed:
        return None
    try:
        return parse_datetime(text, "date")
    except FakeError:
        return None


def since(get: Callable[[T], datetime | None], *, iso_allowed: bool = False) -> Filter[T]:
    """:returns: a ``startDate`` filter; without ``iso_allowed`` only Unix seconds match, and
    an ISO date gives an empty list (Q19).
    """

    def keep(row: T, value: str) -> bool:
        bound, when = _instant(value, iso_allowed), get(row)
        return bound is not None and when is not None and when >= bound

    return keep


def until(get: Callable[[T], datetime | None], *, iso_allowed: bool = False) -> Filter[T]:
    """:returns: an ``endDate`` filter with the rules of :func:`since`."""

    def keep(row: T, value: str) -> bool:
        bound, when = _instant(value, iso_allowed), get(row)
        return bound is not None and when is not None and when <= bound

    return keep


def after(get: Callable[[T], datetime | None]) -> Filter[T]:
    """:returns: an ``updateAfter`` filter: strictly later than the Unix seconds given; like the
    date filters of Q19, any other form matches nothing (UNVERIFIED for this filter).
    """

    def keep(row: T, value: str) -> bool:
        bound, when = _instant(value, iso_allowed=False), get(row)
        return bound is not None and when is not None and when > bound

    return keep


def when_true(test: Callable[[T], bool]) -> Filter[T]:
    """:returns: a flag filter that works for ``true``/``1`` and ignores every other value (Q13)."""
    return lambda row, value: value.lower() not in _TRUE or test(row)
