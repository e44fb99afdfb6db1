"""Sign-in attempts per client address in the shared state, counted across every instance.

Keys (``<ns>`` is the namespace):

- ``<ns>:signin:<sha256 of the client address>``: a sorted set of the client's attempts in the
  last :data:`~sevdesk_mcp.http.web.attempts.SIGNIN_WINDOW_S` (score the time in
  milliseconds); expires with the window.

Counting and checking an attempt is one Lua script on the server's clock, so two instances
cannot both admit the sixth try. The script is handed the limit and the window, and applies
the rule of :mod:`~sevdesk_mcp.http.web.attempt_table` (a try counts while younger than the
window; one more while fewer than the limit count; a refused try is not counted);
``tests/shared/test_attempt_table_rows.py`` holds it to the table.

The set is not tagged (:meth:`~sevdesk_mcp.shared.seal.Seal.tag`): it only throttles. Whoever
can write to Redis can empty it (more tries for a client) or fill it (a client locked out for
the window) by deleting or adding keys, tag or not; a sign-in itself is decided by sevDesk's
answer to the token, never by this set.
"""

from __future__ import annotations

import secrets
from typing import Final

from sevdesk_mcp.http.web.attempts import SIGNIN_ATTEMPTS, SIGNIN_WINDOW_S, SignInAttempts
from sevdesk_mcp.shared.redis import SharedState, guard

KIND: Final = "signin"
# KEYS: the client's set. ARGV: window ms, limit, a unique member.
_ALLOW: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 1
"""


class RedisTries:
    """The tries of every instance (:class:`~sevdesk_mcp.http.web.attempts.AttemptBackend`)."""

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._allow = state.script(_ALLOW)

    async def count(self, client: str, limit: int, window_s: float) -> bool:
        """See :meth:`~sevdesk_mcp.http.web.attempts.AttemptBackend.count`: one script.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        key = self._state.keys.key(KIND, client)
        args: list[str | int] = [int(window_s * 1000), limit, secrets.token_hex(8)]
        async with guard():
            allowed = await self._allow(keys=[key], args=args)
        return int(allowed) == 1


class RedisAttempts(SignInAttempts):
    """The sign-in attempts of every instance (:class:`~sevdesk_mcp.http.web.attempts.Attempts`).

    :param state: the shared state.
    """

    def __init__(
        self,
        state: SharedState,
        *,
        limit: int = SIGNIN_ATTEMPTS,
        window_s: float = SIGNIN_WINDOW_S,
    ) -> None:
        super().__init__(RedisTries(state), limit=limit, window_s=window_s)
