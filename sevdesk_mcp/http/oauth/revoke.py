"""``POST /revoke`` (RFC 7009): revoking an access or refresh token ends its whole grant.

The answer is 200 whether or not the token was valid (RFC 7009 2.2): nothing to probe. A token
of another client is not revoked. A malformed request (not a form, a repeated parameter, no
token) is ``invalid_request``.
"""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.errors import InvalidTokenError, OAuthError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.oauth.claims import AccessClaims, RefreshClaims
from sevdesk_mcp.http.oauth.core import AuthServer
from sevdesk_mcp.http.oauth.forms import CORS_HEADERS, basic_credentials, read_form, send_error

MAX_REVOKE_BODY_BYTES: Final = 4 * 1024
_REFRESH: Final = msgspec.msgpack.Decoder(RefreshClaims)
_ACCESS: Final = msgspec.msgpack.Decoder(AccessClaims)


async def revoke_endpoint(server: AuthServer, exchange: Exchange) -> None:
    """Serve ``POST /revoke``."""
    try:
        form = await read_form(exchange, MAX_REVOKE_BODY_BYTES)
        basic = basic_credentials(exchange.request.headers)
        token = form.get("token")
        if not token:
            raise OAuthError("invalid_request", "Send the token to revoke as token.")
    except OAuthError as exc:
        await send_error(exchange, exc, cors=True)
        return
    client_id = basic[0] if basic is not None else form.get("client_id")
    owner = _owner(server, token)
    if owner is not None and (client_id is None or owner[1] == client_id):
        await server.store.revoke(owner[0])
    await exchange.respond(200, list(CORS_HEADERS))


def _owner(server: AuthServer, token: str) -> tuple[str, str] | None:
    """:returns: the ``(grant, client)`` of a token of either kind, or ``None``."""
    try:
        refresh = _REFRESH.decode(server.sealer.open("refresh", token))
    except (InvalidTokenError, msgspec.DecodeError, msgspec.ValidationError):
        pass
    else:
        return refresh.grant, refresh.client
    try:
        access = _ACCESS.decode(server.sealer.open("access", token))
    except (InvalidTokenError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return access.grant, access.client
