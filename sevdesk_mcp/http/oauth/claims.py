"""What the sealed tokens carry. Encoded as MessagePack arrays: small, and fast to open.

The sevDesk API token travels only inside these sealed payloads (access and refresh tokens,
codes); the grant store never holds it.
"""

from __future__ import annotations

import msgspec


class AccessClaims(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """An access token: issuer, audience, grant, account, client, tiers and expiry."""

    iss: str
    aud: str
    grant: str
    account: str
    client: str
    tiers: tuple[str, ...]
    sevdesk: str
    exp: int


class RefreshClaims(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """A refresh token: its grant (the family) and generation, and the sevDesk token."""

    grant: str
    generation: int
    client: str
    aud: str
    sevdesk: str
    exp: int


class CodeClaims(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """An authorization code (60 s, single use: its ``code_id`` is claimed in the store)."""

    code_id: str
    client: str
    redirect_uri: str
    challenge: str
    aud: str
    tiers: tuple[str, ...]
    account: str
    account_name: str
    sevdesk: str
    exp: int


class AuthRequest(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """A checked authorization request, sealed into the consent form.

    :param nonce: the consent cookie's value it is bound to (CSRF, O09).
    """

    client: str
    client_name: str
    client_host: str | None
    redirect_uri: str
    state: str | None
    challenge: str
    aud: str
    tiers: tuple[str, ...]
    nonce: str
    exp: int


def encode(claims: msgspec.Struct) -> bytes:
    """:returns: ``claims`` as MessagePack."""
    return msgspec.msgpack.encode(claims)
