"""The peer: the same tools over the same fake sevDesk, served by the official SDK's MCPServer.

Run by the benchmarks only (``python bench/peer_server.py``). The tools call the same domain
functions as ours, through the same client and the same in-memory demo books, so the difference
measured is the MCP layer.
"""

from __future__ import annotations

import functools
import hmac
import os
import sys
from typing import Any

import msgspec
from mcp.server import MCPServer

from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain.contacts import read as contacts
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer

DEMO_URL = "https://demo.sevdesk.invalid/api/v1"


class SecretVerifier:
    """The SDK's ``TokenVerifier``: accepts the one shared bearer secret, as our bearer mode does.

    Compared with :func:`hmac.compare_digest`, like ours (which compares HMACs of the two).
    """

    def __init__(self, secret: str) -> None:
        self._secret = secret.encode()

    async def verify_token(self, token: str) -> Any:
        """:returns: an ``AccessToken`` for the secret, ``None`` for anything else."""
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.encode(), self._secret):
            return AccessToken(token="bearer", client_id="bench", scopes=[])  # noqa: S106
        return None


def _server() -> MCPServer:
    secret = os.environ.get("SEVDESK_HTTP_SECRET")
    if secret is None or "--http" not in sys.argv:
        return MCPServer(name="peer-sevdesk", version="1")
    from mcp.server.auth.settings import AuthSettings

    url = f"http://127.0.0.1:{sys.argv[-1]}"
    auth = AuthSettings(issuer_url=url, resource_server_url=f"{url}/mcp")
    return MCPServer(
        name="peer-sevdesk", version="1", token_verifier=SecretVerifier(secret), auth=auth
    )


server = _server()
_config = load_config(os.environ)  # SEVDESK_RATE_PER_S as for our server


@functools.cache
def demo_client() -> SevdeskClient:
    """:returns: the client of the demo books, built on the first tool call as ours is."""
    from sevdesk_mcp.fake import DEMO_TOKEN, build_demo

    return SevdeskClient(
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
        demo_client(), DEMO_URL, query=query, category="any", limit=limit
    )
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
