"""Bearer mode: one shared secret, or two while rotating, compared as HMACs in constant time.

The presented token and every configured secret are each reduced to an HMAC-SHA256 under a key
drawn per process, and the digests are compared with :func:`hmac.compare_digest`. Comparing
fixed-length digests means neither the length nor a common prefix of a secret shows in the
timing; every configured secret is compared on every request, whichever one matches.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence
from typing import Final

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.safety.redact import Secret

CHALLENGE: Final = 'Bearer realm="mcp-server-sevdesk"'
INVALID_TOKEN_CHALLENGE: Final = f'{CHALLENGE}, error="invalid_token"'
MAX_TOKEN_CHARS: Final = 1024


class BearerAuth:
    """Checks ``Authorization: Bearer <secret>`` against the configured secrets.

    :param secrets: the current secret first, then the previous one while rotating.
    """

    def __init__(self, secrets: Sequence[Secret]) -> None:
        if not secrets:
            raise ValueError("bearer mode needs at least one secret")
        self._key = os.urandom(32)
        self._digests = tuple(self._digest(s.reveal()) for s in secrets)

    def _digest(self, value: str) -> bytes:
        return hmac.new(self._key, value.encode("utf-8"), hashlib.sha256).digest()

    def check(self, headers: Headers) -> None:
        """:raises HttpError: 401 if the request carries no valid secret."""
        values = headers.get_all("authorization")
        scheme, _, token = (values[0] if len(values) == 1 else "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_CHARS:
            raise _unauthorized(CHALLENGE, "Send Authorization: Bearer <secret>.")
        presented = self._digest(token)
        matches = [hmac.compare_digest(presented, digest) for digest in self._digests]
        if not any(matches):
            raise _unauthorized(INVALID_TOKEN_CHALLENGE, "The bearer secret is not valid.")


def _unauthorized(challenge: str, message: str) -> HttpError:
    return HttpError(401, message, headers=(("www-authenticate", challenge),))
