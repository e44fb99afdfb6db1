"""The tool reference (``docs/tools.md``), generated from the tool definitions.

``python -m sevdesk_mcp.tools.reference > docs/tools.md`` rewrites it; a test keeps it current.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.tools.catalog import ALL_TOOLS, DEFAULT_OFF_TOOLSETS
from sevdesk_mcp.tools.registry import AnyTool

HEADER = """# Tool reference

Generated from the tool definitions by `python -m sevdesk_mcp.tools.reference`; do not edit.

A tool is registered only when its toolset is selected (`SEVDESK_TOOLSETS`) and its tier is
enabled (`SEVDESK_ALLOW`, overridden by `SEVDESK_READ_ONLY`). Tiers: `read` (default),
`write` (reversible changes), `commit` (binding or irreversible), `external` (reaches third
parties).
"""


def render(tools: Sequence[AnyTool] = ALL_TOOLS) -> str:
    """:returns: the Markdown reference of ``tools``."""
    lines = [HEADER, "| tool | tier | toolset | title |", "|---|---|---|---|"]
    lines += [f"| `{t.name}` | {t.tier} | {_toolset(t.toolset)} | {t.title} |" for t in tools]
    for tool in tools:
        lines += ["", f"## `{tool.name}`", "", tool.description, "", _arguments(tool)]
    return "\n".join(lines) + "\n"


def _toolset(name: str) -> str:
    return f"{name} (off by default)" if name in DEFAULT_OFF_TOOLSETS else name


def _arguments(tool: AnyTool) -> str:
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
