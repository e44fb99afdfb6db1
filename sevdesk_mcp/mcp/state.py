"""Sealed ``requestState`` for multi-round-trip requests (MRTR).

A handler that needs input returns state it wants back; the client must echo it unchanged on the
retry, so the state is attacker-controlled. It is sealed with AES-256-GCM under a random 32-byte
key drawn per codec (one codec per server factory, which means per process):

- token: ``"v1." + base64url(nonce[12] + ciphertext)``;
- plaintext: ``{"exp": <unix seconds>, "s": <handler state>}``; the default lifetime is 10 minutes;
- associated data: ``"v1."`` + SHA-256 over the method, the target (tool, prompt or resource),
  the principal and a digest of the canonical arguments, so state issued for one request,
  account or argument set cannot be replayed against another.

Every failure (malformed, forged, expired, bound elsewhere) raises the same
:class:`~sevdesk_mcp.errors.InvalidRequestStateError`: the reason is not disclosed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import msgspec

from sevdesk_mcp.errors import InvalidRequestStateError
from sevdesk_mcp.mcp.types import JsonObject, JsonValue
from sevdesk_mcp.safety.redact import REDACTOR

if TYPE_CHECKING:  # imported when the first token is sealed or opened: it costs start-up time
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PREFIX: Final = "v1."
DEFAULT_TTL_S: Final = 600
MAX_TOKEN_CHARS: Final = 16 * 1024
_NONCE_BYTES: Final = 12


class _Sealed(msgspec.Struct, frozen=True):
    exp: int
    s: msgspec.Raw


class Binding(msgspec.Struct, frozen=True):
    """What a sealed state is bound to."""

    method: str
    target: str
    principal: str
    arguments_digest: str

    def aad(self) -> bytes:
        """:returns: the associated data for AES-GCM."""
        parts = [self.method, self.target, self.principal, self.arguments_digest]
        return PREFIX.encode() + hashlib.sha256(msgspec.json.encode(parts)).digest()


def canonical_digest(arguments: JsonObject) -> str:
    """:returns: the SHA-256 (hex) of the arguments as JSON with sorted keys."""
    return hashlib.sha256(msgspec.json.encode(arguments, order="sorted")).hexdigest()


class RequestStateCodec:
    """Seals and opens ``requestState`` tokens.

    :param key: 32 bytes; random when omitted.
    :param ttl_s: lifetime of a token in seconds.
    :param clock: seconds since the epoch; injectable for tests.
    :raises ValueError: for a key that is not 16, 24 or 32 bytes long.
    """

    def __init__(
        self,
        key: bytes | None = None,
        *,
        ttl_s: int = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._key = key if key is not None else os.urandom(32)
        if len(self._key) not in (16, 24, 32):  # checked now, as AESGCM itself would
            raise ValueError("AESGCM key must be 128, 192, or 256 bits.")
        REDACTOR.add_key(self._key)
        self._aead: AESGCM | None = None  # built on first use
        self._ttl_s = ttl_s
        self._clock = clock

    def _cipher(self) -> AESGCM:
        if self._aead is None:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: PLC0415

            self._aead = AESGCM(self._key)
        return self._aead

    def seal(self, state: JsonValue, binding: Binding) -> str:
        """:returns: a token carrying ``state`` for the request described by ``binding``."""
        plain = msgspec.json.encode({"exp": int(self._clock()) + self._ttl_s, "s": state})
        nonce = os.urandom(_NONCE_BYTES)
        sealed = nonce + self._cipher().encrypt(nonce, plain, binding.aad())
        return PREFIX + base64.urlsafe_b64encode(sealed).rstrip(b"=").decode("ascii")

    def open(self, token: object, binding: Binding) -> JsonValue:
        """Verify a token and return the state it carries.

        :raises InvalidRequestStateError: if the token is malformed, forged, expired or bound
            to another method, target, principal or argument set.
        """
        if not isinstance(token, str) or not token.startswith(PREFIX):
            raise InvalidRequestStateError
        if len(token) > MAX_TOKEN_CHARS:
            raise InvalidRequestStateError
        from cryptography.exceptions import InvalidTag  # noqa: PLC0415 - loaded with the cipher

        body = token[len(PREFIX) :]
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            plain = self._cipher().decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], binding.aad())
            sealed = msgspec.json.decode(plain, type=_Sealed)
        except (binascii.Error, ValueError, InvalidTag, msgspec.DecodeError) as exc:
            raise InvalidRequestStateError from exc
        if sealed.exp < self._clock():
            raise InvalidRequestStateError
        result: JsonValue = msgspec.json.decode(sealed.s)
        return result
