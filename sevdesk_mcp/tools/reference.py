"""The tool reference (``docs/tools.md``), generated from the tool definitions.

``python -m sevdesk_mcp.tools.reference > docs/tools.md`` rewrites it; a test keeps it current.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import msgspec

from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.budgets import RESULT_BUDGETS
from sevdesk_mcp.tools.catalog import DEFAULT_OFF_TOOLSETS, default_toolsets
from sevdesk_mcp.tools.define import ToolDef, prepare
from sevdesk_mcp.tools.definitions import ALL_TOOLS

HEADER = """# Tool reference

Generated from the tool definitions by `python -m sevdesk_mcp.tools.reference`; do not edit.

A tool is registered only when its toolset is selected (`SEVDESK_TOOLSETS`) and its tier is
enabled (`SEVDESK_ALLOW`, overridden by `SEVDESK_READ_ONLY`), and where the deployment can
serve the files it needs (below). Tiers: `read` (default), `write` (reversible changes),
`commit` (binding or irreversible), `external` (reaches third parties).

Size: the bytes each tool adds to the 2026-07-28 `tools/list` answer (its `Tool` object with
`inputSchema` and `outputSchema`, encoded compactly as sent); 2025-era answers carry no
`outputSchema`. With all tiers the whole answer stays within 40 KiB (docs/adr/0007): an output
schema names every top-level field of the result with its JSON type and says which are always
there; what nested objects and lists hold is left to the result itself. An optional output
field without a value is left out of the result (never `null`), in `structuredContent` and
in the text alike. Measured by hand with `python bench/tools_list_bench.py`: the server lists
its tools from a generated index (ADR 0012), so building it takes some 3 ms and the first
`tools/list` after it 2 ms; a cold stdio start to the `tools/list` answer about 0.2 s.
"""

TIER_SETS = {
    "read": {Tier.READ},
    "read, write": {Tier.READ, Tier.WRITE},
    "all tiers": set(Tier),
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


def _totals(tools: Sequence[ToolDef[Any, Any]]) -> list[str]:
    """:returns: the table of the ``tools`` array's size per tier set (default toolsets)."""
    rows = [
        "| tiers enabled | tools | bytes of the `tools` array (2026-07-28) |",
        "|---|---:|---:|",
    ]
    on = default_toolsets(t.toolset for t in tools)
    for name, tiers in TIER_SETS.items():
        chosen = [t for t in tools if t.tier in tiers and t.toolset in on]
        size = len(msgspec.json.encode([t.to_json(structured=True) for t in chosen]))
        rows.append(f"| {name} | {len(chosen)} | {size:,} |")
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
    sys.stdout.write(render())
