"""The size of the 2026-07-28 ``tools/list`` answer per tier configuration (issue 14, point 4).

Bytes of the answer as the server writes it (one compact JSON line). The 30 tools the issue
measured must stay within its goal, 40 KiB with all tiers (docs/adr/0007), and so must the
read-only and read+write answers of those tools within the sizes measured when the schemas
became compact. Tools added since (later toolsets) get a budget per tool instead: every tool at
most :data:`MAX_TOOL_BYTES`, and all of them on average no more than the issue's 30 did, so the
answer grows with the surface but no tool brings the old weight back. No timing is asserted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.stdio import StdioServer
from sevdesk_mcp.server import ServerFactory
from tests.wire import meta

pytestmark = pytest.mark.anyio

KIB = 1024
ALL_TIERS = "read,write,commit,external"
GOAL_ALL_TIERS = 40 * KIB
BOUNDS = {  # measured 17,922 / 32,037 / 40,853 bytes (before issue 14: 46,127 / 71,835 / 100,421)
    "read": ({}, 18 * KIB),
    "read+write": ({"SEVDESK_ALLOW": "write"}, 32 * KIB),
    "all tiers": ({"SEVDESK_ALLOW": ALL_TIERS}, GOAL_ALL_TIERS),
}
ISSUE_14_TOOLS = frozenset(
    {
        *("sevdesk_server_status", "sevdesk_account_info", "sevdesk_reference_data"),
        *("sevdesk_search_contacts", "sevdesk_get_contact", "sevdesk_create_contact"),
        *("sevdesk_update_contact", "sevdesk_search_documents", "sevdesk_get_document"),
        *("sevdesk_document_pdf", "sevdesk_create_document_draft"),
        *("sevdesk_update_document_draft", "sevdesk_delete_document_draft"),
        *("sevdesk_finalize_document", "sevdesk_enshrine_document"),
        *("sevdesk_send_document_email", "sevdesk_book_payment", "sevdesk_cancel_invoice"),
        *("sevdesk_credit_note_from_invoice", "sevdesk_reset_document"),
        *("sevdesk_search_vouchers", "sevdesk_get_voucher", "sevdesk_search_parts"),
        *("sevdesk_create_part", "sevdesk_update_part", "sevdesk_list_bank_accounts"),
        *("sevdesk_search_transactions", "sevdesk_open_items", "sevdesk_cash_position"),
        *("sevdesk_changed_since",),
    }
)
MAX_TOOL_BYTES = 3 * KIB + 512  # the largest of the 30, a draft tool, has 3,016
MEAN_TOOL_BYTES = GOAL_ALL_TIERS // len(ISSUE_14_TOOLS)


async def answer_bytes(env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """:returns: the size of the encoded 2026-07-28 ``tools/list`` answer of the issue's 30
    tools (later tools taken out, as if they did not exist), and the whole answer."""
    size, answer = await _answer(env)
    later = [t for t in answer["result"]["tools"] if t["name"] not in ISSUE_14_TOOLS]
    return size - sum(_tool_bytes(t) + 1 for t in later), answer  # + 1: the comma


def _tool_bytes(tool: dict[str, Any]) -> int:
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False).encode())


async def _answer(env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    config = load_config(env)
    app = ServerFactory(config).build(AccountContext(config=config))
    lines: list[bytes] = [
        json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}}
        ).encode()
        + b"\n",
        b"",
    ]
    written: list[bytes] = []

    async def read() -> bytes:
        return lines.pop(0)

    async def write(data: bytes) -> None:
        written.append(data)

    await StdioServer(Dispatcher(app), read, write).serve()
    (line,) = written
    return len(line.rstrip(b"\n")), json.loads(line)


@pytest.mark.parametrize("name", sorted(BOUNDS))
async def test_the_answer_stays_below_its_bound(name: str) -> None:
    env, bound = BOUNDS[name]
    size, answer = await answer_bytes(env)
    assert "nextCursor" not in answer["result"], "one page holds every tool"
    assert size <= bound, f"{name}: {size:,} bytes > {bound:,}"


async def test_more_tiers_mean_a_larger_answer() -> None:
    sizes = [(await answer_bytes(env))[0] for env, _ in BOUNDS.values()]
    assert sizes == sorted(sizes)


async def test_every_tool_keeps_a_plain_output_schema() -> None:
    _, answer = await answer_bytes({"SEVDESK_ALLOW": ALL_TIERS})
    tools = answer["result"]["tools"]
    for tool in tools:
        schema = tool["outputSchema"]
        assert schema["type"] == "object" and schema["properties"], tool["name"]
    text = json.dumps([t["outputSchema"] for t in tools])
    assert '"null"' not in text and "$ref" not in text and "anyOf" not in text


async def test_tools_added_later_keep_to_the_budget_per_tool() -> None:
    size, answer = await _answer({"SEVDESK_ALLOW": ALL_TIERS})
    tools = answer["result"]["tools"]
    sizes = {t["name"]: _tool_bytes(t) for t in tools}
    heavy = {name: n for name, n in sizes.items() if n > MAX_TOOL_BYTES}
    assert not heavy, f"tools over {MAX_TOOL_BYTES:,} bytes: {heavy}"
    assert size <= MEAN_TOOL_BYTES * len(tools) + 256, f"{size:,} bytes for {len(tools)} tools"
