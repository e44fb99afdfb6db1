"""The access-token check of ``/mcp`` in OAuth mode (the router's authenticator).

Per request: the ``Authorization: Bearer`` header (a token in the query string is never read,
O13), the sealed token opened with the access key (any failure is one opaque 401), issuer,
audience (this server's ``/mcp``, RFC 8707; O11) and expiry (with :data:`CLOCK_SKEW_S`), then
the grant looked up in the store, so a revocation takes effect at once, and its account,
client and client host checked against the store and the current allowlist
(:meth:`AuthServer.live_grant`, the rule refreshes follow too; a refresh ends the grant of a
removed host). The reason of a refusal goes to the log at debug level, never to the client.

The router's authenticator seam is synchronous and the store is not (it may be Redis), so the
check runs in two steps: :meth:`OAuthVerifier.check` (the router, before any handler) opens
the token, and :meth:`OAuthVerifier.confirm` (the ``/mcp`` route, before anything else) looks
the grant up. :meth:`OAuthVerifier.verify` runs both.

A 401 carries ``WWW-Authenticate: Bearer resource_metadata="…"`` (absolute, RFC 9728) and the
scope challenge, with ``error="invalid_token"`` when a token was sent.
"""

from __future__ import annotations

import logging
from typing import Final

import msgspec

from sevdesk_mcp.errors import HttpError, InvalidTokenError, OAuthError
from sevdesk_mcp.http.auth import oauth_principal
from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.http.oauth.claims import AccessClaims
from sevdesk_mcp.http.oauth.core import AuthServer
from sevdesk_mcp.http.oauth_settings import CLOCK_SKEW_S
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier

MAX_TOKEN_CHARS: Final = 4096
SIGN_IN: Final = (
    "Sign in: this server uses OAuth. Your client finds the authorization server in the "
    "protected resource metadata named in WWW-Authenticate."
)
INVALID: Final = "The access token is not valid (expired, revoked or not for this server)."
_TIERS: Final = {str(t): t for t in Tier}
_decode = msgspec.msgpack.Decoder(AccessClaims)
log = logging.getLogger("sevdesk_mcp.http.oauth")


class GrantedAccess(msgspec.Struct, frozen=True):
    """What a valid access token vouches for (the account resolver's input).

    :param grant: the grant id; :param account: the sevDesk account id.
    :param tiers: the grant's tiers (within ``SEVDESK_ALLOW`` when it was granted).
    :param token: the user's sevDesk token, from inside the sealed access token.
    :param client_name: the name of the grant's client, once :meth:`OAuthVerifier.confirm`
        found the grant (shown in the approval inbox); empty before.
    """

    grant: str
    account: str
    client: str
    tiers: frozenset[Tier]
    token: Secret
    client_name: str = ""

    @property
    def principal(self) -> str:
        """:returns: ``oauth:<account>:<grant>``: what state of this caller is bound to."""
        return oauth_principal(self.account, self.grant)


class OAuthVerifier:
    """Checks access tokens for ``/mcp``."""

    def __init__(self, server: AuthServer) -> None:
        self._server = server
        base = f'Bearer resource_metadata="{server.metadata_url}", scope="sevdesk:read"'
        self._missing = HttpError(401, SIGN_IN, headers=(("www-authenticate", base),))
        invalid = f'{base}, error="invalid_token"'
        self._invalid = HttpError(401, INVALID, headers=(("www-authenticate", invalid),))

    def check(self, headers: Headers) -> GrantedAccess:
        """:returns: what the token vouches for, once :meth:`confirm` finds its grant live.

        :raises HttpError: 401 with ``WWW-Authenticate`` for a missing or invalid token.
        """
        values = headers.get_all("authorization")
        scheme, _, token = (values[0] if len(values) == 1 else "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise self._missing
        try:
            return self.open(token)
        except InvalidTokenError as exc:
            raise self._refused(exc) from None

    async def confirm(self, access: GrantedAccess) -> GrantedAccess:
        """:returns: ``access`` with its client's name if its grant is live, for its account
        and client, and the client's host still allowed.

        :raises HttpError: 401 with ``WWW-Authenticate`` otherwise.
        :raises StateUnavailableError: if a shared grant store cannot be reached.
        """
        try:
            return await self._live(access)
        except InvalidTokenError as exc:
            raise self._refused(exc) from None

    async def verify(self, token: str) -> GrantedAccess:
        """:returns: what ``token`` vouches for (both steps; tests and benchmarks).

        :raises InvalidTokenError: if it is not valid, for whatever reason.
        :raises StateUnavailableError: if a shared grant store cannot be reached.
        """
        return await self._live(self.open(token))

    def open(self, token: str) -> GrantedAccess:
        """:returns: what ``token`` claims, its grant not yet looked up.

        :raises InvalidTokenError: if it does not open, is not for this server or expired.
        """
        server = self._server
        if len(token) > MAX_TOKEN_CHARS:
            raise InvalidTokenError("too long")
        try:
            claims = _decode.decode(server.sealer.open("access", token))
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise InvalidTokenError("malformed claims") from None
        if claims.iss != server.issuer or claims.aud != server.resource:
            raise InvalidTokenError("another issuer or audience")
        if claims.exp + CLOCK_SKEW_S < server.clock():
            raise InvalidTokenError("expired")
        return GrantedAccess(
            grant=claims.grant,
            account=claims.account,
            client=claims.client,
            tiers=frozenset(_TIERS[t] for t in claims.tiers if t in _TIERS),
            token=Secret(claims.sevdesk),
        )

    async def _live(self, access: GrantedAccess) -> GrantedAccess:
        try:
            grant = await self._server.live_grant(access.grant, access.client)
        except OAuthError:
            raise InvalidTokenError("client host no longer allowed") from None
        if grant.account != access.account:
            raise InvalidTokenError("grant of another account")
        return msgspec.structs.replace(access, client_name=grant.client_name)

    def _refused(self, exc: InvalidTokenError) -> HttpError:
        log.debug("access token refused: %s", exc.args[0] if exc.args else "does not open")
        return self._invalid
