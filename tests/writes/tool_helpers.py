"""Apps with the product's write tools on the demo books, and a transport that queues a fault."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk
from sevdesk_mcp.fake.transport import api_path
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.preview import Preview, Words
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from tests.demo_account import DEMO_URL, FAST
from tests.results.text_form import check_text
from tests.wire import open_wire

WRITE = {"SEVDESK_ALLOW": "write"}
WRITE_TOOLS = (
    "sevdesk_create_contact",
    "sevdesk_update_contact",
    "sevdesk_create_part",
    "sevdesk_update_part",
)


class FailAfter(httpx.AsyncBaseTransport):
    """Answers from the fake and, once the request ``method path`` was answered, queues an
    error answer with ``status`` for the next request (so that one fails deterministically)."""

    def __init__(self, fake: FakeSevdesk, method: str, path: str, status: int = 500) -> None:
        self._fake, self._inner = fake, fake.transport()
        self._method, self._path, self._status = method, path, status
        self.fired = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        hit = request.method == self._method and api_path(request.url.path) == self._path
        if hit and not self.fired:
            self.fired = True
            self._fake.faults.fail_next(self._status)
        return response


def write_app(
    fake: FakeSevdesk,
    env: dict[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> McpApp:
    """:returns: the product's server on ``fake`` with the write tier (plus ``env``)."""
    config = load_config({**WRITE, **(env or {}), "SEVDESK_API_URL": DEMO_URL})
    client = SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(DEMO_TOKEN),
        gate=WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        limits=FAST,
        transport=transport or fake.transport(),
    )
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(config).build(account)


async def call(app: McpApp, name: str, /, **arguments: Any) -> dict[str, Any]:
    """:returns: the ``tools/call`` result (2026-07-28, so with ``structuredContent``)."""
    async with open_wire(app) as wire:
        answer = await wire.modern("tools/call", {"name": name, "arguments": arguments})
    result: dict[str, Any] = answer["result"]
    if not result.get("isError"):
        check_text(name, result)
    return result


def error_text(result: dict[str, Any]) -> str:
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
    """:returns: the preview's facts by label, as the model reads them (English, machine forms,
    third-party text fenced; the lines of a value joined by line breaks)."""
    words = Words("en", "model")
    shown = msgspec.convert(preview, Preview)
    return {words.text(f.label): "\n".join(words.value_lines(f.value)) for f in shown.facts}


def said(preview: dict[str, Any]) -> tuple[str, list[str]]:
    """:returns: the preview's action and its warnings, as the model reads them."""
    words = Words("en", "model")
    shown = msgspec.convert(preview, Preview)
    return words.text(shown.action), [words.text(w) for w in shown.warnings]


def undo(preview: dict[str, Any]) -> str | None:
    """:returns: the preview's undo sentence as the model reads it, ``None`` if it has none."""
    shown = msgspec.convert(preview, Preview)
    return None if shown.undo is None else Words("en", "model").text(shown.undo)


def person_said(preview: dict[str, Any]) -> list[str]:
    """:returns: the preview's action and warnings as a German-speaking person reads them."""
    words = Words("de", "person")
    shown = msgspec.convert(preview, Preview)
    return [words.text(shown.action), *(words.text(w) for w in shown.warnings)]
