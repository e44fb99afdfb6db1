"""Whole lists for checks that decide: never on part of a list.

A search may show the first thousands of matches with a note; a check that decides whether a
write may go ahead (is this customer number taken, does a credit note exist, which payments
would a reset remove) must see every entry. :func:`read_whole` pages to the end, up to a hard cap
that keeps one call inside sevDesk's pacing and the process's memory, and refuses beyond it
rather than decide on a partial list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk.paths import QueryValue

WHOLE_LIST_CAP: Final = 100_000


class ListTooLongError(PreconditionError):
    """A check needs a whole list that is longer than :data:`WHOLE_LIST_CAP`."""


async def read_whole(
    client: SevdeskPort,
    path: str,
    query: Mapping[str, QueryValue] | None = None,
    *,
    what: str,
    cap: int = WHOLE_LIST_CAP,
) -> list[dict[str, JsonValue]]:
    """:returns: every entry of the list at ``path``.

    :param what: the entries in plain words, for the refusal (``"contacts"``).
    :raises ListTooLongError: if sevDesk lists more than ``cap`` entries.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    page = await client.get_all(path, query, max_items=cap)
    if page.truncated:
        raise ListTooLongError(
            f"sevDesk lists more than {cap:,} {what}. This check needs all of them and will not "
            "decide on part of the list, so nothing was changed; do this step in sevDesk itself.",
            record=path,
        )
    return page.items
