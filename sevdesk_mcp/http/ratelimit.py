"""Token-bucket rate limits and caps on requests in flight, per client key.

- Each client key (an IPv4 address, or an IPv6 /64) has a bucket of ``rate_burst`` tokens that
  refills at ``rate_per_s``; a request takes one token. An empty bucket means 429 with the number
  of seconds until the next token in ``Retry-After``.
- At most ``max_inflight_per_client`` requests of one key and ``max_inflight`` overall run at
  once, so one client cannot use up the server for everyone (429 per client, 503 overall).
- At most ``max_tracked_clients`` buckets are kept; the least recently used is dropped first.

The buckets are behind the :class:`RateLimits` protocol (awaited): :class:`MemoryRateLimits` keeps
them in this process (the default); ``ratelimit_shared.RedisRateLimits`` keeps them in the shared
state, so a client is limited across every instance behind a load balancer.
:class:`RateLimiter` is the synchronous in-process bucket both the memory implementation and
older call sites use. The bucket's rule (full when new, refill, take or wait, when a bucket is
forgotten) is stated once, in :mod:`~sevdesk_mcp.http.ratelimit_table`; the Redis script is
handed its parameters from there.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, Protocol

import msgspec

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http import ratelimit_table as table
from sevdesk_mcp.http.limits import Limits

RETRY_SOON: Final = (("retry-after", "1"),)


class _Bucket(msgspec.Struct):
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets per client key.

    :param clock: monotonic seconds; injectable for tests.
    """

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = limits.rate_per_s
        self._burst = float(limits.rate_burst)
        self._max_keys = limits.max_tracked_clients
        self._clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def retry_after_s(self, key: str) -> int | None:
        """Take a token for ``key``.

        :returns: ``None`` if the request may proceed, otherwise whole seconds to wait.
        """
        now = self._clock()
        bucket = self._bucket(key, now)
        refilled = table.refill(bucket.tokens, now - bucket.updated, self._rate, self._burst)
        bucket.tokens, wait = table.take(refilled, self._rate)
        bucket.updated = max(now, bucket.updated)
        return wait

    def _bucket(self, key: str, now: float) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(tokens=self._burst, updated=now)
            while len(self._buckets) > self._max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket


class RateLimits(Protocol):
    """Token buckets per client key, in this process or shared by every instance."""

    async def retry_after_s(self, key: str) -> int | None:
        """Take a token for ``key``.

        :returns: ``None`` if the request may proceed, otherwise whole seconds to wait.
        :raises StateUnavailableError: if the buckets are shared and the state cannot be reached.
        """
        ...


class MemoryRateLimits:
    """:class:`RateLimits` in this process (one instance, or stdio): a :class:`RateLimiter`.

    :param clock: monotonic seconds; injectable for tests.
    """

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self._limiter = RateLimiter(limits, clock)

    async def retry_after_s(self, key: str) -> int | None:
        """Take a token for ``key`` (see :meth:`RateLimiter.retry_after_s`).

        :returns: ``None`` if the request may proceed, otherwise whole seconds to wait.
        """
        return self._limiter.retry_after_s(key)


class InflightLimiter:
    """Counts requests in flight per client key and overall, and the open streams apart.

    :ivar total: the number of requests in flight.
    :ivar streams: the number of long-lived streams open (a session's ``GET``).
    """

    def __init__(self, limits: Limits) -> None:
        self._per_client = limits.max_inflight_per_client
        self._total = limits.max_inflight
        self._max_streams = limits.max_streams
        self._counts: dict[str, int] = {}
        self.total = 0
        self.streams = 0

    def slot(self, key: str, *, stream: bool = False) -> InflightSlot | StreamSlot:
        """:returns: a slot for one request of ``key``, held while its ``with`` block runs: among
        the requests in flight, or for a ``stream`` among the open streams.

        Entering it raises :class:`HttpError`: 429 if the client has too many requests running,
        503 if the server has (or has as many streams open as it keeps).
        """
        return StreamSlot(self) if stream else InflightSlot(self, key)

    def open_stream(self) -> None:
        """Count one more open stream.

        :raises HttpError: 503 if as many streams are open as the server keeps.
        """
        if self.streams >= self._max_streams:
            raise HttpError(
                503, "Too many event streams are open; retry shortly.", headers=RETRY_SOON
            )
        self.streams += 1

    def close_stream(self) -> None:
        """Count one open stream less."""
        self.streams -= 1

    def take(self, key: str) -> None:
        """Count one more request of ``key`` in flight.

        :raises HttpError: 429 if the client has too many requests running, 503 if the server has.
        """
        count = self._counts.get(key, 0)
        if count >= self._per_client:
            raise HttpError(
                429, "Too many requests of this client are running.", headers=RETRY_SOON
            )
        if self.total >= self._total:
            raise HttpError(503, "The server is busy; retry shortly.", headers=RETRY_SOON)
        self._counts[key] = count + 1
        self.total += 1

    def give_back(self, key: str) -> None:
        """Count one request of ``key`` less in flight."""
        self.total -= 1
        self._counts[key] -= 1
        if not self._counts[key]:
            del self._counts[key]


class InflightSlot:
    """One request's place among those in flight (a class, not a generator: it is entered on
    every request)."""

    __slots__ = ("_key", "_limiter")

    def __init__(self, limiter: InflightLimiter, key: str) -> None:
        self._limiter = limiter
        self._key = key

    def __enter__(self) -> None:
        """:raises HttpError: 429 or 503 (see :meth:`InflightLimiter.take`)."""
        self._limiter.take(self._key)

    def __exit__(self, *exc_info: object) -> None:
        self._limiter.give_back(self._key)


class StreamSlot:
    """One long-lived stream's place among the open streams."""

    __slots__ = ("_limiter",)

    def __init__(self, limiter: InflightLimiter) -> None:
        self._limiter = limiter

    def __enter__(self) -> None:
        """:raises HttpError: 503 (see :meth:`InflightLimiter.open_stream`)."""
        self._limiter.open_stream()

    def __exit__(self, *_: object) -> None:
        self._limiter.close_stream()
