"""Client-side pacing: a token bucket (about 4 requests per second) and an in-flight cap.

sevDesk publishes no rate limit but may block tokens that send many erroneous requests; pacing
keeps this server polite. One :class:`Pacer` is shared by every client of an account.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import anyio

DEFAULT_RATE_PER_S: Final = 4.0
DEFAULT_BURST: Final = 4
DEFAULT_MAX_IN_FLIGHT: Final = 4


class Pacer:
    """Admits requests at ``rate_per_s`` (bursts up to ``burst``), ``max_in_flight`` at a time."""

    def __init__(
        self,
        rate_per_s: float = DEFAULT_RATE_PER_S,
        burst: int = DEFAULT_BURST,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
    ) -> None:
        self._rate = rate_per_s
        self._burst = float(burst)
        self._tokens = float(burst)
        self._stamp: float | None = None
        self._lock = anyio.Lock()
        self._in_flight = anyio.Semaphore(max_in_flight)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for a token and an in-flight slot; hold the slot for the block."""
        async with self._in_flight:
            await self._take()
            yield

    async def _take(self) -> None:
        async with self._lock:
            now = anyio.current_time()
            if self._stamp is not None:
                self._tokens = min(self._burst, self._tokens + (now - self._stamp) * self._rate)
            self._stamp = now
            if self._tokens < 1:
                await anyio.sleep((1 - self._tokens) / self._rate)
                self._tokens, self._stamp = 1.0, anyio.current_time()
            self._tokens -= 1
