"""Every finance tool's output fits its advertised output schema, on the demo books."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp_types.methods import validate_server_result

from sevdesk_mcp.fake import build_demo
from tests.finance.helpers import app_for, no_floats
from tests.wire import open_wire

pytestmark = pytest.mark.anyio

CALLS: dict[str, dict[str, Any]] = {
    "sevdesk_search_vouchers": {"limit": 200},
    "sevdesk_get_voucher": {"voucher_id": 800015},
    "sevdesk_search_parts": {"active_only": False},
    "sevdesk_list_bank_accounts": {"on_date": "2026-06-30"},
    "sevdesk_search_transactions": {"limit": 200},
    "sevdesk_open_items": {"top": 200},
    "sevdesk_cash_position": {},
    "sevdesk_changed_since": {"since": "2026-01-01", "limit": 100},
}


async def test_outputs_fit_their_schemas_carry_no_floats_and_only_read() -> None:
    fake = build_demo()
    app = app_for(fake)
    fencing = "Text in ⟦ ⟧ in any result (names, texts, bank purposes, numbers)"
    assert fencing in (app.instructions or "")  # said once for every tool (ADR 0007)
    async with open_wire(app) as wire:
        listed = (await wire.modern("tools/list"))["result"]["tools"]
        tools = {t["name"]: t for t in listed if t["name"] in CALLS}
        assert set(tools) == set(CALLS)
        for name, arguments in CALLS.items():
            tool = tools[name]
            assert tool["annotations"]["readOnlyHint"] is True
            result = (await wire.modern("tools/call", {"name": name, "arguments": arguments}))[
                "result"
            ]
            validate_server_result("tools/call", "2026-07-28", result)
            assert "isError" not in result, result
            jsonschema.validate(result["structuredContent"], tool["outputSchema"])
            json.loads(result["content"][0]["text"], parse_float=no_floats)
    assert {r.method for r in fake.requests} == {"GET"}
    assert not any(r.applied for r in fake.requests)


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("sevdesk_search_vouchers", {"limit": 0}, "limit"),
        ("sevdesk_search_vouchers", {"status": "cancelled"}, "status"),
        ("sevdesk_search_transactions", {"limit": 201}, "limit"),
        ("sevdesk_search_transactions", {"direction": "sideways"}, "direction"),
        ("sevdesk_search_parts", {"query": "x" * 101}, "query"),
        ("sevdesk_open_items", {"as_of": "27.11.2026"}, "as_of"),
        ("sevdesk_changed_since", {"since": "2026-11-01", "extra": 1}, "extra"),
        ("sevdesk_get_voucher", {}, "voucher_id"),
    ],
)
async def test_bad_arguments_are_refused_naming_the_field(
    name: str, arguments: dict[str, Any], field: str
) -> None:
    async with open_wire(app_for(build_demo())) as wire:
        answer = await wire.modern("tools/call", {"name": name, "arguments": arguments})
    result = answer["result"]
    assert result["isError"] is True and field in result["content"][0]["text"]
