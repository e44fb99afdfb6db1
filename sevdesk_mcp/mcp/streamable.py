"""Protocol rules of Streamable HTTP that need the request headers (wire digest 1.3, 1.4, 3).

Era of a POSTed request, checked in the order the specification gives:

1. ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion``: a 2026-07-28 request.
   a. The envelope must be well formed (string version, object capabilities, a known log
      level): -32602. It is decoded here, once (``mcp.envelope``), and handed to the
      dispatcher.
   b. The mirrored headers must match the body: ``MCP-Protocol-Version`` the version,
      ``Mcp-Method`` the method, ``Mcp-Name`` the ``name`` (``tools/call``, ``prompts/get``) or
      ``uri`` (``resources/read``), a ``=?base64?…?=`` value decoded first: -32020. So a header
      version of 2026-07-28 with a body version the server does not know is -32020, not -32022.
   c. Version (-32022) and method (-32601) are then the dispatcher's checks.
2. No envelope, but ``MCP-Protocol-Version: 2026-07-28``: -32020 for ``initialize`` (a 2025
   handshake sent with a 2026 header), -32602 (missing envelope) for anything else.
3. Otherwise a 2025-era request. ``MCP-Protocol-Version`` names the negotiated version; absent
   means the client did not send one (``initialize``, or a 2025-03-26 client). A version the
   server does not speak is -32600 with ``supported`` and ``requested``. Without a session,
   every such request but ``initialize`` is served on a connection opened at that version
   (:func:`open_connection`).

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
from sevdesk_mcp.mcp.context import Peer
from sevdesk_mcp.mcp.dispatcher import Connection
from sevdesk_mcp.mcp.envelope import RequestMeta, decode_meta, legacy_version
from sevdesk_mcp.mcp.jsonrpc import Request
from sevdesk_mcp.mcp.types import LEGACY_VERSIONS, MODERN_VERSION, Era, JsonObject

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


def check_request(request: Request, headers: HeaderSource) -> RequestMeta | None:
    """Decode the envelope of a POSTed request and apply the header ladder.

    :returns: the decoded ``params._meta`` of a 2026-07-28 request (for the dispatcher);
        ``None`` for a 2025-era request.
    :raises ProtocolError: -32602 (envelope), -32020 (headers) or -32600 (legacy version).
    """
    meta = decode_meta(request.params)
    if meta is not None:
        _check_mirrors(request, meta, headers)
        return meta
    header_version = headers.get(HEADER_VERSION)
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
    return None


def open_connection(
    request: Request, meta: RequestMeta | None, headers: HeaderSource, peer: Peer, principal: str
) -> Connection:
    """:returns: the connection one stateless request is served on: fresh for a 2026-07-28
    request (``meta``) and for ``initialize``; for any other 2025-era request, opened at the
    version its ``MCP-Protocol-Version`` header names (the latest 2025 version if unnamed)."""
    if meta is not None or request.method == "initialize":
        return Connection(peer, principal)
    version = legacy_version(headers.get(HEADER_VERSION))
    return Connection.legacy(peer, version, principal=principal)


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


def _check_mirrors(request: Request, meta: RequestMeta, headers: HeaderSource) -> None:
    _mirror(headers, HEADER_VERSION, meta.protocol_version, "MCP-Protocol-Version")
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
