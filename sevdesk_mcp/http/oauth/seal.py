"""Sealed tokens: AES-256-GCM with a key per purpose, derived with HKDF from the server secret.

Rules:

1. A token is ``base64url(version | key id | nonce | ciphertext and tag)``; the version byte,
   the key id and the purpose are the associated data, so a token sealed for one purpose
   (an access token) never opens as another (a refresh token or a code).
2. Keys are derived once, at start-up, from ``SEVDESK_HTTP_SECRET`` (and from
   ``SEVDESK_HTTP_SECRET_PREVIOUS`` while rotating): new tokens are sealed with the current
   key, tokens sealed with the previous one still open.
3. Every failure is the same :class:`~sevdesk_mcp.errors.InvalidTokenError` (Fernet's rule):
   bad encoding, unknown key id, wrong purpose, a flipped bit, truncation.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
from collections.abc import Sequence
from typing import Final, Literal

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from sevdesk_mcp.errors import InvalidTokenError
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.shared.seal import derived_key

Purpose = Literal["access", "refresh", "code", "authreq", "csrf"]
PURPOSES: Final[tuple[Purpose, ...]] = ("access", "refresh", "code", "authreq", "csrf")
VERSION: Final = b"\x01"
KEY_ID_BYTES: Final = 4
NONCE_BYTES: Final = 12
TAG_BYTES: Final = 16
HEADER_BYTES: Final = 1 + KEY_ID_BYTES + NONCE_BYTES
MAX_TOKEN_CHARS: Final = 4096
_SALT: Final = b"mcp-server-sevdesk oauth v1"
_BASE64URL: Final = re.compile(r"[A-Za-z0-9_-]+")


class _Key:
    __slots__ = ("aead", "key_id", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.aead = AESGCM(raw)
        self.key_id = hashlib.sha256(b"key id" + raw).digest()[:KEY_ID_BYTES]


class Sealer:
    """Seals and opens tokens of every purpose.

    :param secrets: the current secret first, then the previous one while rotating.
    :raises ValueError: if no secret is given.
    """

    def __init__(self, secrets: Sequence[Secret]) -> None:
        if not secrets:
            raise ValueError("sealing needs at least one secret")
        self._keys = {
            purpose: [_Key(derived_key(s.reveal(), purpose, salt=_SALT)) for s in secrets]
            for purpose in PURPOSES
        }
        self._by_id = {
            purpose: {key.key_id: key for key in reversed(keys)}
            for purpose, keys in self._keys.items()
        }

    def seal(self, purpose: Purpose, payload: bytes) -> str:
        """:returns: ``payload`` sealed for ``purpose`` with the current key."""
        key = self._keys[purpose][0]
        head = VERSION + key.key_id + os.urandom(NONCE_BYTES)
        sealed = key.aead.encrypt(head[-NONCE_BYTES:], payload, head[:5] + purpose.encode())
        return base64.urlsafe_b64encode(head + sealed).rstrip(b"=").decode("ascii")

    def open(self, purpose: Purpose, token: str) -> bytes:
        """:returns: the payload of a token sealed for ``purpose``.

        :raises InvalidTokenError: for every failure, whatever its cause.
        """
        raw = _decode(token)
        key = self._by_id[purpose].get(raw[1 : HEADER_BYTES - NONCE_BYTES])
        if key is None or raw[:1] != VERSION:
            raise InvalidTokenError
        nonce = raw[HEADER_BYTES - NONCE_BYTES : HEADER_BYTES]
        try:
            return key.aead.decrypt(nonce, raw[HEADER_BYTES:], raw[:5] + purpose.encode())
        except InvalidTag:
            raise InvalidTokenError from None

    def mac(self, value: bytes) -> bytes:
        """:returns: the HMAC-SHA256 of ``value`` under the current CSRF key."""
        return hmac.new(self._keys["csrf"][0].raw, value, hashlib.sha256).digest()


def _decode(token: str) -> bytes:
    if len(token) > MAX_TOKEN_CHARS or not _BASE64URL.fullmatch(token):
        raise InvalidTokenError
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise InvalidTokenError from None
    if len(raw) < HEADER_BYTES + TAG_BYTES:
        raise InvalidTokenError
    return raw
