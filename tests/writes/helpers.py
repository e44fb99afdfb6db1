"""Apps with the write fixtures on the demo books."""

from __future__ import annotations

from typing import Any

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools import definitions
from tests.demo_account import DEMO_URL, fake_client
from tests.results.text_form import check_text
from tests.wire import FORM, open_wire
from tests.write_fixtures import WRITE_FIXTURES

ALL = {"SEVDESK_ALLOW": "write,commit,external"}
DRAFT_ID = 700041  # an invoice draft of the demo books (status 100, no number)


def write_app(
    fake: FakeSevdesk, env: dict[str, str] | None = None, factory: ServerFactory | None = None
) -> McpApp:
    config = load_config({**ALL, **(env or {}), "SEVDESK_API_URL": DEMO_URL})
    factory = factory or ServerFactory(
        config, catalog_tools=(*definitions.ALL_TOOLS, *WRITE_FIXTURES)
    )
    account = AccountContext(
        config=config, client=fake_client(fake, config), today=lambda: fake.today
    )
    return factory.build(account)


def writes(fake: FakeSevdesk) -> list[str]:
    return [f"{r.method} {r.path}" for r in fake.requests if r.method != "GET"]


def approve(value: bool = True, action: str = "accept") -> dict[str, Any]:
    content = {"approve": value} if action == "accept" else None
    answer: dict[str, Any] = {"action": action}
    if content is not None:
        answer["content"] = content
    return {"approve": answer}


async def approved(
    app: McpApp, name: str, answer: dict[str, Any] | None = None, /, **arguments: Any
) -> tuple[str, dict[str, Any]]:
    """Call a commit or external tool and answer its approval form (approve by default).

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
        check_text(name, second)
    return str(form["params"]["message"]), second
