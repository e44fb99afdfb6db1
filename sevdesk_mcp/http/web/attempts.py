"""Sign-in attempts per client address: at most :data:`SIGNIN_ATTEMPTS` in
:data:`SIGNIN_WINDOW_S`.

:class:`Attempts` is the seam: :class:`MemoryAttempts` counts in this process (the default),
``attempts_redis`` across the instances sharing the state, so a client cannot multiply its
tries by the number of instances.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Final, Protocol

SIGNIN_ATTEMPTS: Final = 5
SIGNIN_WINDOW_S: Final = 300.0
MAX_TRACKED: Final = 4096


class Attempts(Protocol):
    """Counts sign-in attempts per client address."""

    async def allow(self, client: str) -> bool:
        """:returns: whether ``client`` may try once more (the try is counted).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...


class MemoryAttempts:
    """The sign-in attempts seen by this process (the :data:`MAX_TRACKED` latest clients).

    :param clock: seconds (injectable for tests).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        limit: int = SIGNIN_ATTEMPTS,
        window_s: float = SIGNIN_WINDOW_S,
    ) -> None:
        self._clock = clock
        self._limit = limit
        self._window_s = window_s
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    async def allow(self, client: str) -> bool:
        """See :meth:`Attempts.allow`."""
        now = self._clock()
        with self._lock:
            times = self._seen.pop(client, deque())
            while times and times[0] <= now - self._window_s:
                times.popleft()
            allowed = len(times) < self._limit
            if allowed:
                times.append(now)
            self._seen[client] = times
            while len(self._seen) > MAX_TRACKED:
                self._seen.popitem(last=False)
            return allowed
