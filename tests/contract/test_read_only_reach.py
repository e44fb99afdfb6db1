"""A read-only configuration reaches no endpoint that changes data.

Every registered tool is driven (with the smallest valid arguments) against the demo books behind
a transport that fails the test on any request that is not a plain read: any non-GET, a getPdf
without preventSendBy=true, sendByWithRender, DATEV export jobs, or number reservations. This
list is written out here on purpose, independent of the client's own classification.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from tests.demo_account import DEMO_URL, FAST
from tests.wire import open_wire

pytestmark = pytest.mark.anyio
KNOWN_IDS = {
    "contact_id": 410001,
    "document_id": 700037,
    "voucher_id": 800001,
    "account_id": 5001,
    "part_id": 610001,
    "description": "Druckerpapier",
    "invoice_id": 700041,
}
NEEDS_A_FILE = frozenset(  # local e-invoice files (SEVDESK_FILE_DIRS): tests/einvoice/test_tools.py
    {"sevdesk_read_einvoice", "sevdesk_suggest_einvoice_receipt"}
)


class ReadOnlyWitness(httpx.AsyncBaseTransport):
    """Forwards plain reads to the fake; records anything else as a violation."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.violations: list[str] = []
        self.reads = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path, params = request.url.path, request.url.params
        unsafe = (
            request.method != "GET"
            or (path.endswith("/getPdf") and params.get("preventSendBy") != "true")
            or path.endswith("/sendByWithRender")
            or "/Export/createDatev" in path
            or path.endswith("/SevSequence/Factory/getByType")
        )
        if unsafe:
            self.violations.append(f"{request.method} {request.url}")
            return httpx.Response(500, json={"objects": None})
        self.reads += 1
        return await self.inner.handle_async_request(request)


def smallest_arguments(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool["inputSchema"]
    arguments = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        if "enum" in prop:
            arguments[name] = prop["enum"][0]
        elif name in KNOWN_IDS:
            arguments[name] = KNOWN_IDS[name]
        else:
            pytest.fail(f"{tool['name']}: teach this test a value for {name}")
    return arguments


@pytest.mark.parametrize("env", [{}, {"SEVDESK_READ_ONLY": "1", "SEVDESK_ALLOW": "write,commit"}])
async def test_every_read_tool_makes_only_plain_reads(env: dict[str, str]) -> None:
    config = load_config({**env, "SEVDESK_API_URL": DEMO_URL})
    witness = ReadOnlyWitness(build_demo().transport())
    client = SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(build_demo().token),
        limits=FAST,
        gate=WriteGate(tiers=config.tiers, read_only=config.read_only),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        transport=witness,
    )
    app = ServerFactory(config).build(AccountContext(config=config, client=client))
    async with open_wire(app) as wire:
        tools = (await wire.modern("tools/list"))["result"]["tools"]
        assert all(t["annotations"]["readOnlyHint"] for t in tools)
        for tool in [t for t in tools if t["name"] not in NEEDS_A_FILE]:
            params = {"name": tool["name"], "arguments": smallest_arguments(tool)}
            result = (await wire.modern("tools/call", params))["result"]
            assert not result.get("isError"), (tool["name"], result["content"][0]["text"])
        for kind in ("invoices", "credit-notes", "orders"):
            uri = "sevdesk://" + kind + "/{id}/pdf"
            ids = {"invoices": 700001, "credit-notes": 720001, "orders": 740001}
            read = await wire.modern("resources/read", {"uri": uri.format(id=ids[kind])})
            assert "result" in read, read
    assert witness.violations == []
    assert witness.reads > len(tools)
