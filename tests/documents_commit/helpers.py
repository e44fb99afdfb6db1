"""The commit-tier document tools on the demo books, with a human answering the approval form."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.transport import api_path
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from sevdesk_mcp.tools import catalog, documents_commit
from tests.demo_account import DEMO_URL, FAST
from tests.wire import FORM, open_wire
from tests.writes.helpers import approve

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


def _tools() -> tuple[Any, ...]:
    known = {t.name for t in catalog.ALL_TOOLS}
    return (*catalog.ALL_TOOLS, *(t for t in documents_commit.TOOLS if t.name not in known))


def commit_app(
    fake: FakeSevdesk,
    env: dict[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> McpApp:
    """:returns: the server with every tier and the commit document tools on ``fake``."""
    config = load_config({**ALL, **(env or {}), "SEVDESK_API_URL": DEMO_URL})
    client = SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(DEMO_TOKEN),
        gate=WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        limits=FAST,
        transport=transport or fake.transport(),
    )
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(config, catalog_tools=_tools()).build(account)


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


async def approved(
    app: McpApp, name: str, answer: dict[str, Any] | None = None, /, **arguments: Any
) -> tuple[str, dict[str, Any]]:
    """Call a commit tool and answer its approval form (approve by default).

    :returns: the form's message (the rendered preview, "" if none was asked) and the final
        ``tools/call`` result.
    """
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    async with open_wire(app) as wire:
        first = (await wire.modern("tools/call", params, caps=FORM))["result"]
        if first.get("isError") or "inputRequests" not in first:
            return "", first
        (form,) = first["inputRequests"].values()
        responses = answer or approve()
        again = {**params, "requestState": first["requestState"], "inputResponses": responses}
        second = (await wire.modern("tools/call", again, caps=FORM))["result"]
    if not second.get("isError"):
        assert json.loads(second["content"][0]["text"]) == second["structuredContent"]
    return str(form["params"]["message"]), second


def refusal(result: dict[str, Any]) -> str:
    """:returns: the text of an error result (and checks it is one)."""
    assert result.get("isError") is True, result
    text: str = result["content"][0]["text"]
    return text


def writes(fake: FakeSevdesk) -> list[str]:
    """:returns: ``METHOD /path`` of every request that was not a GET, in order."""
    return [f"{r.method} {r.path}" for r in fake.requests if r.method != "GET"]


def body(fake: FakeSevdesk, method: str, path: str) -> dict[str, Any]:
    """:returns: the JSON body of the only ``method path`` request."""
    (found,) = [r for r in fake.requests if r.method == method and r.path == path]
    parsed: dict[str, Any] = json.loads(found.body)
    return parsed


def facts(preview: dict[str, Any]) -> dict[str, str]:
    """:returns: the preview's facts by label."""
    return {f["label"]: f["value"] for f in preview["facts"]}
