"""Every tool the product ships, with its code: what the index (``index.json``) is made from.

The server does not import this module: it lists tools from the index (:mod:`catalog`) and
imports a tool's module at its first call. Tests, the tool reference and the index generator
use the definitions themselves.

``python -m sevdesk_mcp.tools.definitions`` rewrites ``index.json``; a test keeps it current.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Final

import msgspec

from sevdesk_mcp.tools.catalog import default_toolsets
from sevdesk_mcp.tools.define import ToolDef, prepare
from sevdesk_mcp.tools.lazy import INDEX_PATH, MODULE_NAMES, Entry

MODULES: Final = tuple(import_module(f"sevdesk_mcp.tools.{name}") for name in MODULE_NAMES)
ALL_TOOLS: Final[tuple[ToolDef[Any, Any], ...]] = tuple(t for m in MODULES for t in m.TOOLS)
TOOLSETS: Final = frozenset(t.toolset for t in ALL_TOOLS)
DEFAULT_TOOLSETS: Final = default_toolsets(TOOLSETS)


def index_json() -> bytes:
    """:returns: the index of every tool, in catalog order, as ``index.json`` holds it: what
    selecting and listing a tool needs, and the module that defines it.

    :raises ToolDefinitionError: if a tool's Structs have no schema of the allowed form.
    """
    prepare(ALL_TOOLS)
    entries: list[Entry] = []
    for module in MODULES:
        name = module.__name__.removeprefix("sevdesk_mcp.tools.")
        entries += [Entry.of(tool, name) for tool in module.TOOLS]
    return msgspec.json.format(msgspec.json.encode(entries), indent=1) + b"\n"


if __name__ == "__main__":
    INDEX_PATH.write_bytes(index_json())
    sys.stdout.write(f"wrote {INDEX_PATH.name}: {len(ALL_TOOLS)} tools\n")
