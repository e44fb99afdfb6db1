"""Single-use nonces of sealed request states in the shared state (several HTTP instances).

Keys (``<ns>`` is the namespace):

- ``<ns>:nonce:<sha256 of the nonce>``: ``1`` while the nonce is unused; expires after
  :data:`~sevdesk_mcp.safety.runtime.NONCE_TTL_S`. The nonce itself is never stored.

Issuing sets the key; consuming deletes it, and only the one ``DEL`` that removed it accepts the
nonce, so a nonce sent to two instances at the same moment is accepted once.
"""

from __future__ import annotations

import secrets
from typing import Final

from sevdesk_mcp.safety.runtime import NONCE_BYTES, NONCE_TTL_S
from sevdesk_mcp.shared.redis import SharedState, guard

KIND: Final = "nonce"


class RedisNonceStore:
    """The nonces of every instance (:class:`~sevdesk_mcp.safety.runtime.NonceStore`)."""

    def __init__(self, state: SharedState, *, ttl_s: float = NONCE_TTL_S) -> None:
        self._state = state
        self._ttl_ms = int(ttl_s * 1000)

    async def issue(self) -> str:
        """See :meth:`~sevdesk_mcp.safety.runtime.NonceStore.issue`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        nonce = secrets.token_urlsafe(NONCE_BYTES)
        async with guard():
            await self._state.client.set(self._key(nonce), b"1", px=self._ttl_ms)
        return nonce

    async def consume(self, nonce: object) -> bool:
        """See :meth:`~sevdesk_mcp.safety.runtime.NonceStore.consume`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        if not isinstance(nonce, str) or not nonce:
            return False
        async with guard():
            removed = await self._state.client.delete(self._key(nonce))
        return int(removed) == 1

    def _key(self, nonce: str) -> str:
        return self._state.keys.key(KIND, nonce)
