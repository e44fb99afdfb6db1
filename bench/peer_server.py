"""The peer: the same tools over the same fake sevDesk, served by the official SDK's MCPServer.

Run by the benchmarks only (``python bench/peer_server.py``). The tools call the same domain
functions as ours, through the same client and the same in-memory demo books, so the difference
measured is the MCP layer.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.server import MCPServer

from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain import contacts
from sevdesk_mcp.fake import DEMO_TOKEN, build_demo
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer

DEMO_URL = "https://demo.sevdesk.invalid/api/v1"
server = MCPServer(name="peer-sevdesk", version="1")
_config = load_config(os.environ)  # SEVDESK_RATE_PER_S as for our server
_client = SevdeskClient(
    base_url=DEMO_URL,
    token=Secret(DEMO_TOKEN),
    gate=WriteGate(tiers=frozenset({Tier.READ})),
    transport=build_demo().transport(),
    pacer=Pacer(rate_per_s=_config.rate_per_s, burst=max(1, min(int(_config.rate_per_s), 50))),
)


@server.tool()  # type: ignore[untyped-decorator]  # the SDK is skipped by mypy here
async def sevdesk_server_status() -> dict[str, Any]:
    """Shows the enabled tiers (the protocol-floor tool: no sevDesk call)."""
    return {"tiers": ["read"], "read_only": False, "dry_run": False}


@server.tool()  # type: ignore[untyped-decorator]  # the SDK is skipped by mypy here
async def sevdesk_search_contacts(query: str | None = None, limit: int = 25) -> dict[str, Any]:
    """Finds contacts by part of their name (the realistic read tool)."""
    found = await contacts.search_contacts(
        _client, DEMO_URL, query=query, category="any", limit=limit
    )
    import msgspec

    result: dict[str, Any] = msgspec.to_builtins(found)
    return result


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--http":  # python bench/peer_server.py --http PORT
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            json_response=True,
            stateless_http=True,
        )
    else:
        server.run("stdio")
