"""What a rehearsal (``--rehearse``) adds to what the user sees: the first line of every tool
result, ``"rehearsal": true`` in a write tool's structured content, the warning first in every
preview (so the approval question, the approval page and the result all say it), and which
tools only a rehearsal offers (the ``rehearsal`` toolset)."""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.config import Config
from sevdesk_mcp.mcp.types import JsonObject, ToolResult
from sevdesk_mcp.safety.preview import REHEARSAL, Preview

RESULT_LINE: Final = "REHEARSAL: nothing here was written to sevDesk."
REHEARSAL_TOOLSET: Final = "rehearsal"
NOT_REHEARSING: Final = (
    "it reports on a rehearsal, and none is running (start the server with --rehearse or "
    "SEVDESK_REHEARSE=on)"
)


def toolset_offered(config: Config, toolsets: frozenset[str], toolset: str) -> bool:
    """:returns: whether tools of ``toolset`` are offered with ``toolsets`` selected. The
    ``rehearsal`` toolset is off by default and on in every rehearsal (its report is what a
    rehearsal is for); named in ``SEVDESK_TOOLSETS`` outside one, its tool is listed and
    refuses to run, saying why."""
    return toolset in toolsets or (toolset == REHEARSAL_TOOLSET and config.rehearse)


def marked_result(result: ToolResult, *, write: bool) -> ToolResult:
    """:returns: ``result`` with :data:`RESULT_LINE` first in its text, and with ``write`` (a
    write tool's result) ``"rehearsal": true`` at the top of its structured content."""
    content = list(result.content)
    first = next((i for i, c in enumerate(content) if c.get("type") == "text"), None)
    if first is None:
        content.insert(0, {"type": "text", "text": RESULT_LINE})
    else:
        block = dict(content[first])
        block["text"] = f"{RESULT_LINE}\n{block.get('text', '')}"
        content[first] = block
    structured: JsonObject | None = result.structured
    if write and structured is not None:
        structured = {"rehearsal": True, **structured}
    return msgspec.structs.replace(result, content=content, structured=structured)


def marked_preview(preview: Preview) -> Preview:
    """:returns: ``preview`` with :data:`~sevdesk_mcp.safety.preview.REHEARSAL` first
    (idempotent)."""
    if preview.warnings[:1] == [REHEARSAL]:
        return preview
    return msgspec.structs.replace(preview, warnings=[REHEARSAL, *preview.warnings])
