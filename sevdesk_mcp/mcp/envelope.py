"""The typed MCP envelope: what a request carries besides its method, decoded once.

- :class:`RequestMeta`: ``params._meta`` of a 2026-07-28 request. The dispatcher (every
  transport) and the HTTP header ladder (``streamable``) both decode it with
  :func:`decode_meta`, so its rules and error texts exist once:

  - ``io.modelcontextprotocol/protocolVersion`` a string and
    ``io.modelcontextprotocol/clientCapabilities`` an object, else -32602;
  - ``io.modelcontextprotocol/logLevel``, unless absent or null, a known level, else -32602;
  - ``progressToken`` kept when it is a string or an integer, ignored otherwise;
  - ``clientInfo`` and the W3C trace keys are not read: self-reported, they decide nothing.

  Whether the version is one this server speaks is a separate check
  (:func:`require_supported`, -32022): on HTTP the mirrored headers are compared in between.
- :class:`Handshake`: what a 2025-era ``initialize`` settled (version and capabilities).
- :class:`ToolCallParams`, :class:`PromptGetParams`, :class:`ResourceReadParams`: the params of
  the three methods that may ask for input (MRTR). ``requestState`` and ``inputResponses`` stay
  :data:`~msgspec.UNSET` when absent: a present ``requestState`` is verified even when null.
  Their ``_meta`` is not repeated here; it reaches the handler decoded, in its
  ``RequestContext``.
"""

from __future__ import annotations

from typing import Final

import msgspec
from msgspec import UNSET, UnsetType

from sevdesk_mcp.errors import INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION, ProtocolError
from sevdesk_mcp.mcp.types import (
    LEGACY_VERSIONS,
    LOG_LEVELS,
    META_CAPABILITIES,
    META_LOG_LEVEL,
    META_VERSION,
    MODERN_VERSION,
    JsonObject,
    JsonValue,
    LogLevel,
)

MALFORMED_META: Final = (
    "params._meta needs a string io.modelcontextprotocol/protocolVersion and an object "
    "io.modelcontextprotocol/clientCapabilities"
)
BAD_LOG_LEVEL: Final = f"The log level must be one of: {', '.join(LOG_LEVELS)}"


class RequestMeta(msgspec.Struct, frozen=True, kw_only=True):
    """``params._meta`` of a 2026-07-28 request, well formed (the version not yet checked)."""

    protocol_version: str
    client_capabilities: JsonObject
    log_level: LogLevel | None = None
    progress_token: int | str | None = None


class Handshake(msgspec.Struct, frozen=True):
    """What a 2025-era connection settled: the negotiated version, the client's capabilities."""

    version: str
    capabilities: JsonObject


class InteractiveParams(msgspec.Struct, frozen=True, kw_only=True):
    """The MRTR fields a retried ``tools/call``, ``prompts/get`` or ``resources/read`` echoes."""

    request_state: JsonValue | UnsetType = UNSET
    input_responses: JsonValue | UnsetType = UNSET


class ToolCallParams(InteractiveParams, frozen=True, kw_only=True):
    """The params of ``tools/call``; omitted or null ``arguments`` are ``{}``."""

    name: str
    arguments: JsonObject


class PromptGetParams(InteractiveParams, frozen=True, kw_only=True):
    """The params of ``prompts/get``; omitted (or empty) ``arguments`` are ``{}``."""

    name: str
    arguments: dict[str, str]


class ResourceReadParams(InteractiveParams, frozen=True, kw_only=True):
    """The params of ``resources/read``."""

    uri: str


def decode_meta(params: JsonObject) -> RequestMeta | None:
    """Decode the 2026-07-28 envelope of a request.

    :returns: the envelope, or ``None`` if ``params._meta`` carries no
        ``io.modelcontextprotocol/protocolVersion`` (a 2025-era request, or none at all).
    :raises ProtocolError: -32602 if the envelope is malformed or names an unknown log level.
    """
    meta = params.get("_meta")
    if not isinstance(meta, dict) or META_VERSION not in meta:
        return None
    version, caps = meta[META_VERSION], meta.get(META_CAPABILITIES)
    if not isinstance(version, str) or not isinstance(caps, dict):
        raise ProtocolError(INVALID_PARAMS, MALFORMED_META)
    level = meta.get(META_LOG_LEVEL)
    return RequestMeta(
        protocol_version=version,
        client_capabilities=caps,
        log_level=None if level is None else log_level(level),
        progress_token=progress_token(meta),
    )


def require_supported(meta: RequestMeta) -> None:
    """:raises ProtocolError: -32022 with ``supported`` and ``requested`` if the envelope names
    a version other than 2026-07-28."""
    if meta.protocol_version != MODERN_VERSION:
        raise ProtocolError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": [MODERN_VERSION], "requested": meta.protocol_version},
        )


def decode_initialize(params: JsonObject) -> Handshake:
    """Decode the params of a 2025-era ``initialize``.

    :returns: the handshake: the requested version if this server speaks it, else the latest
        2025 version (never 2026-07-28); the capabilities, ``{}`` unless an object.
    :raises ProtocolError: -32602 if ``protocolVersion`` is not a string.
    """
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise ProtocolError(INVALID_PARAMS, "initialize needs a string protocolVersion")
    caps = params.get("capabilities")
    return Handshake(legacy_version(requested), caps if isinstance(caps, dict) else {})


def legacy_version(requested: str | None) -> str:
    """:returns: ``requested`` if it is a 2025 version this server speaks, else the latest 2025
    version; never 2026-07-28."""
    return requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[0]


def decode_tool_call(params: JsonObject) -> ToolCallParams:
    """:returns: the params of ``tools/call``.

    :raises ProtocolError: -32602 if ``name`` is not a string or ``arguments`` not an object.
    """
    name = _string(params, "name")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}  # clients omit or null the key (wire digest section 7.8)
    if not isinstance(arguments, dict):
        raise ProtocolError(INVALID_PARAMS, "tools/call: arguments must be a JSON object")
    return ToolCallParams(
        name=name,
        arguments=arguments,
        request_state=params.get("requestState", UNSET),
        input_responses=params.get("inputResponses", UNSET),
    )


def decode_prompt_get(params: JsonObject) -> PromptGetParams:
    """:returns: the params of ``prompts/get``.

    :raises ProtocolError: -32602 if ``name`` is not a string or ``arguments`` does not map
        names to strings.
    """
    name = _string(params, "name")
    raw = params.get("arguments")
    raw = {} if raw is None else raw
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise ProtocolError(INVALID_PARAMS, "prompts/get: arguments must map names to strings")
    return PromptGetParams(
        name=name,
        arguments={k: str(v) for k, v in raw.items()},
        request_state=params.get("requestState", UNSET),
        input_responses=params.get("inputResponses", UNSET),
    )


def decode_resource_read(params: JsonObject) -> ResourceReadParams:
    """:returns: the params of ``resources/read``.

    :raises ProtocolError: -32602 if ``uri`` is not a string.
    """
    return ResourceReadParams(
        uri=_string(params, "uri"),
        request_state=params.get("requestState", UNSET),
        input_responses=params.get("inputResponses", UNSET),
    )


def log_level(value: JsonValue) -> LogLevel:
    """:returns: ``value`` as a log level (``_meta`` in 2026, ``logging/setLevel`` in 2025).

    :raises ProtocolError: -32602 if it is not one of :data:`LOG_LEVELS`.
    """
    for level in LOG_LEVELS:
        if value == level:
            return level
    raise ProtocolError(INVALID_PARAMS, BAD_LOG_LEVEL)


def progress_token(meta: JsonValue) -> int | str | None:
    """:returns: the ``progressToken`` of a ``_meta`` object if it is a string or an integer;
    ``None`` otherwise (no ``_meta``, no token, or one of another type)."""
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    if isinstance(token, bool) or not isinstance(token, int | str):
        return None
    return token


def _string(params: JsonObject, key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise ProtocolError(INVALID_PARAMS, f"The parameter {key!r} must be a string")
    return value
