"""Sealed and tagged values in Redis, under keys derived from the server secret.

A sealed value is ``version | nonce | ciphertext and tag`` (AES-256-GCM); the associated data is
the key name, so a value copied to another key does not open. A tagged value is a value that
is not secret but decides something (an approval's status, a pointer, a marker, a lock owner):
``value | "~" | MAC``, the MAC an HMAC-SHA256 of the key name and the value, so whoever can
write to Redis but lacks the server secret can neither forge one nor move one to another key.
Tags are deterministic, so a Lua script can compare a stored value with one the server tagged
(compare-and-set). The keys are derived with HKDF-SHA256 from ``SEVDESK_HTTP_SECRET`` (every
instance has it); while the secret is rotated, values sealed or tagged under the previous one
still open (:meth:`Seal.tags` gives a value's tag under each secret, for scripts).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, TypeVar

import msgspec

from sevdesk_mcp.errors import StateUnavailableError

if TYPE_CHECKING:  # imported when a key is derived: every HTTP start reads this module's
    # settings, and a single instance never needs the cipher (about 6 MiB of resident memory)
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

T = TypeVar("T")
log = logging.getLogger("sevdesk_mcp.shared")
VERSION: Final = b"\x01"
TAG_SEPARATOR: Final = b"~"
TAG_CHARS: Final = 43  # the unpadded base64url of the 256-bit HMAC
NONCE_BYTES: Final = 12
_SALT: Final = b"mcp-server-sevdesk shared state v1"
DAMAGED: Final = (
    "a value in the shared state does not open (another SEVDESK_HTTP_SECRET wrote it, or it "
    "was changed); give every instance the same secret"
)


def derived_key(secret: str, purpose: str, *, salt: bytes = _SALT) -> bytes:
    """:returns: the 256-bit key of ``purpose`` under the server secret (HKDF-SHA256), the same
    on every instance: ``state`` (values in Redis), ``cookie`` and ``signin`` (the web pages),
    ``request-state`` (sealed MRTR request states); the OAuth tokens' keys under their own
    ``salt`` (``http.oauth.seal``)."""
    from cryptography.hazmat.primitives import hashes  # noqa: PLC0415 - see the imports
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: PLC0415

    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=purpose.encode())
    return hkdf.derive(secret.encode("utf-8"))


class Seal:
    """Seals and opens values bound to their key name.

    :param secrets: the current server secret first, then the previous one (while rotating).
    """

    def __init__(self, secrets: Sequence[str]) -> None:
        if not secrets:
            raise ValueError("the shared state needs the server secret")
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: PLC0415

        self._aeads: tuple[AESGCM, ...] = tuple(AESGCM(derived_key(s, "state")) for s in secrets)
        self._macs: tuple[bytes, ...] = tuple(derived_key(s, "state-tag") for s in secrets)

    def seal(self, key: str, data: bytes) -> bytes:
        """:returns: ``data`` sealed for the key ``key``."""
        nonce = os.urandom(NONCE_BYTES)
        return VERSION + nonce + self._aeads[0].encrypt(nonce, data, key.encode("utf-8"))

    def open(self, key: str, sealed: bytes) -> bytes:
        """:returns: the data of a value read from ``key``.

        :raises StateUnavailableError: if it does not open under any configured secret.
        """
        if sealed[:1] != VERSION:
            raise StateUnavailableError(DAMAGED)
        from cryptography.exceptions import InvalidTag  # noqa: PLC0415 - loaded with the cipher

        nonce, body = sealed[1 : 1 + NONCE_BYTES], sealed[1 + NONCE_BYTES :]
        for aead in self._aeads:
            try:
                return aead.decrypt(nonce, body, key.encode("utf-8"))
            except InvalidTag:
                continue
        raise StateUnavailableError(DAMAGED)

    def open_json(self, key: str, sealed: bytes, kind: type[T]) -> T:
        """:returns: the JSON value of ``kind`` sealed in ``key``.

        :raises StateUnavailableError: if it does not open, or holds another shape (written by
            another version of the server).
        """
        try:
            return msgspec.json.decode(self.open(key, sealed), type=kind)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise StateUnavailableError(DAMAGED) from None

    def tag(self, key: str, value: bytes) -> bytes:
        """:returns: ``value`` tagged for the key ``key`` under the current secret."""
        return self.tags(key, value)[0]

    def tags(self, key: str, value: bytes) -> tuple[bytes, ...]:
        """:returns: ``value`` tagged for ``key`` under each configured secret, the current one
        first (what a script compares a stored value with while the secret is rotated)."""
        if TAG_SEPARATOR in value:
            raise ValueError("a tagged value may not contain the tag separator")
        return tuple(value + TAG_SEPARATOR + _mac(mac, key, value) for mac in self._macs)

    def untag(self, key: str, tagged: bytes | None) -> bytes | None:
        """:returns: the value of a tagged value read from ``key``, or ``None`` if there is
        none or it fails the check (forged, moved from another key, or written under another
        secret): a value that fails is logged once here and must be treated as absent."""
        if tagged is None:
            return None
        value, separator, mac = tagged.rpartition(TAG_SEPARATOR)
        if separator and any(hmac.compare_digest(mac, _mac(k, key, value)) for k in self._macs):
            return value
        log.warning("the shared state holds a value that fails its check at %s; ignored", key)
        return None


def _mac(mac_key: bytes, key: str, value: bytes) -> bytes:
    message = key.encode("utf-8") + b"\x00" + value
    raw = hmac.new(mac_key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=")
