"""Checks that decide never decide on part of a list (issue 13, step 8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from sevdesk_mcp.domain.documents.kinds import KINDS
from sevdesk_mcp.domain.documents.search import list_documents
from sevdesk_mcp.domain.whole_lists import ListTooLongError, read_whole
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk.page import Page

pytestmark = pytest.mark.anyio


class Lists:
    """A port whose lists hold ``size`` entries, answered up to ``max_items`` like the client."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.asked: list[int] = []

    async def get_all(
        self, path: str, query: Mapping[str, Any] | None = None, *, max_items: int
    ) -> Page:
        self.asked.append(max_items)
        shown = min(self.size, max_items)
        items: list[dict[str, JsonValue]] = [
            {"id": n + 1, "objectName": "Invoice"} for n in range(shown)
        ]
        return Page(items, truncated=self.size > max_items)


async def test_a_whole_list_is_read_to_the_end() -> None:
    port = Lists(25_000)
    entries = await read_whole(port, "/Contact", what="contacts")  # type: ignore[arg-type]
    assert len(entries) == 25_000


async def test_a_list_beyond_the_cap_is_refused_not_decided_on() -> None:
    with pytest.raises(ListTooLongError, match="more than 5 contacts"):
        await read_whole(Lists(6), "/Contact", what="contacts", cap=5)  # type: ignore[arg-type]


async def test_documents_for_a_check_are_read_whole_and_for_a_search_are_capped() -> None:
    port = Lists(30_000)
    whole = await list_documents(port, KINDS["invoice"], {}, whole=True)  # type: ignore[arg-type]
    searched = await list_documents(port, KINDS["invoice"], {})  # type: ignore[arg-type]
    assert len(whole) == 30_000 and len(searched) == 20_000
