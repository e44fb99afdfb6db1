"""Apps with the write fixtures on the demo books."""

from __future__ import annotations

from typing import Any

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools import catalog
from tests.demo_account import DEMO_URL, fake_client
from tests.write_fixtures import WRITE_FIXTURES

ALL = {"SEVDESK_ALLOW": "write,commit,external"}
DRAFT_ID = 700041  # an invoice draft of the demo books (status 100, no number)


def write_app(
    fake: FakeSevdesk, env: dict[str, str] | None = None, factory: ServerFactory | None = None
) -> McpApp:
    config = load_config({**ALL, **(env or {}), "SEVDESK_API_URL": DEMO_URL})
    factory = factory or ServerFactory(config, catalog_tools=(*catalog.ALL_TOOLS, *WRITE_FIXTURES))
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
