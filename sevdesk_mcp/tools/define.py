"""``define_tool``: the one way to declare a tool.

A tool declares its name, title, description, toolset, tier, all four MCP annotations, an input
Struct, an output Struct and its handler. The rules are checked when the tool is defined:

- names are ``sevdesk_`` plus ``[a-z0-9_]``, at most 40 characters (client limits, section 7.9);
- the description is 20 to 1,024 characters; the title at most 60;
- a ``read`` tool is read-only and every other tier is not (reads and writes never share a tool);
- the input Struct forbids unknown fields and generates a flat, bounded schema.

The schemas of a selection of tools are built together by :func:`prepare`, once: for the
product's tools when the index is generated (``definitions.py``) and again at a tool's first
call, when the server checks the definition against its entry (``lazy.py``); for tools a test
gives the server as definitions, when the server first selects the tools of a tier set.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, Protocol, TypeVar

import msgspec
import msgspec.inspect as mi

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.types import InputRequired, JsonObject, JsonValue
from sevdesk_mcp.safety.files import FileAccess, LocalFile
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.outputs import Omission, omission, output_schema
from sevdesk_mcp.tools.schema import DECIMAL_PATTERN, input_schema

NAME_PATTERN: Final = re.compile(r"^sevdesk_[a-z0-9_]{1,32}$")
MAX_DESCRIPTION_CHARS: Final = 1024
MIN_DESCRIPTION_CHARS: Final = 20
MAX_TITLE_CHARS: Final = 60

I = TypeVar("I", bound=msgspec.Struct)  # noqa: E741 - the conventional name for "input"
O = TypeVar("O", bound=msgspec.Struct)  # noqa: E741


class Annotations(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The four MCP tool annotations, all four declared with every tool.

    On the wire (docs/adr/0007), ``readOnlyHint`` is always sent; ``destructiveHint`` and
    ``idempotentHint``, which MCP defines only for tools that are not read-only, are sent for
    those (``destructiveHint`` always, ``idempotentHint`` when true); ``openWorldHint`` when
    it differs from the MCP default (true). An absent hint means the MCP default to a client.
    """

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def to_json(self) -> JsonObject:
        """:returns: the wire form, without ``title``: the ``Tool`` carries it, and every
        supported protocol version shows ``Tool.title`` before ``annotations.title``."""
        out: JsonObject = {"readOnlyHint": self.read_only}
        if not self.read_only:
            out["destructiveHint"] = self.destructive
            if self.idempotent:
                out["idempotentHint"] = True
        if not self.open_world:
            out["openWorldHint"] = False
        return out


class ToolContext(msgspec.Struct, frozen=True):
    """What a handler gets besides its arguments: the account and the MCP request."""

    account: AccountContext
    request: RequestContext
    registered: tuple[str, ...]
    safety: SafetyRuntime

    @property
    def files(self) -> FileAccess:
        """:returns: the local files this call may read (``SEVDESK_FILE_DIRS``; none over HTTP)
        and the folder it may deliver to (``SEVDESK_OUTPUT_DIR``)."""
        config = self.account.config
        return FileAccess(
            folders=config.file_dirs,
            output_dir=config.output_dir,
            remote=self.account.principal != "local",  # HTTP: bearer or an OAuth grant
            uploads=_read_upload,
        )


async def _read_upload(reference: str) -> LocalFile:
    """The transfer store's upload for the current call, imported at the first upload (the
    store and its cipher are not needed to start the server)."""
    from sevdesk_mcp.safety.transfers import read_upload  # noqa: PLC0415 - see above

    return await read_upload(reference)


Handler = Callable[[I, ToolContext], Awaitable["O | InputRequired"]]
LocalFiles = Literal["read", "write"]
"""What a tool does with local files (through ``ToolContext.files``): reads or writes them."""
FileNeed = Literal["file", "transfer"]
"""Where a tool can work at all: ``file`` needs a file to read or a place to deliver one (local
folders over stdio, file transfer over HTTP); ``transfer`` needs file transfer over HTTP."""
FileReach = Literal["local", "transfer", "none"]
"""What a deployment offers for files: local folders (stdio), file transfer over HTTP (OAuth
mode with ``SEVDESK_HTTP_FILES=on``), or nothing (bearer mode, or OAuth mode with it off)."""
Links = Callable[[O], list[JsonObject]]
Brief = Callable[[I, JsonObject], None]
"""Shortens the text content of a result in place, given the call's arguments
(``outputs.result_text``); the structured content always keeps the whole output."""


@dataclass(frozen=True, slots=True)
class ToolDef(Generic[I, O]):
    """A defined tool; build it with :func:`define_tool`."""

    name: str
    title: str
    description: str
    toolset: str
    tier: Tier
    annotations: Annotations
    input_type: type[I]
    output_type: type[O]
    handler: Handler[I, O]
    links: Links[O] | None = None
    local_files: LocalFiles | None = None
    needs_files: FileNeed | None = None
    brief: Brief[I] | None = None
    _built: dict[str, Built] = field(default_factory=dict, compare=False, repr=False)

    @property
    def input_schema(self) -> JsonObject:
        """:returns: the flat input schema.

        :raises ToolDefinitionError: if the input Struct cannot be expressed flat and bounded.
        """
        return self.built.input_schema

    @property
    def output_schema(self) -> JsonObject:
        """:returns: the output schema.

        :raises ToolDefinitionError: if the output Struct has no JSON Schema form.
        """
        return self.built.output_schema

    @property
    def built(self) -> Built:
        """:returns: the schemas and the output's omission plan, built on first use.

        :raises ToolDefinitionError: if a Struct has no schema of the allowed form.
        """
        if _BUILT not in self._built:
            prepare((self,))
        return self._built[_BUILT]

    def to_json(self, *, structured: bool) -> JsonObject:
        """:returns: the ``Tool`` object; ``outputSchema`` only when ``structured``.

        :raises ToolDefinitionError: if a Struct has no schema of the allowed form.
        """
        return tool_json(self, self.input_schema, self.output_schema if structured else None)


class Listed(Protocol):
    """What the ``Tool`` object of a listed tool is made of."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def annotations(self) -> Annotations: ...


def tool_json(
    tool: Listed, input_schema: JsonObject, output_schema: JsonObject | None
) -> JsonObject:
    """:returns: the ``Tool`` object of ``tool``: its name, description, listed input schema
    (:func:`listed`) and annotations; no ``title`` (clients show the name; the tool reference
    keeps the titles) and ``outputSchema`` only when one is given and it is not the write
    envelope every write tool shares (:data:`WRITE_ENVELOPE_SCHEMA`)."""
    out: JsonObject = {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": listed(input_schema),
        "annotations": tool.annotations.to_json(),
    }
    if output_schema is not None and output_schema != WRITE_ENVELOPE_SCHEMA:
        out["outputSchema"] = output_schema
    return out


LISTED_MAXIMUM: Final = 10_000  # bounds this high guard ids and counts: enforced, not listed


def listed(schema: JsonObject) -> JsonObject:
    """:returns: an input schema as ``tools/list`` sends it: the rules a client or the model
    needs to form arguments, without the ones only the server needs to enforce (the server checks
    every argument against the full schema and its Structs whatever was listed): the pattern of
    a decimal (its ``type`` and the refusal say how to write one), the length caps of strings
    (a longer one is refused naming its cap), the lower bound 1 of an id and upper bounds from
    :data:`LISTED_MAXIMUM` up."""
    out: JsonObject = {}
    for key, value in schema.items():
        if key == "pattern" and value == DECIMAL_PATTERN:
            continue
        if key == "maxLength":
            continue
        if key == "minimum" and value == 1 and schema.get("type") == "integer":
            continue
        if key == "maximum" and isinstance(value, int) and value >= LISTED_MAXIMUM:
            continue
        out[key] = _listed_value(value)
    return out


def _listed_value(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return listed(value)
    if isinstance(value, list):
        return [_listed_value(v) for v in value]
    return value


WRITE_ENVELOPE_SCHEMA: Final[JsonObject] = {
    "type": "object",
    "properties": {
        "status": {"type": "string"},
        "result": {"type": "object"},
        "preview": {"type": "object"},
        "approval": {"type": "object"},
        "note": {"type": "string"},
    },
    "required": ["status"],
}
"""The output schema of every write tool (``WriteResult`` of :mod:`write_flow`, a test keeps the
two equal): the same envelope for all of them, so their ``Tool`` objects leave it out and the
server instructions and docs/tools.md say it once (ADR 0007); ``structuredContent`` is sent as
before."""


class Built(msgspec.Struct, frozen=True):
    """What is generated from a tool's Structs: both schemas and the output's omission plan."""

    input_schema: JsonObject
    output_schema: JsonObject
    omission: Omission | None


_BUILT: Final = "built"


def prepare(tools: Iterable[ToolDef[Any, Any]]) -> None:
    """Build the schemas of those ``tools`` not built yet, inspecting all their Structs in one
    pass (msgspec then evaluates each shared annotation once).

    :raises ToolDefinitionError: if a Struct has no schema of the allowed form.
    """
    todo = [t for t in tools if _BUILT not in t._built]
    infos = mi.multi_type_info([s for t in todo for s in (t.input_type, t.output_type)])
    for index, tool in enumerate(todo):
        given, result = infos[2 * index], infos[2 * index + 1]
        assert isinstance(given, mi.StructType)  # input and output are Struct types
        assert isinstance(result, mi.StructType)
        tool._built[_BUILT] = Built(input_schema(given), output_schema(result), omission(result))


def define_tool(  # noqa: PLR0913 - every part of a tool is stated at its definition
    *,
    name: str,
    title: str,
    description: str,
    toolset: str,
    tier: Tier,
    annotations: Annotations,
    input: type[I],
    output: type[O],
    handler: Handler[I, O],
    links: Links[O] | None = None,
    local_files: LocalFiles | None = None,
    needs_files: FileNeed | None = None,
    brief: Brief[I] | None = None,
) -> ToolDef[I, O]:
    """Declare a tool.

    :param links: extra content blocks (``resource_link``) derived from the output.
    :param local_files: ``read`` or ``write`` for a tool that uses local files (through
        ``ToolContext.files``); the metadata lint keeps the reviewed list of them.
    :param needs_files: where the tool can work at all (:data:`FileNeed`); a tool that reads a
        file (``local_files="read"``) always needs one. The server does not list a tool where
        the deployment cannot serve its need (``registry.select_tools``).
    :param brief: shortens the result's text content (:data:`Brief`).

    :raises ToolDefinitionError: if the declaration breaks one of the module's rules. The
        schemas are checked when built (:func:`prepare`); the index generator and the test
        suite build every shipped tool's schemas.
    """
    if not NAME_PATTERN.match(name):
        raise ToolDefinitionError(f"{name!r}: names are sevdesk_ plus [a-z0-9_], max 40 chars")
    if not MIN_DESCRIPTION_CHARS <= len(description) <= MAX_DESCRIPTION_CHARS:
        raise ToolDefinitionError(f"{name}: the description needs 20 to 1,024 characters")
    if not title or len(title) > MAX_TITLE_CHARS:
        raise ToolDefinitionError(f"{name}: the title needs 1 to 60 characters")
    if annotations.read_only != (tier is Tier.READ):
        raise ToolDefinitionError(f"{name}: readOnlyHint must be true exactly for read tools")
    return ToolDef(
        name=name,
        title=title,
        description=description,
        toolset=toolset,
        tier=tier,
        annotations=annotations,
        input_type=input,
        output_type=output,
        handler=handler,
        links=links,
        local_files=local_files,
        needs_files=needs_files or ("file" if local_files == "read" else None),
        brief=brief,
    )
