"""Tools listed from the index, their code imported at their first call.

Importing every tool module at start, and the domain code behind them, cost about 6 MiB of the
server's memory and 150 modules, most of which a session never calls. The server therefore
selects and lists tools from ``index.json`` (generated from the definitions by
``python -m sevdesk_mcp.tools.definitions``; a test keeps it equal to them) and imports a tool's
module when the tool is first called. The definition found then must agree with its entry in
everything that decides where and how the tool is offered (name, toolset, tier, annotations,
local files, the files it needs, both schemas); a tool that does not is refused, never run.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Final

import msgspec

from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import (
    Annotations,
    FileNeed,
    LocalFiles,
    ToolDef,
    tool_json,
)

INDEX_PATH: Final = Path(__file__).with_name("index.json")
_TIER_NAMES: Final = frozenset(str(tier) for tier in Tier)  # as ``str(tier)`` writes them
# the modules of ``sevdesk_mcp.tools`` that define tools (``<room>.<module>``), in catalog order:
# the only ones an entry may name (``definitions.py`` imports them from this list)
MODULE_NAMES: Final = (
    "meta.status",
    "contacts.read",
    "contacts.write",
    "documents.read",
    "documents.write",
    "documents.commit",
    "documents.followups",
    "receipts.vouchers",
    "receipts.suggest",
    "receipts.write",
    "einvoice.einvoices",
    "parts.read",
    "parts.write",
    "banking.accounts",
    "banking.matches",
    "banking.bookings",
    "reports.books",
    "reports.tax",
    "exports.export",
    "receipts.upload",
    "advanced.api_get",
    "tags.tags",
    "reports.rehearsal",
)


class Entry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One tool of the index."""

    name: str
    module: str
    title: str
    description: str
    toolset: str
    tier: str  # a tier's configuration name (``Tier.parse``)
    annotations: Annotations
    local_files: LocalFiles | None
    needs_files: FileNeed | None
    input_schema: dict[str, Any]  # JSON objects (msgspec cannot read the recursive JsonValue)
    output_schema: dict[str, Any]

    @classmethod
    def of(cls, tool: ToolDef[Any, Any], module: str) -> Entry:
        """:returns: the entry of ``tool``, defined in ``sevdesk_mcp.tools.<module>``."""
        return cls(
            name=tool.name,
            module=module,
            title=tool.title,
            description=tool.description,
            toolset=tool.toolset,
            tier=str(tool.tier),
            annotations=tool.annotations,
            local_files=tool.local_files,
            needs_files=tool.needs_files,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema,
        )


class LazyTool:
    """A tool of the index: selected and listed from its entry, its definition imported when
    first needed (:meth:`resolve`)."""

    __slots__ = (
        "_entry",
        "_tool",
        "annotations",
        "description",
        "input_schema",
        "local_files",
        "name",
        "needs_files",
        "output_schema",
        "tier",
        "title",
        "toolset",
    )

    def __init__(self, entry: Entry) -> None:
        self.name = entry.name
        self.title = entry.title
        self.description = entry.description
        self.toolset = entry.toolset
        self.tier = Tier.parse(entry.tier)
        self.annotations = entry.annotations
        self.local_files: LocalFiles | None = entry.local_files
        self.needs_files: FileNeed | None = entry.needs_files
        self.input_schema: JsonObject = entry.input_schema
        self.output_schema: JsonObject = entry.output_schema
        self._entry = entry
        self._tool: ToolDef[Any, Any] | None = None

    def __repr__(self) -> str:
        return f"LazyTool({self.name!r})"

    def to_json(self, *, structured: bool) -> JsonObject:
        """:returns: the ``Tool`` object; ``outputSchema`` only when ``structured``."""
        output = self.output_schema if structured else None
        return tool_json(self, self.input_schema, output)

    def resolve(self) -> ToolDef[Any, Any]:
        """:returns: the tool's definition, importing its module the first time.

        :raises ToolDefinitionError: if the module cannot be imported or does not define the
            tool, or the definition does not agree with the index in what decides where and how
            the tool is offered.
        """
        if self._tool is None:
            self._tool = self._checked(self._find())
        return self._tool

    def _find(self) -> ToolDef[Any, Any]:
        module = self._entry.module
        if module not in MODULE_NAMES:
            raise self._stale(f"its module {module[:60]!r} is not a tool module")
        try:
            imported = importlib.import_module(f"sevdesk_mcp.tools.{module}")
        except Exception as exc:  # a damaged install: the tool is refused, whatever broke
            missing = f"; {exc.name} is missing" if isinstance(exc, ImportError) else ""
            raise ToolDefinitionError(
                f"{self.name}: its code cannot be imported ({type(exc).__name__}{missing}); "
                "the tool is not run. Reinstall the package; the server log has the details."
            ) from exc
        tools = getattr(imported, "TOOLS", ())
        found = [t for t in tools if isinstance(t, ToolDef) and t.name == self.name]
        if not found:
            raise self._stale(f"sevdesk_mcp.tools.{module} does not define it")
        return found[0]

    def _checked(self, tool: ToolDef[Any, Any]) -> ToolDef[Any, Any]:
        """:returns: ``tool`` if its entry, made from the code, equals the index's in every
        field."""
        made = Entry.of(tool, self._entry.module)
        differing = [
            f for f in Entry.__struct_fields__ if getattr(made, f) != getattr(self._entry, f)
        ]
        if differing:
            raise self._stale(f"its entry differs from the code in {', '.join(differing)}")
        return tool

    def _stale(self, why: str) -> ToolDefinitionError:
        return ToolDefinitionError(
            f"{self.name}: the tool index does not match the code ({why}); the tool is not run. "
            "Reinstall the package, or regenerate the index with "
            "`python -m sevdesk_mcp.tools.definitions`."
        )


def load_index(data: bytes | None = None) -> tuple[LazyTool, ...]:
    """:returns: the tools of the index, in catalog order (``index.json`` by default).

    :raises ToolDefinitionError: if the index cannot be read, names a tool twice or names a
        tier that does not exist.
    """
    try:
        raw = INDEX_PATH.read_bytes() if data is None else data
        entries = msgspec.json.decode(raw, type=list[Entry])
    except (OSError, msgspec.DecodeError) as exc:
        raise ToolDefinitionError(
            f"the tool index cannot be read ({type(exc).__name__}); reinstall the package"
        ) from None
    if len({e.name for e in entries}) != len(entries):
        raise ToolDefinitionError("the tool index names a tool twice; reinstall the package")
    unknown = [e.name[:60] for e in entries if e.tier not in _TIER_NAMES]
    if unknown:
        raise ToolDefinitionError(
            f"the tool index gives {unknown[0]} a tier that does not exist; reinstall the package"
        )
    return tuple(LazyTool(e) for e in entries)
