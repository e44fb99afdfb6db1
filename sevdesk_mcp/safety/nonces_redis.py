"""Single-use nonces of sealed request states in the shared state (several HTTP instances).

Keys (``<ns>`` is the namespace):

- ``<ns>:nonce:<sha256 of the nonce>``: ``unused``, tagged for the key name
  (:meth:`~sevdesk_mcp.shared.seal.Seal.tag`), while the nonce is unused; expires after
  :data:`~sevdesk_mcp.safety.nonces.NONCE_TTL_S`. The nonce itself is never stored.

Issuing sets the key; consuming takes it with one ``GETDEL``, and only the one ``GETDEL`` that
removed a value whose tag holds accepts the nonce (the rule of
:mod:`~sevdesk_mcp.safety.nonce_table`, applied by :class:`~sevdesk_mcp.safety.nonces.Nonces`),
so a nonce sent to two instances at the same moment is accepted once. A value written by
someone who can write to Redis but lacks the server secret (a used nonce set again, a nonce
made up) fails the check, is removed by that same ``GETDEL`` and refused. What a tag cannot
stop is a copy of the very value read before the nonce was used and written back afterwards:
the tag is bound to the key name and value, not to a time; the request state that carries the
nonce is sealed and expires after the same time, and an approved write asks again once its
records changed.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.safety.nonce_table import Found
from sevdesk_mcp.safety.nonces import NONCE_TTL_S, Nonces
from sevdesk_mcp.shared.redis import SharedState, as_bytes, guard

KIND: Final = "nonce"
UNUSED: Final = b"unused"


class RedisNonces:
    """The nonces of every instance (:class:`~sevdesk_mcp.safety.nonces.NonceBackend`)."""

    def __init__(self, state: SharedState, *, ttl_s: float = NONCE_TTL_S) -> None:
        self._state = state
        self._ttl_ms = int(ttl_s * 1000)

    async def put(self, nonce: str) -> None:
        """See :meth:`~sevdesk_mcp.safety.nonces.NonceBackend.put`: ``unused``, tagged.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        key = self._key(nonce)
        async with guard():
            await self._state.client.set(key, self._state.seal.tag(key, UNUSED), px=self._ttl_ms)

    async def take(self, nonce: str) -> Found:
        """See :meth:`~sevdesk_mcp.safety.nonces.NonceBackend.take`: one ``GETDEL`` (an
        expired key is gone: ``absent``).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        key = self._key(nonce)
        async with guard():
            taken = await self._state.client.getdel(key)
        if taken is None:
            return "absent"
        return "unused" if self._state.seal.untag(key, as_bytes(taken)) == UNUSED else "forged"

    def _key(self, nonce: str) -> str:
        return self._state.keys.key(KIND, nonce)


class RedisNonceStore(Nonces):
    """The nonces of every instance (:class:`~sevdesk_mcp.safety.nonces.NonceStore`)."""

    def __init__(self, state: SharedState, *, ttl_s: float = NONCE_TTL_S) -> None:
        super().__init__(RedisNonces(state, ttl_s=ttl_s))
