"""The tool reference (``docs/tools.md``), generated from the tool definitions.

``python -m sevdesk_mcp.tools.reference > docs/tools.md`` rewrites it; a test keeps it current.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

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
    listed = tool.input_schema.get("required")
    required = listed if isinstance(listed, list) else []
    rows = ["| argument | type | required | description |", "|---|---|---|---|"]
    for name, schema in properties.items():
        assert isinstance(schema, dict)  # built by input_schema
        kind = schema.get("type")
        text = str(schema.get("description", "")).replace("|", "\\|")
        rows.append(f"| `{name}` | {kind} | {'yes' if name in required else 'no'} | {text} |")
    return "\n".join(rows)


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    sys.stdout.write(render())
