"""The bytes of each read tool's text content on the demo books, every tier on: one call per
tool with no arguments or the fewest it needs (the e-invoice readers need a file and are left
out). Used by the budget test and by ``bench/result_sizes.py``."""

from __future__ import annotations

from typing import Any, Final

from sevdesk_mcp.mcp.types import MODERN_VERSION
from tests.demo_account import demo_app
from tests.wire import Frame, Wire, open_wire

ALL_TIERS: Final = {"SEVDESK_ALLOW": "read,write,commit,external"}
ARGUMENTS: Final[dict[str, dict[str, Any]]] = {
    "sevdesk_reference_data": {"kind": "booking_accounts"},
    "sevdesk_get_contact": {"contact_id": 410001},
    "sevdesk_get_document": {"document_id": 700037},
    "sevdesk_document_pdf": {"document_id": 700037},
    "sevdesk_get_voucher": {"voucher_id": 800001},
    "sevdesk_suggest_booking_account": {"description": "Druckerpapier"},
    "sevdesk_preflight_einvoice": {"invoice_id": 700041},
}
NEEDS_A_FILE: Final = frozenset({"sevdesk_read_einvoice", "sevdesk_suggest_einvoice_receipt"})


async def text_sizes(version: str = "2025-11-25") -> dict[str, int]:
    """:returns: per read tool, the bytes (UTF-8) of its result's text content, in a session
    of protocol ``version`` (by default the 2025 era: the text is all a client without
    structured output gets) or in 2026-07-28 requests."""
    sizes: dict[str, int] = {}
    async with open_wire(demo_app(ALL_TIERS)) as wire:
        if version != MODERN_VERSION:
            await wire.initialize(version)
        listed = (await _ask(wire, version, "tools/list", {}))["result"]["tools"]
        for tool in listed:
            name = tool["name"]
            if not tool["annotations"]["readOnlyHint"] or name in NEEDS_A_FILE:
                continue
            params = {"name": name, "arguments": ARGUMENTS.get(name, {})}
            result = (await _ask(wire, version, "tools/call", params))["result"]
            assert not result.get("isError"), result
            texts = [c["text"] for c in result["content"] if c["type"] == "text"]
            sizes[name] = sum(len(t.encode("utf-8")) for t in texts)
    return sizes


async def _ask(wire: Wire, version: str, method: str, params: Frame) -> Frame:
    if version == MODERN_VERSION:
        return await wire.modern(method, params)
    return await wire.request(method, params)
