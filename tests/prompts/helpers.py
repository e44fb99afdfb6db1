"""Building apps in many configurations, and reading prompts through the wire in both eras."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mcp_types.methods import validate_server_result

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.prompts.catalog import WORKFLOWS
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools import definitions
from sevdesk_mcp.tools.registry import AnyTool
from tests.wire import Wire

TOOL_NAME = re.compile(r"\bsevdesk_[a-z0-9_]+")
SAMPLES = {
    "month": "2026-10",
    "period": "2026-Q3",
    "order_number": "AB-1001",
    "invoice_number": "RE-1040",
    "contact": "Café Kastanie GmbH",
    "file": "upload:abc123",
    "bank_account": "Geschäftskonto",
}


EINVOICE_TOOLS = frozenset(
    {
        "sevdesk_read_einvoice",
        "sevdesk_suggest_einvoice_receipt",
        "sevdesk_file_einvoice",
        "sevdesk_preflight_einvoice",
    }
)
WITHOUT_EINVOICE: tuple[AnyTool, ...] = tuple(
    t for t in definitions.ALL_TOOLS if t.name not in EINVOICE_TOOLS
)


def build(
    env: dict[str, str], tools: Sequence[AnyTool] = definitions.ALL_TOOLS, principal: str = "local"
) -> McpApp:
    """:returns: the product's app for ``env`` (no sevDesk client: prompts never need one)."""
    config = load_config(env)
    factory = ServerFactory(config, catalog_tools=tools)
    return factory.build(AccountContext(config=config, principal=principal))


def arguments(prompt: dict[str, Any]) -> dict[str, str]:
    """:returns: a valid value for every argument of ``prompt``."""
    return {a["name"]: SAMPLES[a["name"]] for a in prompt.get("arguments", [])}


async def surface(wire: Wire, *, legacy: bool) -> tuple[set[str], dict[str, str]]:
    """:returns: the tool names of ``tools/list`` and every offered prompt's text."""

    async def ask(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = await (wire.request(method, params) if legacy else wire.modern(method, params))
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        validate_server_result(method, "2025-11-25" if legacy else "2026-07-28", result)
        return result

    tools = {t["name"] for t in (await ask("tools/list"))["tools"]}
    texts = {}
    for prompt in (await ask("prompts/list"))["prompts"]:
        got = await ask("prompts/get", {"name": prompt["name"], "arguments": arguments(prompt)})
        (message,) = got["messages"]
        texts[prompt["name"]] = message["content"]["text"]
    return tools, texts


ALL_PROMPTS = frozenset(w.name for w in WORKFLOWS)
