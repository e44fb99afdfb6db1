"""The tool reference (``docs/tools.md``), generated from the tool definitions.

``python -m sevdesk_mcp.cli.reference`` rewrites it; a test keeps it current. The sizes it
states are those of the ``tools/list`` answer the real server writes (:func:`answer_bytes`, which
the size test uses too), against the budget :data:`TOOLS_LIST_BUDGET` (docs/adr/0007).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import anyio
import msgspec

from sevdesk_mcp.mcp.types import LEGACY_VERSIONS, MODERN_VERSION, JsonObject
from sevdesk_mcp.tools.budgets import RESULT_BUDGETS
from sevdesk_mcp.tools.catalog import DEFAULT_OFF_TOOLSETS
from sevdesk_mcp.tools.define import FileReach, ToolDef, prepare
from sevdesk_mcp.tools.definitions import ALL_TOOLS

TOOLS_LIST_BUDGET: Final = 40_000
"""Bytes of the whole ``tools/list`` answer, all tiers and all toolsets, 2026-07-28 (ADR 0007)."""
ERAS: Final = (MODERN_VERSION, LEGACY_VERSIONS[0])
DOCS_PATH: Final = Path(__file__).resolve().parents[2] / "docs" / "tools.md"

HEADER = """# Tool reference

Generated from the tool definitions by `python -m sevdesk_mcp.cli.reference`; do not edit.

A tool is registered only when its toolset is selected (`SEVDESK_TOOLSETS`) and its tier is
enabled (`SEVDESK_ALLOW`, overridden by `SEVDESK_READ_ONLY`), and where the deployment can
serve the files it needs (below). Tiers: `read` (default), `write` (reversible changes),
`commit` (binding or irreversible), `external` (reaches third parties). The toolset
`rehearsal` is on in every rehearsal (`--rehearse`, docs/rehearsal.md), whatever
`SEVDESK_TOOLSETS` says, and off otherwise.

Size: the bytes of each tool's `Tool` object in the 2026-07-28 `tools/list` answer, encoded
compactly as sent. Budget (docs/adr/0007): the whole answer, the JSON-RPC response as the
server writes it, at most 40,000 bytes with all tiers and all toolsets on, in both eras;
`tests/protocol/test_tools_list_size.py` measures it through the server and fails above it.
What every tool would repeat is said once in the server instructions: text in ⟦ ⟧ is
third-party data; write tools answer with `status` (`done`, `dry_run`, `approval_pending`,
`declined`), `result` (read back), `preview`, `approval` and `note`, an envelope the same for
all of them and therefore not listed as their `outputSchema`; `dryRun=true` only previews;
binding actions need a human's approval. Output schemas are listed only with
`SEVDESK_OUTPUT_SCHEMAS=on` (the answer is then over the budget; results carry
`structuredContent` either way); a read tool's output schema names every top-level field of
the result with its JSON type and says which are always there; what nested objects and lists
hold is left to the result itself. 2025-era answers carry no `outputSchema`. The listed input
schemas leave out what the server alone enforces (string lengths, the decimal pattern, id
floors, caps from 10,000), and the tools carry no `title` (the table below keeps them). An
optional output field without a value is left out of the result (never `null`), in
`structuredContent` and in the text alike. Measured by hand with `python
bench/tools_list_bench.py`: the server lists its tools from a generated index (ADR 0012), so
building it takes some 3 ms and the first `tools/list` after it 2 ms; a cold stdio start to the
`tools/list` answer about 0.2 s.
"""

TIER_SETS: Final[dict[str, tuple[str, bool, FileReach]]] = {  # SEVDESK_ALLOW, every toolset
    "read": ("read", False, "local"),
    "read, write": ("read,write", False, "local"),
    "all tiers": ("read,write,commit,external", False, "local"),
    "all tiers, all toolsets, file transfer (HTTP)": (
        "read,write,commit,external",
        True,
        "transfer",
    ),
}


def render(tools: Sequence[ToolDef[Any, Any]] = ALL_TOOLS) -> str:
    """:returns: the Markdown reference of ``tools``.

    :raises ToolDefinitionError: if a tool's Structs have no schema of the allowed form.
    """
    prepare(tools)
    lines = [
        HEADER,
        *_file_needs(tools),
        *_totals(tools),
        "",
        *_budgets(),
        "",
        "| tool | tier | toolset | title | size |",
    ]
    lines.append("|---|---|---|---|---:|")
    lines += [
        f"| `{t.name}` | {t.tier} | {_toolset(t.toolset)} | {t.title} | {_size(t):,} |"
        for t in tools
    ]
    for tool in tools:
        lines += ["", f"## `{tool.name}`", "", tool.description, "", _arguments(tool)]
    return "\n".join(lines) + "\n"


def _file_needs(tools: Sequence[ToolDef[Any, Any]]) -> list[str]:
    """:returns: the paragraph naming the tools that are registered only where files can go."""
    transfer = ", ".join(f"`{t.name}`" for t in tools if t.needs_files == "transfer")
    needing = ", ".join(f"`{t.name}`" for t in tools if t.needs_files == "file")
    return [
        "Files: over stdio files are local paths (`SEVDESK_FILE_DIRS`, `SEVDESK_OUTPUT_DIR`); "
        "over HTTP they cross the network only with file transfer (OAuth mode, "
        "`SEVDESK_HTTP_FILES` on by default). Bearer mode and `SEVDESK_HTTP_FILES=off` have "
        "none. Registered only with file transfer: "
        f"{transfer or 'none'}. Not registered over HTTP without it, since they read a file or "
        f"deliver one: {needing or 'none'}.",
        "",
    ]


def _size(tool: ToolDef[Any, Any]) -> int:
    return len(msgspec.json.encode(tool.to_json(structured=True)))


def answer_bytes(
    tools: Sequence[Any], env: dict[str, str], files: FileReach, era: str
) -> tuple[int, dict[str, Any]]:
    """:returns: the bytes of the ``tools/list`` response the server built from ``tools`` (the
    product's index when they are :data:`ALL_TOOLS`) writes for ``env`` in ``era`` (one line,
    without its newline), and the response."""
    from sevdesk_mcp.accounts.context import AccountContext  # noqa: PLC0415 - the server
    from sevdesk_mcp.config import load_config  # noqa: PLC0415
    from sevdesk_mcp.mcp.dispatcher import Dispatcher  # noqa: PLC0415
    from sevdesk_mcp.mcp.stdio import StdioServer  # noqa: PLC0415
    from sevdesk_mcp.server import ServerFactory  # noqa: PLC0415

    config = load_config(env)
    catalog = None if tools is ALL_TOOLS else tools
    app = ServerFactory(config, catalog_tools=catalog, files=files).build(
        AccountContext(config=config)
    )
    meta: JsonObject = {
        "io.modelcontextprotocol/protocolVersion": era,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    if era == MODERN_VERSION:
        requests: list[JsonObject] = [{"method": "tools/list", "params": {"_meta": meta}}]
    else:
        hello: JsonObject = {
            "protocolVersion": era,
            "capabilities": {},
            "clientInfo": {"name": "reference"},
        }
        requests = [
            {"id": 0, "method": "initialize", "params": hello},
            {"method": "notifications/initialized"},
            {"method": "tools/list"},
        ]
    requests[-1]["id"] = 1
    lines = [json.dumps({"jsonrpc": "2.0", **r}).encode() + b"\n" for r in requests] + [b""]
    written: list[bytes] = []

    async def run() -> None:
        answered = anyio.Event()  # the list is asked for once the handshake is answered

        async def read() -> bytes:
            if len(lines) == 3:  # the notification, tools/list and the end are left
                await answered.wait()
            return lines.pop(0)

        async def write(data: bytes) -> None:
            written.append(data)
            if json.loads(data).get("id") == 0:
                answered.set()

        await StdioServer(Dispatcher(app), read, write).serve()

    anyio.run(run)
    (line,) = [w for w in written if json.loads(w).get("id") == 1]
    response: dict[str, Any] = json.loads(line)
    return len(line.rstrip(b"\n")), response


def _totals(tools: Sequence[ToolDef[Any, Any]]) -> list[str]:
    """:returns: the table of the whole answer's size per configuration, in both eras."""
    rows = [
        f"| tiers enabled | tools | bytes, {ERAS[0]} | bytes, {ERAS[1]} |",
        "|---|---:|---:|---:|",
    ]
    every = ",".join(sorted({t.toolset for t in tools}))
    for name, (allow, all_toolsets, files) in TIER_SETS.items():
        env = {"SEVDESK_ALLOW": allow, **({"SEVDESK_TOOLSETS": every} if all_toolsets else {})}
        (largest, response), (legacy, _) = (answer_bytes(tools, env, files, e) for e in ERAS)
        count = len(response["result"]["tools"])
        rows.append(f"| {name} | {count} | {largest:,} | {legacy:,} |")
    verdict = "within" if largest <= TOOLS_LIST_BUDGET else "OVER"
    rows += [
        "",
        f"Budget {TOOLS_LIST_BUDGET:,} bytes; measured {largest:,} ({verdict} the budget) "
        f"for all tiers and all toolsets, {ERAS[0]}.",
    ]
    return rows


def _budgets() -> list[str]:
    """:returns: the paragraph on results for the model and the table of result budgets."""
    rows = [
        "Results: the text content is what the model reads. Amounts are written as one string "
        "with their currency (`714.00 EUR`); `structuredContent` (2026-07-28, or "
        "`SEVDESK_STRUCTURED_OUTPUT=on`) keeps them as objects "
        '(`{"amount": "714.00", "currency": "EUR"}`) and holds the complete output of the '
        "output schema. Some texts are shorter still: aging buckets and VAT boxes without an "
        "amount are left out (the boxes named in `empty_boxes`), empty lists too, the server "
        "status counts its tools per tier instead of naming them, and the rule of open items "
        "comes only with `explain=true` (the cash position, which counts open items alike, "
        "leaves it out). Each read tool's text has a budget, in bytes, measured on the demo "
        "books with every tier on by `python bench/result_sizes.py` and checked by the tests:",
        "",
        "| tool | budget (bytes) | measured on the demo books |",
        "|---|---:|---:|",
    ]
    rows += [
        f"| `{name}` | {budget:,} | {measured:,} |"
        for name, (budget, measured) in RESULT_BUDGETS.items()
    ]
    return rows


def _toolset(name: str) -> str:
    return f"{name} (off by default)" if name in DEFAULT_OFF_TOOLSETS else name


def _arguments(tool: ToolDef[Any, Any]) -> str:
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return "Arguments: none."
    rows = ["| argument | type | required | description |", "|---|---|---|---|"]
    return "\n".join(rows + _rows(tool.input_schema, ""))


def _rows(schema: JsonObject, prefix: str) -> list[str]:
    properties = schema.get("properties")
    assert isinstance(properties, dict)  # built by input_schema
    listed = schema.get("required")
    required = listed if isinstance(listed, list) else []
    rows = []
    for name, field in properties.items():
        assert isinstance(field, dict)  # built by input_schema
        text = str(field.get("description", "")).replace("|", "\\|")
        flag = "yes" if name in required else "no"
        rows.append(f"| `{prefix}{name}` | {field.get('type')} | {flag} | {text} |")
        items = field.get("items")
        if isinstance(items, dict) and "properties" in items:  # rows of a list (positions)
            rows += _rows(items, f"{prefix}{name}[].")
    return rows


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    DOCS_PATH.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {DOCS_PATH.name}\n")
