"""The size of the 2026-07-28 ``tools/list`` answer per tier configuration (issue 14, point 4).

Bytes of the answer as the server writes it (one compact JSON line). All tiers must stay within
the issue's goal, 40 KiB (docs/adr/0007); the other bounds are the sizes measured when the
schemas became compact, plus a little headroom; lower them when the surface shrinks. No timing
is asserted here.
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


async def answer_bytes(env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """:returns: the size of the encoded 2026-07-28 ``tools/list`` answer, and the answer."""
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
