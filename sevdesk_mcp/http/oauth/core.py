"""What every OAuth endpoint shares: issuer, resource, keys, store, clients and the clock.

Scopes are the tiers: ``sevdesk:read``, ``sevdesk:write``, ``sevdesk:commit`` and
``sevdesk:external``; only those within ``SEVDESK_ALLOW`` are offered. ``offline_access`` is
accepted and ignored (every grant gets a rotating refresh token).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Final, Protocol, TypeVar

import msgspec

from sevdesk_mcp.errors import InvalidTokenError, OAuthError
from sevdesk_mcp.http.oauth.claims import AccessClaims, RefreshClaims, encode
from sevdesk_mcp.http.oauth.clients import ClientResolver
from sevdesk_mcp.http.oauth.seal import Purpose, Sealer
from sevdesk_mcp.http.oauth.store import Grant, GrantStore
from sevdesk_mcp.http.oauth_settings import ACCESS_TTL_S, OAuthSettings
from sevdesk_mcp.http.settings import Site
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier

SCOPE_PREFIX: Final = "sevdesk:"
IGNORED_SCOPES: Final = frozenset({"offline_access"})
MAX_SCOPE_CHARS: Final = 256
HOST_REMOVED: Final = (
    "Clients from {host} are no longer allowed here (SEVDESK_HTTP_OAUTH_CLIENT_HOSTS), so this "
    "grant has ended. Sign in again once the operator allows the host again."
)


class Identity(Protocol):
    """A sevDesk account as ``GET /SevClient`` names it (``accounts.identity`` looks it up)."""

    @property
    def id(self) -> str:
        """:returns: the account id."""
        ...

    @property
    def name(self) -> str:
        """:returns: the account's name."""
        ...


Identify = Callable[[Secret], Awaitable[Identity]]


class Expiring(Protocol):
    """Sealed claims with an expiry."""

    @property
    def exp(self) -> int:
        """:returns: the expiry, in seconds since the epoch."""
        ...


ClaimsT = TypeVar("ClaimsT", bound=Expiring)


def scope_of(tiers: Iterable[Tier]) -> str:
    """:returns: the space-separated scopes of ``tiers``, in tier order."""
    return " ".join(f"{SCOPE_PREFIX}{t}" for t in sorted(tiers))


def tiers_of(scope: str | None) -> frozenset[Tier]:
    """:returns: the tiers a ``scope`` parameter names (none if it is absent).

    :raises OAuthError: ``invalid_scope`` for a scope this server does not know.
    """
    tiers: set[Tier] = set()
    for word in (scope or "")[:MAX_SCOPE_CHARS].split():
        if word in IGNORED_SCOPES:
            continue
        try:
            if not word.startswith(SCOPE_PREFIX):
                raise ValueError(word)
            tiers.add(Tier.parse(word.removeprefix(SCOPE_PREFIX)))
        except ValueError:
            raise OAuthError(
                "invalid_scope",
                "Unknown scope; use sevdesk:read, sevdesk:write, sevdesk:commit or "
                "sevdesk:external.",
            ) from None
    return frozenset(tiers)


def new_id(prefix: str) -> str:
    """:returns: a random id with a readable prefix (``g_`` grants, ``c_`` clients); short
    enough to stay readable in the access log (ids are no secrets)."""
    return prefix + secrets.token_hex(6)


class AuthServer(msgspec.Struct, frozen=True):
    """The authorization server's shared state.

    :param allowed: the tiers ``SEVDESK_ALLOW`` enables: no grant gets more.
    :param identify: ``GET /SevClient`` with a token: which account is it?
    :param clock: seconds since the epoch (injected by tests).
    """

    site: Site
    sealer: Sealer
    store: GrantStore
    clients: ClientResolver
    allowed: frozenset[Tier]
    identify: Identify
    settings: OAuthSettings
    clock: Callable[[], float] = time.time

    @property
    def issuer(self) -> str:
        """:returns: the issuer: the public origin, exactly as in the metadata."""
        return self.site.public_url

    @property
    def resource(self) -> str:
        """:returns: the canonical URL of the MCP endpoint: every token's audience."""
        return self.site.mcp_url

    @property
    def metadata_url(self) -> str:
        """:returns: the protected resource metadata URL of ``/mcp`` (absolute)."""
        return f"{self.site.public_url}/.well-known/oauth-protected-resource/mcp"

    def now(self) -> int:
        """:returns: the current time in whole seconds."""
        return int(self.clock())

    def open_claims(
        self, purpose: Purpose, sealed: str, decoder: msgspec.msgpack.Decoder[ClaimsT]
    ) -> ClaimsT | None:
        """:returns: the claims sealed for ``purpose``, or ``None`` if they do not open or
        decode, or have expired."""
        try:
            claims = decoder.decode(self.sealer.open(purpose, sealed))
        except (InvalidTokenError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        return claims if claims.exp >= self.now() else None

    async def live_grant(self, grant_id: str, client_id: str) -> Grant:
        """:returns: the grant of a token, if it is live, ``client_id``'s, and the client's host
        is still allowed (``SEVDESK_HTTP_OAUTH_CLIENT_HOSTS``): the one rule of ``/mcp`` and
        of refreshes.

        :raises InvalidTokenError: if the grant is revoked, unknown or another client's.
        :raises OAuthError: ``invalid_grant`` naming the host, if the host is no longer allowed
            (a refresh then revokes the grant: it never comes back to life).
        :raises StateUnavailableError: if a shared grant store cannot be reached.
        """
        grant = await self.store.grant(grant_id)
        if grant is None or grant.client_id != client_id:
            raise InvalidTokenError("grant revoked or unknown")
        if not self.clients.host_allowed(grant.client_host):
            raise OAuthError("invalid_grant", HOST_REMOVED.format(host=grant.client_host))
        return grant

    def check_resource(self, resource: str | None) -> None:
        """RFC 8707: ``resource`` is optional; when sent it must name this server's ``/mcp``.

        :raises OAuthError: ``invalid_target`` for any other resource.
        """
        if resource is not None and _canonical(resource) != _canonical(self.resource):
            raise OAuthError(
                "invalid_target",
                f"This server issues tokens only for {self.resource}; send that as resource.",
            )

    def tokens(self, grant: Grant, sevdesk: str) -> dict[str, object]:
        """:returns: the token response for ``grant`` at its current generation."""
        now = self.now()
        access = AccessClaims(
            iss=self.issuer,
            aud=self.resource,
            grant=grant.id,
            account=grant.account,
            client=grant.client_id,
            tiers=grant.tiers,
            sevdesk=sevdesk,
            exp=now + ACCESS_TTL_S,
        )
        refresh = RefreshClaims(
            grant=grant.id,
            generation=grant.generation,
            client=grant.client_id,
            aud=self.resource,
            sevdesk=sevdesk,
            exp=grant.expires,
        )
        tiers = {Tier.parse(t) for t in grant.tiers}
        return {
            "access_token": self.sealer.seal("access", encode(access)),
            "token_type": "Bearer",
            "expires_in": ACCESS_TTL_S,
            "refresh_token": self.sealer.seal("refresh", encode(refresh)),
            "scope": scope_of(tiers),
        }


def _canonical(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}{sep}{host.lower()}{slash}{path}".rstrip("/")
