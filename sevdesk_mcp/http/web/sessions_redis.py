"""Sign-outs of browser sessions in the shared state: one instance's sign-out ends the session
on every instance.

Keys (``<ns>`` is the namespace):

- ``<ns>:web-signout:<sha256 of the session id>``: ``1``; expires when the session would have
  (at most :data:`~sevdesk_mcp.http.web.sessions.SESSION_TTL_S`, 12 hours).

The session itself travels sealed in its cookie (``sessions``); every instance opens it with
the key derived from the server secret (:func:`~sevdesk_mcp.shared.seal.derived_key`), so
nothing else of a session is stored.

The sign-out is not tagged (:meth:`~sevdesk_mcp.shared.seal.Seal.tag`): its existence is what
decides, and only in the safe direction. One written by someone who can write to Redis but
lacks the server secret ends a session (as deleting keys ends others' work anyway); one they
remove could not be kept by a tag either (a tag cannot prove that a value was never there).
Who a session is, its account and its expiry are in the sealed cookie, never in Redis.
"""

from __future__ import annotations

import math
from typing import Final

from sevdesk_mcp.shared.redis import SharedState, guard

KIND: Final = "web-signout"


class RedisSignOuts:
    """The sign-outs of every instance (:class:`~sevdesk_mcp.http.web.sessions.SignOuts`)."""

    def __init__(self, state: SharedState) -> None:
        self._state = state

    async def keep(self, session_id: str, ttl_s: float) -> None:
        """See :meth:`~sevdesk_mcp.http.web.sessions.SignOuts.keep` (a key expiring then).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ttl_ms = math.ceil(ttl_s * 1000)
        async with guard():
            await self._state.client.set(self._state.keys.key(KIND, session_id), b"1", px=ttl_ms)

    async def has(self, session_id: str) -> bool:
        """See :meth:`~sevdesk_mcp.http.web.sessions.SignOuts.has` (the key exists).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        async with guard():
            found = await self._state.client.exists(self._state.keys.key(KIND, session_id))
        return int(found) > 0
