"""Every tool the product ships, as the server selects and lists them: from the index, without
importing the tools' code (``lazy.py``; the definitions are in ``definitions.py``)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

from sevdesk_mcp.tools.lazy import LazyTool, load_index

DEFAULT_OFF_TOOLSETS: Final = frozenset({"advanced", "rehearsal"})  # generic read; --rehearse


def default_toolsets(toolsets: Iterable[str]) -> frozenset[str]:
    """:returns: those of ``toolsets`` that are on when ``SEVDESK_TOOLSETS`` is not set."""
    return frozenset(toolsets) - DEFAULT_OFF_TOOLSETS


@functools.cache
def tools() -> tuple[LazyTool, ...]:
    """:returns: the tools of the index, read once per process.

    :raises ToolDefinitionError: if the index cannot be read.
    """
    return load_index()
