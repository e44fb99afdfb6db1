"""Rate limits per client shared by every instance: token buckets in Redis.

The same buckets as :class:`~sevdesk_mcp.http.ratelimit.RateLimiter` (``rate_burst`` tokens,
refilled at ``rate_per_s``, one per request, whole seconds to wait when empty), kept in the
shared state so a client that spreads its requests over several instances behind a load
balancer gets one budget, not one per instance. A take is one Lua script: it reads Redis's own
clock (``TIME``, so the instances' clocks do not matter), refills, takes and sets the expiry,
atomically, by the rule of :mod:`~sevdesk_mcp.http.ratelimit_table`, which hands it the rate,
the burst and how long a bucket is kept (``tests/shared/test_ratelimit_table_rows.py`` holds
the script to the table).

Keys (``<namespace>:rate:<limiter>:<digest>``):

- ``rate:<limiter>:<SHA-256 of the client key>``: a hash ``{tokens, at}``, the tokens left
  and the Redis time of the last take in microseconds. ``<limiter>`` names the limiter
  (``clients`` for the router's per-address buckets; the OAuth endpoints use their own); the
  client key (an IPv4 address or an IPv6 /64, or an account) appears only as a digest. It
  expires once the bucket would be full again (``rate_burst / rate_per_s`` seconds and one
  more), so a missing key is a full bucket and there is no cap on tracked clients to keep.

When Redis cannot be reached, the buckets of this process take over (logged when the outage
starts and ends; ``/healthz`` answers 503 meanwhile, so the load balancer sends little here):
a limit that protects the server must not take down the reads that need no shared state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sevdesk_mcp.errors import StateUnavailableError
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.ratelimit import MemoryRateLimits
from sevdesk_mcp.http.ratelimit_table import script_args
from sevdesk_mcp.shared.lua import BUCKET_REFILL
from sevdesk_mcp.shared.redis import Outage, SharedState, guard

if TYPE_CHECKING:
    from sevdesk_mcp.shared.redis import Script

TAKE: Final = (
    BUCKET_REFILL
    + """local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.max(1, math.ceil((1 - tokens) / rate))
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens),
  'at', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return wait
"""
)


class RedisRateLimits:
    """:class:`~sevdesk_mcp.http.ratelimit.RateLimits` in the shared state.

    :param limiter: names this set of buckets in its keys (two limiters with other limits,
        such as the router's and the OAuth registration's, must not share buckets).
    """

    def __init__(self, state: SharedState, limits: Limits, limiter: str = "clients") -> None:
        self._state = state
        self._kind = f"rate:{limiter}"
        self._args = script_args(limits)
        self._take: Script = state.script(TAKE)
        self._local = MemoryRateLimits(limits)
        self._outage = Outage(f"rate limits ({limiter})")

    def key(self, key: str) -> str:
        """:returns: the Redis key of the bucket of the client key ``key``."""
        return self._state.keys.key(self._kind, key)

    async def retry_after_s(self, key: str) -> int | None:
        """Take a token for ``key`` from the bucket every instance shares.

        :returns: ``None`` if the request may proceed, otherwise whole seconds to wait (from
            this process's bucket while Redis cannot be reached).
        """
        try:
            async with guard():
                wait = await self._take(keys=[self.key(key)], args=list(self._args))
        except StateUnavailableError as exc:
            self._outage.started(exc)
            return await self._local.retry_after_s(key)
        self._outage.ended()
        return int(wait) or None
