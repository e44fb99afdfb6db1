"""One dispatcher for both protocol eras.

Era detection per message (wire digest section 1.3, stdio rules):

1. ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion``: a 2026-07-28 request.
   A malformed envelope is -32602, another version -32022, a method the era does not have -32601.
2. ``initialize`` without that envelope: the 2025 handshake. It echoes a supported requested
   version, otherwise answers the latest 2025 version; it never answers 2026-07-28.
3. Any other request on a connection that completed ``initialize``: 2025 era.
4. Anything else: -32602 (the envelope is missing and there was no handshake).

2026 results carry ``resultType`` and ``serverInfo`` in ``_meta``; lists, ``server/discover`` and
``resources/read`` add ``ttlMs`` and ``cacheScope``. 2025 results carry none of these.

The dispatcher is the redaction choke point of the protocol (threat case F02): every answer it
returns (tool results with their text and ``structuredContent``, previews in input requests,
JSON-RPC errors) and every message a handler sends the client through ``ctx.peer`` (progress,
log messages, elicitation requests) passes :data:`~sevdesk_mcp.safety.redact.REDACTOR` first.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

from sevdesk_mcp.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND_2025,
    UNSUPPORTED_PROTOCOL_VERSION,
    ProtocolError,
    ResourceNotFoundError,
)
from sevdesk_mcp.mcp import methods
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import Peer, RequestContext
from sevdesk_mcp.mcp.jsonrpc import Request, error_answer, result_answer
from sevdesk_mcp.mcp.types import (
    LEGACY_VERSIONS,
    LOG_LEVELS,
    META_CAPABILITIES,
    META_LOG_LEVEL,
    META_SERVER_INFO,
    META_VERSION,
    MODERN_VERSION,
    JsonObject,
)
from sevdesk_mcp.safety.redact import REDACTOR

log = logging.getLogger("sevdesk_mcp")

Handler = Callable[[McpApp, RequestContext, JsonObject], Awaitable[JsonObject]]

CACHED_METHODS: Final = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
_SHARED: Final[dict[str, Handler]] = {
    "tools/list": methods.tools_list,
    "tools/call": methods.tools_call,
    "prompts/list": methods.prompts_list,
    "prompts/get": methods.prompts_get,
    "resources/list": methods.resources_list,
    "resources/templates/list": methods.resources_templates_list,
    "resources/read": methods.resources_read,
    "completion/complete": methods.completion_complete,
}
MODERN_METHODS: Final[dict[str, Handler]] = {"server/discover": methods.discover, **_SHARED}
LEGACY_METHODS: Final[dict[str, Handler]] = {"ping": methods.ping, **_SHARED}


@dataclass(slots=True)
class Connection:
    """What one connection remembers: the 2025 handshake, if any, and its log level."""

    peer: Peer
    principal: str = "local"
    legacy_version: str | None = None
    legacy_capabilities: JsonObject = field(default_factory=dict)
    log_level: str | None = None


class RedactingPeer:
    """The connection back to the client; every message sent through it is redacted first."""

    def __init__(self, peer: Peer) -> None:
        self._peer = peer

    @property
    def can_request(self) -> bool:
        """Whether server-to-client requests are possible."""
        return self._peer.can_request

    async def notify(self, method: str, params: JsonObject) -> None:
        """Send a notification with redacted ``params``."""
        await self._peer.notify(method, REDACTOR.scrub_object(params))

    async def request(self, method: str, params: JsonObject, timeout_s: float) -> JsonObject:
        """Send a request with redacted ``params`` and wait for its result.

        :raises PeerRequestError: on an error answer, a closed connection or the timeout.
        """
        return await self._peer.request(method, REDACTOR.scrub_object(params), timeout_s)


class Dispatcher:
    """Answers requests of both eras for one :class:`McpApp`."""

    def __init__(self, app: McpApp) -> None:
        self.app = app

    async def handle(self, request: Request, conn: Connection) -> JsonObject:
        """:returns: the JSON-RPC answer to ``request``, redacted; never raises except on
        cancellation."""
        return REDACTOR.scrub_object(await self._answer(request, conn))

    async def _answer(self, request: Request, conn: Connection) -> JsonObject:
        try:
            result = await self._dispatch(request, conn)
        except ResourceNotFoundError as exc:
            modern = _is_modern(request.params)
            code = exc.code if modern else RESOURCE_NOT_FOUND_2025
            return error_answer(request.id, code, exc.message, exc.data)
        except ProtocolError as exc:
            return error_answer(request.id, exc.code, exc.message, exc.data)
        except Exception:
            ref = secrets.token_hex(4)
            log.exception("internal error while serving %s (reference %s)", request.method, ref)
            return error_answer(
                request.id, INTERNAL_ERROR, f"Internal error (reference {ref}); see the server log"
            )
        return result_answer(request.id, result)

    async def _dispatch(self, request: Request, conn: Connection) -> JsonObject:
        if _is_modern(request.params):
            return await self._modern(request, conn)
        if request.method == "initialize":
            return self._initialize(request.params, conn)
        if conn.legacy_version is None:
            raise ProtocolError(
                INVALID_PARAMS,
                "Missing params._meta with io.modelcontextprotocol/protocolVersion and "
                "clientCapabilities (2026-07-28); 2025-era clients must send initialize first",
            )
        return await self._legacy(request, conn)

    async def _modern(self, request: Request, conn: Connection) -> JsonObject:
        meta = request.params["_meta"]
        assert isinstance(meta, dict)  # guaranteed by _is_modern
        version, caps, level = _envelope(meta)
        handler = MODERN_METHODS.get(request.method)
        if handler is None:
            raise _not_found(request.method)
        ctx = RequestContext(
            era="modern",
            protocol_version=version,
            client_capabilities=caps,
            principal=conn.principal,
            request_id=request.id,
            peer=RedactingPeer(conn.peer),
            progress_token=_progress_token(meta),
            log_level=level,
        )
        result = await handler(self.app, ctx, request.params)
        return self._decorate(request.method, result)

    async def _legacy(self, request: Request, conn: Connection) -> JsonObject:
        if request.method == "logging/setLevel":
            conn.log_level = _log_level(request.params.get("level"))
            return {}
        handler = LEGACY_METHODS.get(request.method)
        if handler is None:
            raise _not_found(request.method)
        meta = request.params.get("_meta")
        ctx = RequestContext(
            era="legacy",
            protocol_version=conn.legacy_version or LEGACY_VERSIONS[0],
            client_capabilities=conn.legacy_capabilities,
            principal=conn.principal,
            request_id=request.id,
            peer=RedactingPeer(conn.peer),
            progress_token=_progress_token(meta) if isinstance(meta, dict) else None,
            log_level=conn.log_level,
        )
        return await handler(self.app, ctx, request.params)

    def _initialize(self, params: JsonObject, conn: Connection) -> JsonObject:
        if conn.legacy_version is not None:
            raise ProtocolError(INVALID_REQUEST, "Invalid request: initialize was already sent")
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise ProtocolError(INVALID_PARAMS, "initialize needs a string protocolVersion")
        caps = params.get("capabilities")
        conn.legacy_version = requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
        conn.legacy_capabilities = caps if isinstance(caps, dict) else {}
        result: JsonObject = {
            "protocolVersion": conn.legacy_version,
            "capabilities": self.app.capabilities(legacy=True),
            "serverInfo": self.app.info.to_json(),
        }
        if self.app.instructions:
            result["instructions"] = self.app.instructions
        return result

    def _decorate(self, method: str, result: JsonObject) -> JsonObject:
        meta = result.get("_meta")
        meta = dict(meta) if isinstance(meta, dict) else {}
        meta[META_SERVER_INFO] = self.app.info.to_json()
        result["_meta"] = meta
        if "resultType" in result:
            return result
        result["resultType"] = "complete"
        if method in CACHED_METHODS:
            result["ttlMs"] = self.app.list_ttl_ms
            result["cacheScope"] = self.app.cache_scope
        return result


def _is_modern(params: JsonObject) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and META_VERSION in meta


def _envelope(meta: JsonObject) -> tuple[str, JsonObject, str | None]:
    version, caps = meta.get(META_VERSION), meta.get(META_CAPABILITIES)
    if not isinstance(version, str) or not isinstance(caps, dict):
        raise ProtocolError(
            INVALID_PARAMS,
            "params._meta needs a string io.modelcontextprotocol/protocolVersion and an object "
            "io.modelcontextprotocol/clientCapabilities",
        )
    if version != MODERN_VERSION:
        raise ProtocolError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": [MODERN_VERSION], "requested": version},
        )
    level = meta.get(META_LOG_LEVEL)
    return version, caps, None if level is None else _log_level(level)


def _log_level(value: object) -> str:
    if not isinstance(value, str) or value not in LOG_LEVELS:
        raise ProtocolError(
            INVALID_PARAMS, f"The log level must be one of: {', '.join(LOG_LEVELS)}"
        )
    return value


def _progress_token(meta: JsonObject) -> int | str | None:
    token = meta.get("progressToken")
    if isinstance(token, bool) or not isinstance(token, int | str):
        return None
    return token


def _not_found(method: str) -> ProtocolError:
    return ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method[:100]}")
