"""One dispatcher for both protocol eras.

Era detection per message (wire digest section 1.3, stdio rules):

1. ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion``: a 2026-07-28 request.
   A malformed envelope is -32602, another version -32022, a method the era does not have -32601
   (the envelope is decoded by ``mcp.envelope``, once: HTTP hands over what its ladder decoded).
2. ``initialize`` without that envelope: the 2025 handshake. It echoes a supported requested
   version, otherwise answers the latest 2025 version; it never answers 2026-07-28.
3. Any other request on a connection that completed ``initialize`` (or that the transport
   opened as a 2025-era one, :meth:`Connection.legacy`): 2025 era.
4. Anything else: -32602 (the envelope is missing and there was no handshake).

2026 results carry ``resultType`` and ``serverInfo`` in ``_meta``; lists, ``server/discover`` and
``resources/read`` add ``ttlMs`` and ``cacheScope``. 2025 results carry none of these.

The dispatcher is the redaction choke point of the protocol (threat case F02): every answer it
returns (tool results with their text and ``structuredContent``, previews in input requests,
JSON-RPC errors) and every message a handler sends the client through ``ctx.peer`` (progress,
log messages, elicitation requests) passes :data:`~sevdesk_mcp.safety.redact.REDACTOR` first.
:meth:`Dispatcher.handle_encoded` checks the answer's encoded text and hands that text on, so a
clean answer is encoded once.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Final

import msgspec

from sevdesk_mcp.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND_2025,
    ProtocolError,
    ResourceNotFoundError,
)
from sevdesk_mcp.mcp import envelope, methods
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import Peer, RequestContext, Subscriptions
from sevdesk_mcp.mcp.envelope import Handshake, RequestMeta
from sevdesk_mcp.mcp.jsonrpc import Request, encode, encode_result, error_answer, result_answer
from sevdesk_mcp.mcp.types import LEGACY_VERSIONS, META_SERVER_INFO, Era, JsonObject, LogLevel
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
SUBSCRIPTION_METHODS: Final = frozenset({"resources/subscribe", "resources/unsubscribe"})
MAX_URI_CHARS: Final = 2048
_SHORT_IDS: Final = range(-999_999, 10_000_000)  # ids of at most 7 characters
MODERN_METHODS: Final[dict[str, Handler]] = {"server/discover": methods.discover, **_SHARED}
LEGACY_METHODS: Final[dict[str, Handler]] = {"ping": methods.ping, **_SHARED}


class Connection(msgspec.Struct):
    """What one connection remembers: the 2025 handshake, if any, and its log level.

    A transport opens it, as ``Connection(peer)`` or with :meth:`legacy`; only the dispatcher
    changes it afterwards (``initialize``, ``logging/setLevel``). A transport that can deliver
    resource updates later (an HTTP session's GET stream) passes ``subscriptions``: the 2025 era's
    ``resources/subscribe`` and ``unsubscribe`` are then served, and ``initialize`` declares
    ``resources.subscribe``.
    """

    peer: Peer
    principal: str = "local"
    handshake: Handshake | None = None
    log_level: LogLevel | None = None
    subscriptions: Subscriptions | None = None

    @classmethod
    def legacy(cls, peer: Peer, version: str, *, principal: str = "local") -> Connection:
        """:returns: a connection whose 2025 handshake happened elsewhere: stateless HTTP serves
        a request at the version its ``MCP-Protocol-Version`` header names, without knowing
        the client's capabilities.

        :raises ValueError: if ``version`` is not a 2025 version this server speaks.
        """
        if version not in LEGACY_VERSIONS:
            raise ValueError(f"not a 2025 protocol version of this server: {version!r}")
        return cls(peer, principal, Handshake(version, {}))


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

    async def handle(
        self, request: Request, conn: Connection, meta: RequestMeta | None = None
    ) -> JsonObject:
        """:returns: the JSON-RPC answer to ``request``, redacted; never raises except on
        cancellation.

        :param meta: the envelope of ``request`` if the transport decoded it already (HTTP's
            header ladder does); otherwise it is decoded here.
        """
        return REDACTOR.scrub_object(await self._answer(request, conn, meta))

    async def handle_encoded(
        self, request: Request, conn: Connection, meta: RequestMeta | None = None
    ) -> tuple[JsonObject, bytes]:
        """:returns: the JSON-RPC answer to ``request``, redacted, and its JSON text: a clean
        answer is encoded once, for the redaction check and for sending.

        The result is checked apart from its envelope, so the same result under another
        request id is found clean again without a search; an id of fewer than 8 characters
        cannot hold a secret (:data:`~sevdesk_mcp.safety.redact.MIN_SECRET_CHARS`).

        :raises TypeError: (or ``msgspec.EncodeError``) for an answer that is not JSON data,
            which :meth:`handle` would return for its transport to fail on.
        """
        answer = await self._answer(request, conn, meta)
        result, request_id = answer.get("result"), request.id
        if not isinstance(result, dict) or not isinstance(request_id, int):
            return REDACTOR.scrub_encoded(answer, encode)
        if request_id not in _SHORT_IDS:
            return REDACTOR.scrub_encoded(answer, encode)
        result, data = REDACTOR.scrub_encoded(result, encode)  # a repeated result: looked up
        return result_answer(request_id, result), encode_result(request_id, data)

    async def _answer(
        self, request: Request, conn: Connection, meta: RequestMeta | None
    ) -> JsonObject:
        try:
            if meta is None:
                meta = envelope.decode_meta(request.params)
            result = await self._dispatch(request, conn, meta)
        except ResourceNotFoundError as exc:
            code = exc.code if meta is not None else RESOURCE_NOT_FOUND_2025
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

    async def _dispatch(
        self, request: Request, conn: Connection, meta: RequestMeta | None
    ) -> JsonObject:
        if meta is not None:
            return await self._modern(request, conn, meta)
        if request.method == "initialize":
            return self._initialize(request.params, conn)
        if conn.handshake is None:
            raise ProtocolError(
                INVALID_PARAMS,
                "Missing params._meta with io.modelcontextprotocol/protocolVersion and "
                "clientCapabilities (2026-07-28); 2025-era clients must send initialize first",
            )
        return await self._legacy(request, conn, conn.handshake)

    async def _modern(self, request: Request, conn: Connection, meta: RequestMeta) -> JsonObject:
        envelope.require_supported(meta)
        handler = MODERN_METHODS.get(request.method)
        if handler is None:
            raise _not_found(request.method)
        ctx = _context(request, conn, meta)
        result = await handler(self.app, ctx, request.params)
        return self._decorate(request.method, result)

    async def _legacy(self, request: Request, conn: Connection, handshake: Handshake) -> JsonObject:
        if request.method == "logging/setLevel":
            conn.log_level = envelope.log_level(request.params.get("level"))
            return {}
        if request.method in SUBSCRIPTION_METHODS and self._subscribes(conn):
            assert conn.subscriptions is not None  # checked by _subscribes
            uri = _subscription_uri(request.params)
            if request.method == "resources/subscribe":
                conn.subscriptions.subscribe(uri)
            else:
                conn.subscriptions.unsubscribe(uri)
            return {}
        handler = LEGACY_METHODS.get(request.method)
        if handler is None:
            raise _not_found(request.method)
        ctx = _context(request, conn, handshake)
        return await handler(self.app, ctx, request.params)

    def _initialize(self, params: JsonObject, conn: Connection) -> JsonObject:
        if conn.handshake is not None:
            raise ProtocolError(INVALID_REQUEST, "Invalid request: initialize was already sent")
        conn.handshake = envelope.decode_initialize(params)
        capabilities = self.app.capabilities(legacy=True)
        if self._subscribes(conn):
            capabilities["resources"] = {"subscribe": True}
        result: JsonObject = {
            "protocolVersion": conn.handshake.version,
            "capabilities": capabilities,
            "serverInfo": self.app.info.to_json(),
        }
        if self.app.instructions:
            result["instructions"] = self.app.instructions
        return result

    def _subscribes(self, conn: Connection) -> bool:
        """:returns: whether ``conn`` serves resource subscriptions (it can deliver updates and
        the app has resources)."""
        return conn.subscriptions is not None and self.app.resources is not None

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


def _context(request: Request, conn: Connection, source: RequestMeta | Handshake) -> RequestContext:
    """:returns: the context a handler serves ``request`` in: a 2026-07-28 request carries its
    version, capabilities and notification settings in ``_meta``; a 2025-era one has them from
    the handshake, its ``progressToken`` from ``_meta`` and its log level from the connection."""
    era: Era = "modern" if isinstance(source, RequestMeta) else "legacy"
    if isinstance(source, RequestMeta):
        version, capabilities = source.protocol_version, source.client_capabilities
        progress_token, log_level = source.progress_token, source.log_level
    else:
        version, capabilities = source.version, source.capabilities
        progress_token = envelope.progress_token(request.params.get("_meta"))
        log_level = conn.log_level
    return RequestContext(
        era=era,
        protocol_version=version,
        client_capabilities=capabilities,
        principal=conn.principal,
        request_id=request.id,
        peer=RedactingPeer(conn.peer),
        progress_token=progress_token,
        log_level=log_level,
    )


def _subscription_uri(params: JsonObject) -> str:
    """:returns: the ``uri`` of ``resources/subscribe`` or ``unsubscribe``.

    :raises ProtocolError: -32602 if it is not a string of at most :data:`MAX_URI_CHARS`.
    """
    uri = params.get("uri")
    if not isinstance(uri, str) or not 0 < len(uri) <= MAX_URI_CHARS:
        raise ProtocolError(
            INVALID_PARAMS,
            f"resources/subscribe and unsubscribe need a uri: a string of 1 to {MAX_URI_CHARS} "
            "characters, as resources/list names it",
        )
    return uri


def _not_found(method: str) -> ProtocolError:
    return ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method[:100]}")
