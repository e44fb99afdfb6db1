"""The safety runtime: confirmation nonces and the audit log, one per server factory.

Every server instance the factory builds (one per request over HTTP) shares it, so a nonce issued
in one request can be consumed in the next, exactly once.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final

from sevdesk_mcp.safety.audit import AuditLog

NONCE_TTL_S: Final = 600.0
MAX_NONCES: Final = 10_000


class NonceStore:
    """Single-use nonces with a lifetime; the oldest are dropped beyond :data:`MAX_NONCES`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._expiry: OrderedDict[str, float] = OrderedDict()

    def issue(self) -> str:
        """:returns: a new nonce, valid for 10 minutes."""
        nonce = secrets.token_urlsafe(16)
        self._expiry[nonce] = self._clock() + NONCE_TTL_S
        while len(self._expiry) > MAX_NONCES:
            self._expiry.popitem(last=False)
        return nonce

    def consume(self, nonce: object) -> bool:
        """:returns: whether ``nonce`` was issued, unexpired and unused; it is used up now."""
        if not isinstance(nonce, str):
            return False
        expiry = self._expiry.pop(nonce, None)
        return expiry is not None and expiry >= self._clock()


class SafetyRuntime:
    """What every write shares: nonces and the audit log."""

    def __init__(self, audit: AuditLog, nonces: NonceStore | None = None) -> None:
        self.audit = audit
        self.nonces = nonces or NonceStore()
