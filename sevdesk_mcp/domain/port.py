"""The port through which domain code talks to sevDesk.

Domain functions, and the tools that call them, take a :class:`SevdeskPort`. The account's
:class:`~sevdesk_mcp.sevdesk.client.SevdeskClient` and each of its views satisfy it
structurally; a test may hand in anything else that does. The port has no tier: the write flow
gives ``execute`` a view that stamps the tool's tier, so domain code never declares one.
Tools watch the requests of a call through :func:`observed` (progress, debug logs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.sevdesk.observe import Observer as Observer  # noqa: PLC0414 - for tools
from sevdesk_mcp.sevdesk.observe import observed as observed  # noqa: PLC0414 - for tools
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.paths import QueryValue


class SevdeskPort(Protocol):
    """What the domain asks of a sevDesk account: reads, lists, writes, the system version."""

    async def get(self, path: str, query: Mapping[str, QueryValue] | None = None) -> JsonValue:
        """Read one answer.

        :raises UpstreamError: the classified failure.
        :raises WriteRefusedError: if the GET would change data.
        """
        ...

    async def send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, QueryValue] | None = None,
        json: JsonObject | None = None,
    ) -> JsonValue:
        """Make a request that may change data, at most once.

        :raises WriteRefusedError: if the write gate refuses it (nothing was sent).
        :raises OutcomeUnknownError: if it was sent and no answer arrived.
        :raises UpstreamError: the classified failure.
        """
        ...

    async def get_all(
        self, path: str, query: Mapping[str, QueryValue] | None = None, *, max_items: int
    ) -> Page:
        """Read a whole list, up to ``max_items``.

        :raises UpstreamError: the classified failure.
        """
        ...

    async def system_version(self) -> str:
        """:returns: the bookkeeping system version, ``"1.0"`` or ``"2.0"``.

        :raises UpstreamError: the classified failure.
        """
        ...
