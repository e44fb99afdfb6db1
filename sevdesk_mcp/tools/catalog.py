"""Every tool the product ships, as the server selects and lists them: from the index, without
importing the tools' code (``lazy.py``; the definitions are in ``definitions.py``)."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.tools.lazy import LazyTool, load_index

CATALOG: Final[tuple[LazyTool, ...]] = load_index()
TOOLSETS: Final = frozenset(t.toolset for t in CATALOG)
DEFAULT_OFF_TOOLSETS: Final = frozenset({"advanced"})  # the generic read
DEFAULT_TOOLSETS: Final = TOOLSETS - DEFAULT_OFF_TOOLSETS
