"""A short, readable MCP session against the demo books, over the real stdio transport.

``make demo`` runs it: it starts ``mcp-server-sevdesk --demo`` as a subprocess, speaks MCP
2026-07-28 to it line by line (a tiny scripted client, no SDK), prints each call and what the
server answered, then prints how to add the server to Claude Desktop and Claude Code.
"""

from __future__ import annotations

import json
import sys
import textwrap
from typing import Any

import anyio
from anyio.abc import Process

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "demo-session", "version": "1"},
}
MAX_SHOWN_CHARS = 1800


class StdioClient:
    """Sends one request at a time and reads the answer with the same id."""

    def __init__(self, process: Process) -> None:
        self._process = process
        self._buffer = b""
        self._next_id = 0

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self._next_id,
            "method": method,
            "params": {**params, "_meta": META},
        }
        assert self._process.stdin is not None
        await self._process.stdin.send(json.dumps(message).encode() + b"\n")
        while True:
            answer = json.loads(await self._line())
            if answer.get("id") == self._next_id:
                return dict(answer)

    async def _line(self) -> bytes:
        assert self._process.stdout is not None
        while b"\n" not in self._buffer:
            with anyio.fail_after(30):
                self._buffer += await self._process.stdout.receive()
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line


def show(title: str, answer: dict[str, Any]) -> Any:
    """Print one step; :returns: the structured result of a tool call, if any."""
    print(f"\n\033[1m=== {title}\033[0m")
    result = answer.get("result", answer.get("error"))
    data = result.get("structuredContent", result) if isinstance(result, dict) else result
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if len(text) > MAX_SHOWN_CHARS:
        text = text[:MAX_SHOWN_CHARS] + "\n  … (shortened for the demo)"
    print(textwrap.indent(text, "  "))
    return data


async def session(client: StdioClient) -> None:
    """The scripted conversation."""
    discover = await client.call("server/discover", {})
    info = discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]
    print(f"Connected to {info['name']} {info['version']} over stdio (MCP 2026-07-28).")
    tools = await client.call("tools/list", {})
    names = [t["name"] for t in tools["result"]["tools"]]
    print("Tools registered (read-only by default): " + ", ".join(names))

    async def tool(name: str, **arguments: Any) -> Any:
        answer = await client.call("tools/call", {"name": name, "arguments": arguments})
        args = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        return show(f"{name}({args})", answer)

    await tool("sevdesk_account_info")
    await tool("sevdesk_reference_data", kind="tax_rules", limit=5)
    found = await tool("sevdesk_search_contacts", category="customer", limit=5)
    if found.get("contacts"):
        await tool("sevdesk_get_contact", contact_id=found["contacts"][0]["id"])
    await tool("sevdesk_search_contacts", query="zzz-nobody")
    await tool("sevdesk_search_documents", overdue_only=True, limit=3)
    await tool("sevdesk_cash_position")


HOW_TO_ADD = """
How to add the server to your client (replace the token with your sevDesk API token,
from sevDesk: Settings > Users > API token; leave SEVDESK_ALLOW out to stay read-only):

  Claude Desktop (claude_desktop_config.json):
    {"mcpServers": {"sevdesk": {"command": "mcp-server-sevdesk", "args": ["--stdio"],
      "env": {"SEVDESK_API_TOKEN": "<your token>"}}}}

  Claude Code:
    claude mcp add sevdesk --env SEVDESK_API_TOKEN=<your token> -- mcp-server-sevdesk --stdio

  Try the demo books in either client first:  mcp-server-sevdesk --demo
"""


async def main() -> int:
    """Run the session against a fresh demo server; :returns: its exit status."""
    command = [sys.executable, "-m", "sevdesk_mcp", "--demo", "--stdio"]
    async with await anyio.open_process(command, stderr=None) as process:
        await session(StdioClient(process))
        assert process.stdin is not None
        await process.stdin.aclose()
        with anyio.fail_after(10):
            status = await process.wait()
    print(HOW_TO_ADD)
    return status


if __name__ == "__main__":
    sys.exit(anyio.run(main))
