"""Client-side pacing: a token bucket and an in-flight cap, the only gate to sevDesk.

sevDesk publishes no rate limit; its FAQ calls the limit "a safety net for malicious requests",
and many *erroneous* requests may get a token blocked. Published measurements saw no 429 at 11
to 18.5 sequential requests per second nor in bursts of 133 (``docs/sevdesk-api.md`` §1, rate
limit row). The defaults keep well below that: 10 requests per second sustained, a burst of 25
(:func:`pacer_for` derives it from the rate: two and a half seconds' worth, at most 50), at most
12 in flight. A month-end overview of about 22 requests never waits for a token (asked again
at once, it waits for the bucket to refill). Twelve is the smallest cap past which no report
on a large account (eleven pages of invoices beside its other lists) gets faster
(``docs/adr/0014-twelve-in-flight.md``).

One :class:`Pacer` is shared by every client of an account and every view of a client, so the
tools of one account, and concurrent calls of one tool, share one budget. Its token bucket is
in this process by default; with several HTTP instances, ``pacing_shared.SharedPacer`` keeps it
in the shared state, so the instances together stay within the account's rate (the in-flight
cap stays per process).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Final, Protocol

import anyio

DEFAULT_RATE_PER_S: Final = 10.0
DEFAULT_BURST: Final = 25
BURST_SECONDS: Final = 2.5
MAX_BURST: Final = 50
DEFAULT_MAX_IN_FLIGHT: Final = 12

ADMITTED: ContextVar[Callable[[], None] | None] = ContextVar("sevdesk_admitted", default=None)
"""Told when the pacer admits the current task's request (``together.in_order`` waits for it
before it starts the next read, so concurrent pages go out in offset order)."""


class TokenBucket(Protocol):
    """Where a pacer's tokens come from: this process, or the shared state."""

    async def take(self) -> None:
        """Wait until a token is taken.

        :raises StateUnavailableError: if the bucket is shared and cannot be reached.
        """
        ...


class LocalBucket:
    """A token bucket in this process; waiting takers are served in order (a fair lock)."""

    def __init__(self, rate_per_s: float, burst: int) -> None:
        self._rate = rate_per_s
        self._burst = float(burst)
        self._tokens = float(burst)
        self._stamp: float | None = None
        self._lock = anyio.Lock()

    async def take(self) -> None:
        """Wait until a token is taken."""
        async with self._lock:
            now = anyio.current_time()
            if self._stamp is not None:
                self._tokens = min(self._burst, self._tokens + (now - self._stamp) * self._rate)
            self._stamp = now
            if self._tokens < 1:
                await anyio.sleep((1 - self._tokens) / self._rate)
                self._tokens, self._stamp = 1.0, anyio.current_time()
            self._tokens -= 1


class Pacer:
    """Admits requests at ``rate_per_s`` (bursts up to ``burst``), ``max_in_flight`` at a time.

    Waiting requests are admitted in the order they asked (anyio's semaphore and lock are fair).

    :param bucket: where the tokens come from; a bucket of this process by default.
    """

    def __init__(
        self,
        rate_per_s: float = DEFAULT_RATE_PER_S,
        burst: int = DEFAULT_BURST,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        *,
        bucket: TokenBucket | None = None,
    ) -> None:
        self._rate = rate_per_s
        self._burst = float(burst)
        self._bucket = bucket or LocalBucket(rate_per_s, burst)
        self._in_flight = anyio.Semaphore(max_in_flight)
        self.max_in_flight = max_in_flight

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for a token and an in-flight slot; hold the slot for the block.

        A shared bucket paces this process alone, slowly, while Redis cannot be reached
        (``pacing_shared``): no request is ever sent unpaced.
        """
        async with self._in_flight:
            await self._bucket.take()
            admitted = ADMITTED.get()
            if admitted is not None:
                admitted()
            yield


def burst_for(rate_per_s: float) -> int:
    """:returns: the burst of a pacer at ``rate_per_s``: :data:`BURST_SECONDS` worth of
    requests, at least 1 and at most :data:`MAX_BURST`."""
    return max(1, min(int(rate_per_s * BURST_SECONDS), MAX_BURST))


def pacer_for(rate_per_s: float) -> Pacer:
    """:returns: a pacer in this process for one account at ``rate_per_s``
    (``SEVDESK_RATE_PER_S``), with the burst of :func:`burst_for`; several instances use
    ``pacing_shared.shared_pacer_for`` instead."""
    return Pacer(rate_per_s=rate_per_s, burst=burst_for(rate_per_s))
