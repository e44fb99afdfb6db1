"""The one exception tree of the project.

::

    SevdeskMcpError
    ├── ConfigError            a setting is invalid; start-up stops with one line on stderr
    ├── ProtocolError          a JSON-RPC error answer (code, message, data)
    │   ├── InvalidRequestStateError   a sealed requestState failed verification
    │   └── ResourceNotFoundError      resources/read named an unknown URI
    ├── ToolDefinitionError    a tool is declared wrongly (caught by tests, never at run time)
    └── ToolError              a tool call failed with a trusted, actionable message
        ├── ToolInputError     the arguments do not fit the tool's input schema
        └── TierDeniedError    the tool's tier is not enabled in this configuration

Every message is written for the person reading it: it says what was wrong and how to fix it,
and never contains a secret or untrusted text from sevDesk.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.mcp.types import JsonObject

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
RESOURCE_NOT_FOUND_2025: Final = -32002
HEADER_MISMATCH: Final = -32020
MISSING_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022


class SevdeskMcpError(Exception):
    """Root of every error this package raises on purpose."""


class ConfigError(SevdeskMcpError):
    """A configuration value is invalid.

    :param variable: the environment variable (or option) at fault.
    :param message: what is wrong and which values are allowed.
    """

    def __init__(self, variable: str, message: str) -> None:
        super().__init__(f"{variable}: {message}")
        self.variable = variable


class ProtocolError(SevdeskMcpError):
    """An error that is answered as a JSON-RPC ``error`` object.

    :param code: the JSON-RPC error code.
    :param message: a trusted, actionable message.
    :param data: optional structured data defined by the MCP specification.
    """

    def __init__(self, code: int, message: str, data: JsonObject | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class InvalidRequestStateError(ProtocolError):
    """A ``requestState`` was tampered with, expired, or belongs to another request."""

    def __init__(self) -> None:
        super().__init__(
            INVALID_PARAMS,
            "Invalid or expired requestState",
            {"reason": "invalid_request_state"},
        )


class ResourceNotFoundError(ProtocolError):
    """``resources/read`` named a URI that does not exist (-32602 on 2026, -32002 on 2025)."""

    def __init__(self, uri: str) -> None:
        super().__init__(INVALID_PARAMS, "Resource not found", {"uri": uri})
        self.uri = uri


class ToolDefinitionError(SevdeskMcpError):
    """A tool definition breaks a rule of ``define_tool`` (names, schemas, annotations)."""


class ToolError(SevdeskMcpError):
    """A tool call failed; the message is shown to the model as an ``isError`` result."""


class ToolInputError(ToolError):
    """The arguments of a tool call do not fit the tool's input schema."""


class TierDeniedError(ToolError):
    """The tool's tier is not enabled by the configuration."""
