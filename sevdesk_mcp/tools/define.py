"""``define_tool``: the one way to declare a tool.

A tool declares its name, title, description, toolset, tier, all four MCP annotations, an input
Struct, an output Struct and its handler. The rules are checked when the tool is defined:

- names are ``sevdesk_`` plus ``[a-z0-9_]``, at most 40 characters (client limits, section 7.9);
- the description is 20 to 1,024 characters; the title at most 60;
- a ``read`` tool is read-only and every other tier is not (reads and writes never share a tool);
- the input Struct forbids unknown fields and generates a flat, bounded schema.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.types import InputRequired, JsonObject
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.schema import input_schema, output_schema

NAME_PATTERN: Final = re.compile(r"^sevdesk_[a-z0-9_]{1,32}$")
MAX_DESCRIPTION_CHARS: Final = 1024
MIN_DESCRIPTION_CHARS: Final = 20
MAX_TITLE_CHARS: Final = 60

I = TypeVar("I", bound=msgspec.Struct)  # noqa: E741 - the conventional name for "input"
O = TypeVar("O", bound=msgspec.Struct)  # noqa: E741


@dataclass(frozen=True, slots=True)
class Annotations:
    """The four MCP tool annotations, each stated explicitly."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def to_json(self, title: str) -> JsonObject:
        """:returns: the wire form."""
        return {
            "title": title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a handler gets besides its arguments: the account and the MCP request."""

    account: AccountContext
    request: RequestContext
    registered: tuple[str, ...]
    safety: SafetyRuntime


Handler = Callable[[I, ToolContext], Awaitable["O | InputRequired"]]
Links = Callable[[O], list[JsonObject]]


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
    _schemas: dict[str, JsonObject] = field(default_factory=dict, compare=False, repr=False)

    @property
    def input_schema(self) -> JsonObject:
        """:returns: the flat input schema, built on first use (start-up never waits for it).

        :raises ToolDefinitionError: if the input Struct cannot be expressed flat and bounded.
        """
        if "input" not in self._schemas:
            self._schemas["input"] = input_schema(self.input_type)
        return self._schemas["input"]

    @property
    def output_schema(self) -> JsonObject:
        """:returns: the output schema, built on first use.

        :raises ToolDefinitionError: if the output Struct has no JSON Schema form.
        """
        if "output" not in self._schemas:
            self._schemas["output"] = output_schema(self.output_type)
        return self._schemas["output"]

    def to_json(self, *, structured: bool) -> JsonObject:
        """:returns: the ``Tool`` object; ``outputSchema`` only when ``structured``."""
        out: JsonObject = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations.to_json(self.title),
        }
        if structured:
            out["outputSchema"] = self.output_schema
        return out


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
) -> ToolDef[I, O]:
    """Declare a tool.

    :param links: extra content blocks (``resource_link``) derived from the output.

    :raises ToolDefinitionError: if the declaration breaks one of the module's rules. The
        schemas are checked when first built (the first ``tools/list``); the test suite builds
        every shipped tool's schemas.
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
    )
