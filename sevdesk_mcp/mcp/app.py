"""The surface a server offers, as the protocol core sees it: providers and settings.

The core knows nothing of sevDesk. The server factory (``sevdesk_mcp.server``) builds an
:class:`McpApp` from the tool registry; tests build one from fixture providers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.mcp.types import CacheScope, Implementation, InputRequired, JsonObject, ToolResult


class ToolProvider(Protocol):
    """Lists and calls tools."""

    def list_tools(self, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the ``Tool`` objects for this request, in a stable order."""
        ...

    async def call_tool(
        self, name: str, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        """Run a tool.

        :raises ProtocolError: -32602 for an unknown tool.
        """
        ...


class PromptProvider(Protocol):
    """Lists and renders prompts."""

    def list_prompts(self, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the ``Prompt`` objects, in a stable order."""
        ...

    async def get_prompt(
        self, name: str, arguments: dict[str, str], ctx: RequestContext
    ) -> JsonObject | InputRequired:
        """:returns: ``{description?, messages}``.

        :raises ProtocolError: -32602 for an unknown prompt or missing arguments.
        """
        ...


class ResourceProvider(Protocol):
    """Lists and reads resources."""

    def list_resources(self, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the ``Resource`` objects, in a stable order."""
        ...

    def list_templates(self, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the ``ResourceTemplate`` objects, in a stable order."""
        ...

    async def read_resource(
        self, uri: str, ctx: RequestContext
    ) -> Sequence[JsonObject] | InputRequired:
        """:returns: the non-empty ``contents`` list.

        :raises ResourceNotFoundError: if there is no such resource.
        """
        ...


class CompletionProvider(Protocol):
    """Suggests argument values."""

    async def complete(
        self, ref: JsonObject, argument: JsonObject, ctx: RequestContext
    ) -> JsonObject:
        """:returns: ``{values, total?, hasMore?}``."""
        ...


class McpApp(msgspec.Struct, frozen=True):
    """Everything the dispatcher needs to serve requests.

    :param legacy_elicitation_hint: appended to the error a 2025-era client gets when it cannot be
        asked (no elicitation capability, or a transport without server-to-client requests).
    """

    info: Implementation
    codec: RequestStateCodec
    instructions: str | None = None
    tools: ToolProvider | None = None
    prompts: PromptProvider | None = None
    resources: ResourceProvider | None = None
    completions: CompletionProvider | None = None
    list_ttl_ms: int = 300_000
    cache_scope: CacheScope = "private"
    page_size: int = 100
    elicitation_timeout_s: float = 300.0
    max_input_rounds: int = 8
    legacy_elicitation_hint: str = ""

    def capabilities(self, *, legacy: bool) -> JsonObject:
        """:returns: the server capabilities; ``logging`` only where the era has it."""
        caps: JsonObject = {}
        if self.tools is not None:
            caps["tools"] = {}
        if self.prompts is not None:
            caps["prompts"] = {}
        if self.resources is not None:
            caps["resources"] = {}
        if self.completions is not None:
            caps["completions"] = {}
        if legacy:
            caps["logging"] = {}
        return caps
