"""Who a person is, for the inbox and the file pages: the holder of one sevDesk API token.

sevDesk issues one API token per user, so two colleagues of one company hold two tokens. A
person is named by a keyed fingerprint of their token: HMAC-SHA256 under a key derived from
the server secret (:func:`~sevdesk_mcp.shared.seal.derived_key`, purpose ``person``), never the
token itself and never an unkeyed hash (which anyone holding a guessed token could compare).
Every instance sharing the secret computes the same fingerprint.

The tool call's side computes it from the token inside the grant's access token, the browser
session's side at sign-in (or consent) from the token it checked; approvals and upload slots
carry the first, the sealed session cookie the second, and the pages compare them.
"""

from __future__ import annotations

import hashlib
import hmac

from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.shared.seal import derived_key

PURPOSE = "person"


class Persons:
    """Fingerprints sevDesk tokens (the key is kept out of every repr).

    :param key: the 256-bit key (:func:`persons_of` derives it from the server secret).
    """

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        self._key = key

    def __repr__(self) -> str:
        return "Persons(<key>)"

    def of(self, token: Secret) -> str:
        """:returns: the person holding ``token``: 64 hex digits of its keyed HMAC."""
        return hmac.new(self._key, token.reveal().encode("utf-8"), hashlib.sha256).hexdigest()


def persons_of(secret: Secret) -> Persons:
    """:returns: the fingerprints under the server secret ``secret`` (the current one)."""
    return Persons(derived_key(secret.reveal(), PURPOSE))
