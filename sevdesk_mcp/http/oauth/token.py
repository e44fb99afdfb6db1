"""``POST /token``: the authorization code and refresh token grants.

- A form body only (``invalid_request`` otherwise, O13), each parameter once (O07); the
  client is public: ``client_id`` in the form, or in an ``Authorization: Basic`` header (a
  malformed one is ``invalid_client`` with 401); a secret, if sent, means nothing.
- ``authorization_code`` (RFC 6749 4.1.3, RFC 7636): the sealed code opens, is at most 60 s
  old, was issued to this client for this ``redirect_uri`` and resource; the verifier is 43 to
  128 unreserved characters and its S256 matches the challenge (compared in constant time).
  Every mismatch has one description: nothing to enumerate (O06). Then the code's single use is
  claimed; a second redemption revokes the grant the first one created (O05).
- ``refresh_token``: the sealed token opens, belongs to this client and a live grant whose
  client host is still allowed (``AuthServer.live_grant``, the rule of ``/mcp``; a removed
  host ends the grant: ``invalid_grant`` naming the host), and is that grant's current
  generation. An older generation is a replay: the whole family (the grant) is revoked (O10).
  A ``scope`` may narrow, never widen (``invalid_scope``). sevDesk is asked again whether the
  token still belongs to the account; if it refuses, the grant ends.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Awaitable, Callable
from typing import Final

import msgspec

from sevdesk_mcp.errors import AuthenticationError, InvalidTokenError, OAuthError, UpstreamError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.oauth.claims import CodeClaims, RefreshClaims
from sevdesk_mcp.http.oauth.core import AuthServer, new_id, tiers_of
from sevdesk_mcp.http.oauth.forms import (
    CORS_HEADERS,
    basic_credentials,
    read_form,
    send_error,
    send_json,
)
from sevdesk_mcp.http.oauth.store import Grant
from sevdesk_mcp.http.oauth_settings import REFRESH_TTL_S
from sevdesk_mcp.safety.redact import Secret

MAX_TOKEN_BODY_BYTES: Final = 4 * 1024
_VERIFIER: Final = re.compile(r"[A-Za-z0-9._~-]{43,128}")
_decode_code = msgspec.msgpack.Decoder(CodeClaims)
_decode_refresh = msgspec.msgpack.Decoder(RefreshClaims)
BAD_CODE: Final = (
    "The code is invalid, expired, used already, or was issued to another client, redirect URI "
    "or verifier. Start the authorization again."
)
BAD_REFRESH: Final = "The refresh token is invalid, expired or revoked. Sign in again."

Grantor = Callable[[AuthServer, dict[str, str], str], Awaitable[dict[str, object]]]


async def token_endpoint(server: AuthServer, exchange: Exchange) -> None:
    """Serve ``POST /token``."""
    try:
        form = await read_form(exchange, MAX_TOKEN_BODY_BYTES)
        client_id = _client_id(exchange, form)
        grantor = GRANTS.get(form.get("grant_type", ""))
        if grantor is None:
            raise OAuthError("unsupported_grant_type", "Use authorization_code or refresh_token.")
        answer = await grantor(server, form, client_id)
    except OAuthError as exc:
        await send_error(exchange, exc, cors=True)
        return
    await send_json(exchange, 200, answer, CORS_HEADERS)


def _client_id(exchange: Exchange, form: dict[str, str]) -> str:
    basic = basic_credentials(exchange.request.headers)
    in_form = form.get("client_id")
    if basic is not None and in_form is not None and basic[0] != in_form:
        raise OAuthError("invalid_request", "Two different client_id values were sent.")
    client_id = basic[0] if basic is not None else in_form
    if not client_id:
        raise OAuthError(
            "invalid_client", "Send client_id (this server has public clients only).", 401
        )
    return client_id


async def _code_grant(
    server: AuthServer, form: dict[str, str], client_id: str
) -> dict[str, object]:
    verifier = form.get("code_verifier", "")
    if not _VERIFIER.fullmatch(verifier):
        raise OAuthError(
            "invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 . _ ~ -."
        )
    code = server.open_claims("code", form.get("code", ""), _decode_code)
    server.check_resource(form.get("resource"))
    if (
        code is None
        or code.client != client_id
        or code.redirect_uri != form.get("redirect_uri")
        or not hmac.compare_digest(_s256(verifier), code.challenge.encode())
    ):
        raise OAuthError("invalid_grant", BAD_CODE)
    first, earlier = await server.store.claim_code(code.code_id, code.exp)
    if not first:
        if earlier is not None:
            await server.store.revoke(earlier)  # RFC 6749 4.1.2: the code leaked; so did its tokens
        raise OAuthError("invalid_grant", BAD_CODE)
    grant = await _new_grant(server, code)
    await server.store.link_code(code.code_id, grant.id)
    return server.tokens(grant, code.sevdesk)


async def _new_grant(server: AuthServer, code: CodeClaims) -> Grant:
    client = await server.clients.resolve(code.client)
    now = server.now()
    grant = Grant(
        id=new_id("g_"),
        account=code.account,
        account_name=code.account_name,
        client_id=code.client,
        client_name=client.client_name,
        client_host=client.host,
        tiers=code.tiers,
        created=now,
        expires=now + REFRESH_TTL_S,
    )
    await server.store.add_grant(grant)
    return grant


async def _refresh_grant(
    server: AuthServer, form: dict[str, str], client_id: str
) -> dict[str, object]:
    refresh = server.open_claims("refresh", form.get("refresh_token", ""), _decode_refresh)
    if refresh is None or refresh.client != client_id:
        raise OAuthError("invalid_grant", BAD_REFRESH)
    server.check_resource(form.get("resource"))
    try:
        grant = await server.live_grant(refresh.grant, client_id)
    except InvalidTokenError:
        raise OAuthError("invalid_grant", BAD_REFRESH) from None
    except OAuthError:  # the client's host was removed from the allowlist: the grant ends
        await server.store.revoke(refresh.grant)
        raise
    asked = tiers_of(form.get("scope"))
    if asked and not {str(t) for t in asked} <= set(grant.tiers):
        raise OAuthError("invalid_scope", "A refresh cannot widen the grant; sign in again.")
    rotated = await server.store.rotate(grant.id, refresh.generation, server.now() + REFRESH_TTL_S)
    if rotated is None:  # a used generation: replay; the store revoked the family
        raise OAuthError("invalid_grant", BAD_REFRESH)
    await _still_the_account(server, rotated, refresh.sevdesk)
    return server.tokens(rotated, refresh.sevdesk)


async def _still_the_account(server: AuthServer, grant: Grant, sevdesk: str) -> None:
    """Ask sevDesk whether the token still opens the grant's account; end the grant if not."""
    try:
        identity = await server.identify(Secret(sevdesk))
    except AuthenticationError:
        identity = None
    except UpstreamError:
        return  # sevDesk is unreachable: the next tool call will say so
    if identity is None or identity.id != grant.account:
        await server.store.revoke(grant.id)
        raise OAuthError(
            "invalid_grant", "sevDesk no longer accepts this account's token; sign in again."
        )


def _s256(verifier: str) -> bytes:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=")


GRANTS: Final[dict[str, Grantor]] = {
    "authorization_code": _code_grant,
    "refresh_token": _refresh_grant,
}
