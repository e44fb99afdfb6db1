"""Every read tool once, through the real server and the real client, against the account of
``SEVDESK_LIVE_TOKEN`` (read-only: ``SEVDESK_READ_ONLY=1``; the write gate refuses any write).

Ids the tools need are the first ones the account lists; a tool whose kind of record the
account does not hold is skipped with that reason. Tools that read local files
(``SEVDESK_FILE_DIRS``) are left out: they read no account data of their own.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from tests.live.live_env import live_client, live_url, requires_token
from tests.wire import open_wire

pytestmark = [pytest.mark.live, requires_token, pytest.mark.anyio]

INDEX: list[dict[str, Any]] = json.loads(
    resources.files("sevdesk_mcp.tools").joinpath("index.json").read_text(encoding="utf-8")
)
TOOLSETS = ",".join(sorted({t["toolset"] for t in INDEX}))  # "advanced" is off by default
READ_TOOLS = [t for t in INDEX if t["tier"] == "read" and t["needs_files"] is None]
FIRST_OF = {  # argument: the list whose first id it takes
    "contact_id": "/Contact",
    "document_id": "/Invoice",
    "invoice_id": "/Invoice",
    "voucher_id": "/Voucher",
}
FIXED = {"description": "Bürobedarf", "path": "/Unity"}


async def first_id(client: SevdeskClient, path: str) -> int:
    found = await client.get(path, {"limit": 1})
    if not isinstance(found, list) or not found or not isinstance(found[0], dict):
        pytest.skip(f"the live account holds nothing in {path} to read")
    return int(str(found[0]["id"]))


async def arguments(tool: dict[str, Any], client: SevdeskClient) -> dict[str, Any]:
    schema = tool["input_schema"]
    out: dict[str, Any] = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        if "enum" in prop:
            out[name] = prop["enum"][0]
        elif name in FIRST_OF:
            out[name] = await first_id(client, FIRST_OF[name])
        elif name in FIXED:
            out[name] = FIXED[name]
        else:
            pytest.fail(f"{tool['name']}: teach tests/live/test_live_reads.py a value for {name}")
    return out


@pytest.mark.parametrize("tool", READ_TOOLS, ids=[t["name"] for t in READ_TOOLS])
async def test_read_tool_against_the_live_account(tool: dict[str, Any]) -> None:
    config = load_config(
        {"SEVDESK_API_URL": live_url(), "SEVDESK_READ_ONLY": "1", "SEVDESK_TOOLSETS": TOOLSETS}
    )
    client = live_client()
    try:
        app = ServerFactory(config).build(AccountContext(config=config, client=client))
        args = await arguments(tool, client)
        async with open_wire(app) as wire:
            listed = (await wire.modern("tools/list"))["result"]["tools"]
            if tool["name"] not in {t["name"] for t in listed}:
                pytest.fail(f"{tool['name']} is not offered read-only with every toolset on")
            answer = await wire.modern("tools/call", {"name": tool["name"], "arguments": args})
        result = answer["result"]
        assert not result.get("isError"), result["content"][0]["text"]
        assert result["content"] and result["content"][0]["text"]
    finally:
        await client.aclose()
