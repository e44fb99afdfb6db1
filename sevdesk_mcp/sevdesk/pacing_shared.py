"""The pacer of one sevDesk account shared by every instance: a token bucket in Redis.

With several HTTP instances behind a load balancer, each has its own
:class:`~sevdesk_mcp.sevdesk.pacing.Pacer`; ten of them at ``SEVDESK_RATE_PER_S`` each would
send ten times the account's budget. :class:`SharedPacer` takes its tokens from one bucket per
account in the shared state instead, so the instances together stay within the rate. The
in-flight cap stays per process (each instance sends at most ``max_in_flight`` at once).

A take is one Lua script that reads Redis's own clock (``TIME``: the instances' clocks do not
matter), refills the bucket and *reserves* the next token, possibly ahead of time: it answers
how long to wait for it, and the caller sleeps that long, then sends. Takers are served in the
order their scripts ran, across every instance, and one round trip suffices per request. A wait
longer than :data:`HORIZON_S` is not reserved: the caller sleeps until the horizon would be
reached and asks again (the bucket's debt stays bounded even when many instances queue). A
reserved token whose caller is cancelled is lost, which only errs on the slow side.

When Redis cannot be reached, requests are paced by a bucket of this process at
:data:`OUTAGE_RATE_PER_S` (logged when the outage starts and ends): never unpaced, and ten
instances together still within the default budget of 10 per second, while reads that need no
other shared state keep working.

Keys:

- ``pacer:<SHA-256 of the account>``: a hash ``{tokens, at}``, the tokens left (negative
  while tokens are reserved ahead) and the Redis time of the last take in microseconds. It
  expires once the bucket would be full again, so a missing key is a full bucket.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import anyio

from sevdesk_mcp.errors import StateUnavailableError
from sevdesk_mcp.sevdesk.pacing import DEFAULT_MAX_IN_FLIGHT, LocalBucket, Pacer, burst_for
from sevdesk_mcp.shared.lua import BUCKET_REFILL
from sevdesk_mcp.shared.redis import Outage, SharedState, guard

if TYPE_CHECKING:
    from sevdesk_mcp.shared.redis import Script

HORIZON_S: Final = 5.0
"""The longest wait a take reserves a token for."""
OUTAGE_RATE_PER_S: Final = 1.0
"""The rate of each instance's own bucket while Redis cannot be reached."""

RESERVE: Final = (
    BUCKET_REFILL
    + """local wait = 0
if tokens < 1 then wait = math.ceil((1 - tokens) / rate * 1000000) end
if wait > tonumber(ARGV[3]) then return -wait end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens),
  'at', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return wait
"""
)


class RedisBucket:
    """A :class:`~sevdesk_mcp.sevdesk.pacing.TokenBucket` in the shared state.

    :param account: the sevDesk account the bucket paces (appears in the key only as a digest).
    """

    def __init__(self, state: SharedState, account: str, rate_per_s: float, burst: int) -> None:
        self.key = state.keys.key("pacer", account)
        self._args = [repr(float(rate_per_s)), str(burst), str(int(HORIZON_S * 1_000_000))]
        self._reserve: Script = state.script(RESERVE)
        self._local = LocalBucket(min(rate_per_s, OUTAGE_RATE_PER_S), 1)
        self._outage = Outage("sevDesk pacing")

    async def take(self) -> None:
        """Reserve a token of the shared bucket and wait until its time (this process's slow
        bucket's while Redis cannot be reached)."""
        while True:
            try:
                wait_s = await self.reserve()
            except StateUnavailableError as exc:
                self._outage.started(exc)
                await self._local.take()
                return
            self._outage.ended()
            if wait_s >= 0:
                await anyio.sleep(wait_s)
                return
            await anyio.sleep(max(-wait_s - HORIZON_S, 0.01))

    async def reserve(self) -> float:
        """Reserve the bucket's next token, unless its time is more than :data:`HORIZON_S` away.

        :returns: the seconds until the reserved token's time; if none was reserved, minus the
            seconds until the next token's time.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        async with guard():
            wait_us = int(await self._reserve(keys=[self.key], args=self._args))
        return wait_us / 1_000_000


class SharedPacer(Pacer):
    """A :class:`~sevdesk_mcp.sevdesk.pacing.Pacer` whose tokens come from the account's
    bucket in the shared state; the in-flight cap is this process's.

    :param account: the sevDesk account (every instance must name it alike).
    """

    def __init__(
        self,
        state: SharedState,
        account: str,
        rate_per_s: float,
        burst: int,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
    ) -> None:
        self.bucket = RedisBucket(state, account, rate_per_s, burst)
        super().__init__(rate_per_s, burst, max_in_flight, bucket=self.bucket)


def shared_pacer_for(state: SharedState, account: str, rate_per_s: float) -> SharedPacer:
    """:returns: the shared pacer of ``account`` at ``rate_per_s`` (``SEVDESK_RATE_PER_S``)
    with the burst of :func:`~sevdesk_mcp.sevdesk.pacing.burst_for`."""
    return SharedPacer(state, account, rate_per_s, burst_for(rate_per_s))
