"""The commit-tier document tools on the demo books, with a human answering the approval form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.transport import api_path
from sevdesk_mcp.mcp.app import McpApp
from tests.wire import open_wire
from tests.writes.helpers import approved
from tests.writes.tool_helpers import body, error_text, facts, write_app, writes

__all__ = ["approved", "body", "facts", "writes"]

ALL = {"SEVDESK_ALLOW": "write,commit,external"}
ONLINE = 5001  # Geschäftskonto Dreisambank (online)
REGISTER = 5002  # Kasse Werkstattladen (cash register)
OPEN_INVOICE = 700037  # RE-1037, open, 763.98 EUR; transaction 900075 pays it
PAYING_TX = 900075  # +763.98, unbooked, "Rechnung RE-1037"
PARTLY_PAID = 700030  # RE-1030, 2541.84 EUR, 1271 paid
PAID_INVOICE = 700032  # RE-1032, paid by transaction 900065 (649.38)
DRAFT_INVOICE = 700041  # a draft without number
CANCELLED = 700006  # RE-1006, cancelled by the Stornorechnung 700007 (RE-1007)
STORNO = 700007
OPEN_CREDIT_NOTE = 720002  # GU-1002, open, 95.20 EUR, on invoice 700029
WITH_DRAFT_NOTE = 700037  # the credit-note draft 720003 refers to it
EXPENSE = 800026  # Beleg SK-26-0711, open expense (C), 3546.20 EUR
REVENUE = 800030  # Beleg RH-2026-04, open revenue (D), 142.80 EUR
VOUCHER_DRAFT = 800031  # Beleg FB-4410, a draft (50)
OUTGOING_TX = 900069  # -240.00, unbooked


def commit_app(
    fake: FakeSevdesk,
    env: dict[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> McpApp:
    """:returns: the server with every tier on ``fake``."""
    return write_app(fake, {**ALL, **(env or {})}, transport)


class ChangeBefore(httpx.AsyncBaseTransport):
    """Answers from the fake, but changes its books right before the request ``method path``
    arrives: sevDesk changed after the human approved (another user, another tab)."""

    def __init__(
        self, fake: FakeSevdesk, method: str, path: str, change: Callable[[Store], None]
    ) -> None:
        self._inner, self._store = fake.transport(), fake.store
        self._method, self._path, self._change = method, path, change

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == self._method and api_path(request.url.path) == self._path:
            self._change(self._store)
        return await self._inner.handle_async_request(request)


async def dry_run(app: McpApp, name: str, /, **arguments: Any) -> dict[str, Any]:
    """:returns: the ``structuredContent`` of a dry run (nobody is asked)."""
    params = {"name": name, "arguments": {**arguments, "dryRun": True}}
    async with open_wire(app) as wire:
        result = (await wire.modern("tools/call", params, caps={}))["result"]
    assert not result.get("isError"), result
    data: dict[str, Any] = result["structuredContent"]
    assert data["status"] == "dry_run"
    return data


refusal = error_text
