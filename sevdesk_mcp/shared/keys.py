"""Key names in Redis: a namespace, a kind, and the digest of an id."""

from __future__ import annotations

import base64
import hashlib
from typing import Final

import msgspec

DEFAULT_NAMESPACE: Final = "sevdesk-mcp"


def digest(ident: str) -> str:
    """:returns: the unpadded base64url SHA-256 of ``ident`` (43 characters)."""
    raw = hashlib.sha256(ident.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


class Keys(msgspec.Struct, frozen=True):
    """Names keys as ``<namespace>:<kind>:<digest of the id>``.

    :param namespace: the prefix of every key (several deployments may share one Redis).
    """

    namespace: str = DEFAULT_NAMESPACE

    def key(self, kind: str, ident: str) -> str:
        """:returns: the key of ``ident`` among the ``kind`` records."""
        return f"{self.namespace}:{kind}:{digest(ident)}"

    def plain(self, kind: str, name: str) -> str:
        """:returns: a key named in the clear (only for names that are not secret, such as a
        sevDesk account id or a client address)."""
        return f"{self.namespace}:{kind}:{name}"

    def channel(self, name: str) -> str:
        """:returns: the name of a pub/sub channel of this namespace."""
        return f"{self.namespace}:channel:{name}"
