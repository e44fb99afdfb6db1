"""Plain types shared by the protocol core: versions, method sets, results."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, get_args

import msgspec

# Re-exported (explicitly, for mypy) so the core's users need one import.
from sevdesk_mcp.jsontypes import JsonObject as JsonObject  # noqa: PLC0414
from sevdesk_mcp.jsontypes import JsonValue as JsonValue  # noqa: PLC0414

RequestId: TypeAlias = "int | str"

MODERN_VERSION: Final = "2026-07-28"
LEGACY_VERSIONS: Final = ("2025-11-25", "2025-06-18")
SUPPORTED_VERSIONS: Final = (MODERN_VERSION, *LEGACY_VERSIONS)

META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"

LogLevel = Literal[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
]
LOG_LEVELS: Final[tuple[LogLevel, ...]] = get_args(LogLevel)  # from least to most severe

Era = Literal["modern", "legacy"]
CacheScope = Literal["public", "private"]


class Implementation(msgspec.Struct, frozen=True):
    """Name and version of a server or client (``Implementation`` on the wire)."""

    name: str
    version: str
    title: str | None = None

    def to_json(self) -> JsonObject:
        """:returns: the wire form."""
        out: JsonObject = {"name": self.name, "version": self.version}
        if self.title:
            out["title"] = self.title
        return out


class ElicitForm(msgspec.Struct, frozen=True):
    """A form elicitation: a message and a flat ``requestedSchema`` of primitive properties."""

    message: str
    requested_schema: JsonObject

    def to_params(self, *, with_mode: bool) -> JsonObject:
        """:returns: the ``elicitation/create`` params; ``mode`` only where the version has it."""
        params: JsonObject = {"message": self.message, "requestedSchema": self.requested_schema}
        if with_mode:
            params = {"mode": "form", **params}
        return params


class ElicitResponse(msgspec.Struct, frozen=True):
    """A client's answer to one elicitation: ``accept`` (with content), ``decline``, ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: JsonObject = msgspec.field(default_factory=dict)


ClientMethod = Literal["sampling/createMessage", "roots/list"]
CLIENT_METHOD_CAPABILITY: Final[dict[str, str]] = {
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


class ClientRequest(msgspec.Struct, frozen=True):
    """An input request other than a form: ``sampling/createMessage`` or ``roots/list``.

    Both are deprecated in 2026-07-28 and still part of it. The client's answer (a
    ``CreateMessageResult`` or ``ListRootsResult``) reaches the handler unparsed, in
    ``RequestContext.input_results``.
    """

    method: ClientMethod
    params: JsonObject

    @property
    def capability(self) -> str:
        """:returns: the client capability this request needs."""
        return CLIENT_METHOD_CAPABILITY[self.method]


class InputRequired(msgspec.Struct, frozen=True):
    """What a handler returns instead of a result when it needs the human first.

    :param requests: elicitations keyed by a handler-chosen name.
    :param state: JSON data the handler wants back on the retry; it is sealed by the core.
    :param client_requests: sampling and roots requests, keyed like ``requests`` (the keys of
        both share one namespace).
    """

    requests: dict[str, ElicitForm]
    state: JsonValue = None
    client_requests: dict[str, ClientRequest] = msgspec.field(default_factory=dict)


class ToolResult(msgspec.Struct, frozen=True):
    """The result of ``tools/call``: content blocks, optional structured content, error flag."""

    content: list[JsonObject]
    structured: JsonObject | None = None
    is_error: bool = False

    def to_json(self) -> JsonObject:
        """:returns: the wire form of a ``CallToolResult`` (without era fields)."""
        out: JsonObject = {"content": list(self.content)}
        if self.structured is not None:
            out["structuredContent"] = self.structured
        if self.is_error:
            out["isError"] = True
        return out

    @classmethod
    def error(cls, text: str) -> ToolResult:
        """:returns: an ``isError`` result carrying one text block."""
        return cls(content=[{"type": "text", "text": text}], is_error=True)
