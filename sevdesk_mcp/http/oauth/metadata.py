"""The discovery documents: protected resource metadata (RFC 9728) at ``/mcp``'s path variant
and at the root, and authorization server metadata (RFC 8414) at its path and at the OpenID
discovery path clients also try. Open to every origin (CORS ``*``); ``OPTIONS`` answers 204.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.http.connection import Exchange, Handler
from sevdesk_mcp.http.oauth.core import AuthServer, scope_of
from sevdesk_mcp.http.oauth.forms import CORS_HEADERS, send_json

RESOURCE_PATHS: Final = (
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
)
SERVER_PATHS: Final = (
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
)
RESOURCE_NAME: Final = "sevDesk (mcp-server-sevdesk)"


def resource_metadata(server: AuthServer) -> dict[str, object]:
    """:returns: the protected resource metadata of ``/mcp``."""
    return {
        "resource": server.resource,
        "authorization_servers": [server.issuer],
        "scopes_supported": scope_of(server.allowed).split(),
        "bearer_methods_supported": ["header"],
        "resource_name": RESOURCE_NAME,
    }


def server_metadata(server: AuthServer) -> dict[str, object]:
    """:returns: the authorization server metadata."""
    issuer = server.issuer
    document: dict[str, object] = {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "revocation_endpoint": f"{issuer}/revoke",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": scope_of(server.allowed).split(),
        "client_id_metadata_document_supported": True,
        "authorization_response_iss_parameter_supported": True,
    }
    if server.settings.registration:
        document["registration_endpoint"] = f"{issuer}/register"
    return document


def document_handler(document: dict[str, object]) -> Handler:
    """:returns: the handler answering ``document`` (computed once)."""

    async def serve(exchange: Exchange) -> None:
        await send_json(exchange, 200, document, CORS_HEADERS)

    return serve


async def preflight(exchange: Exchange) -> None:
    """Answer a CORS preflight with 204."""
    await exchange.respond(204, list(CORS_HEADERS))
