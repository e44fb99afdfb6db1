"""Protocol rules of Streamable HTTP that need the request headers (wire digest 1.3, 1.4, 3).

Era of a POSTed request, checked in the order the specification gives:

1. ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion``: a 2026-07-28 request.
   a. The envelope must be well formed (string version, object capabilities, a known log
      level): -32602.
   b. The mirrored headers must match the body: ``MCP-Protocol-Version`` the version,
      ``Mcp-Method`` the method, ``Mcp-Name`` the ``name`` (``tools/call``, ``prompts/get``) or
      ``uri`` (``resources/read``), a ``=?base64?…?=`` value decoded first: -32020. So a header
      version of 2026-07-28 with a body version the server does not know is -32020, not -32022.
   c. Version (-32022) and method (-32601) are then the dispatcher's checks.
2. No envelope, but ``MCP-Protocol-Version: 2026-07-28``: -32020 for ``initialize`` (a 2025
   handshake sent with a 2026 header), -32602 (missing envelope) for anything else.
3. Otherwise a 2025-era request. ``MCP-Protocol-Version`` names the negotiated version; absent
   means the client did not send one (``initialize``, or a 2025-03-26 client). A version the
   server does not speak is -32600 with ``supported`` and ``requested``.

Every error of this ladder is answered with HTTP 400. Of the dispatcher's answers, -32601 on a
2026 request is 404 and the other ladder codes are 400; errors raised while serving a request
(unknown tool, bad cursor, internal error) travel in an HTTP 200 (wire digest 1.4).
"""

from __future__ import annotations

import base64
import binascii
from typing import Final, Protocol

from sevdesk_mcp.errors import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    ProtocolError,
)
from sevdesk_mcp.mcp.jsonrpc import Request
from sevdesk_mcp.mcp.types import (
    LEGACY_VERSIONS,
    LOG_LEVELS,
    META_CAPABILITIES,
    META_LOG_LEVEL,
    META_VERSION,
    MODERN_VERSION,
    Era,
    JsonObject,
)

HEADER_VERSION: Final = "mcp-protocol-version"
HEADER_METHOD: Final = "mcp-method"
HEADER_NAME: Final = "mcp-name"
NAMED_PARAMS: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_BAD_REQUEST_CODES: Final = frozenset(
    {
        PARSE_ERROR,
        INVALID_REQUEST,
        HEADER_MISMATCH,
        MISSING_CLIENT_CAPABILITY,
        UNSUPPORTED_PROTOCOL_VERSION,
    }
)


class HeaderSource(Protocol):
    """Request headers, looked up case-insensitively."""

    def get(self, name: str) -> str | None:
        """:returns: the value of header ``name`` with surrounding whitespace removed."""
        ...


def request_era(request: Request, headers: HeaderSource) -> Era:
    """Decide the era of a POSTed request and apply the header ladder.

    :returns: ``"modern"`` or ``"legacy"``.
    :raises ProtocolError: -32602 (envelope), -32020 (headers) or -32600 (legacy version).
    """
    header_version = headers.get(HEADER_VERSION)
    meta = request.params.get("_meta")
    if isinstance(meta, dict) and META_VERSION in meta:
        _check_envelope(meta)
        _check_mirrors(request, meta, headers)
        return "modern"
    if header_version == MODERN_VERSION:
        if request.method == "initialize":
            raise ProtocolError(
                HEADER_MISMATCH,
                "initialize is a 2025-era request; it cannot carry MCP-Protocol-Version: "
                f"{MODERN_VERSION}",
            )
        raise ProtocolError(
            INVALID_PARAMS,
            "Missing params._meta with io.modelcontextprotocol/protocolVersion and "
            f"clientCapabilities, which every {MODERN_VERSION} request carries",
        )
    if header_version is not None and header_version not in LEGACY_VERSIONS:
        raise ProtocolError(
            INVALID_REQUEST,
            "Unsupported MCP-Protocol-Version header",
            {"supported": [MODERN_VERSION, *LEGACY_VERSIONS], "requested": header_version[:64]},
        )
    return "legacy"


def legacy_version(headers: HeaderSource) -> str:
    """:returns: the 2025 version a legacy request was negotiated at (the latest if unnamed)."""
    version = headers.get(HEADER_VERSION)
    return version if version in LEGACY_VERSIONS else LEGACY_VERSIONS[0]


def http_status(answer: JsonObject, era: Era) -> int:
    """:returns: the HTTP status for a JSON-RPC answer of the dispatcher."""
    error = answer.get("error")
    if not isinstance(error, dict):
        return 200
    code = error.get("code")
    if code in _BAD_REQUEST_CODES:
        return 400
    if code == METHOD_NOT_FOUND and era == "modern":
        return 404
    return 200


def _check_envelope(meta: JsonObject) -> None:
    version, caps = meta.get(META_VERSION), meta.get(META_CAPABILITIES)
    level = meta.get(META_LOG_LEVEL)
    if not isinstance(version, str) or not isinstance(caps, dict):
        raise ProtocolError(
            INVALID_PARAMS,
            "params._meta needs a string io.modelcontextprotocol/protocolVersion and an object "
            "io.modelcontextprotocol/clientCapabilities",
        )
    if level is not None and level not in LOG_LEVELS:
        raise ProtocolError(
            INVALID_PARAMS, f"The log level must be one of: {', '.join(LOG_LEVELS)}"
        )


def _check_mirrors(request: Request, meta: JsonObject, headers: HeaderSource) -> None:
    _mirror(headers, HEADER_VERSION, meta.get(META_VERSION), "MCP-Protocol-Version")
    _mirror(headers, HEADER_METHOD, request.method, "Mcp-Method")
    key = NAMED_PARAMS.get(request.method)
    target = request.params.get(key) if key else None
    if isinstance(target, str):
        _mirror(headers, HEADER_NAME, target, "Mcp-Name", decode=True)


def _mirror(
    headers: HeaderSource, name: str, expected: object, label: str, *, decode: bool = False
) -> None:
    value = headers.get(name)
    if value is None:
        raise ProtocolError(HEADER_MISMATCH, f"The {label} header is missing")
    if decode:
        value = decode_header_value(value)
        if value is None:
            raise ProtocolError(HEADER_MISMATCH, f"The {label} header is malformed")
    if value != expected:
        raise ProtocolError(HEADER_MISMATCH, f"The {label} header does not match the body")


def decode_header_value(value: str) -> str | None:
    """:returns: a header value with its ``=?base64?…?=`` encoding removed, or ``None`` if that
    encoding is broken."""
    if not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
