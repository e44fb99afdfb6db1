"""Sign-in attempts per client address: at most :data:`SIGNIN_ATTEMPTS` in
:data:`SIGNIN_WINDOW_S`.

:class:`Attempts` is the seam, and :class:`SignInAttempts` its one implementation, over an
:class:`AttemptBackend` that counts a try in one atomic step by the rule of
:mod:`~sevdesk_mcp.http.web.attempt_table`: :class:`MemoryTries` in this process
(:class:`MemoryAttempts`, the default), ``attempts_redis`` across the instances sharing the
state, so a client cannot multiply its tries by the number of instances.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Final, Protocol

from sevdesk_mcp.http.web.attempt_table import allows, within

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


class AttemptBackend(Protocol):
    """Where the tries of the clients are counted."""

    async def count(self, client: str, limit: int, window_s: float) -> bool:
        """Count a try of ``client`` in one atomic step if the table allows it (the tries
        within ``window_s`` :func:`~sevdesk_mcp.http.web.attempt_table.allows` one more under
        ``limit``).

        :returns: whether the try was allowed and counted.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...


class SignInAttempts:
    """The one :class:`Attempts`: :data:`SIGNIN_ATTEMPTS` tries per :data:`SIGNIN_WINDOW_S`
    (unless given), counted by a backend."""

    def __init__(
        self,
        backend: AttemptBackend,
        *,
        limit: int = SIGNIN_ATTEMPTS,
        window_s: float = SIGNIN_WINDOW_S,
    ) -> None:
        self._backend = backend
        self._limit = limit
        self._window_s = window_s

    async def allow(self, client: str) -> bool:
        """See :meth:`Attempts.allow`."""
        return await self._backend.count(client, self._limit, self._window_s)


class MemoryTries:
    """The tries seen by this process (:class:`AttemptBackend`; the :data:`MAX_TRACKED`
    latest clients).

    :param clock: seconds (injectable for tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    async def count(self, client: str, limit: int, window_s: float) -> bool:
        """See :meth:`AttemptBackend.count`."""
        now = self._clock()
        with self._lock:
            times = self._seen.pop(client, deque())
            while times and not within(times[0], now, window_s):
                times.popleft()
            allowed = allows(len(times), limit)
            if allowed:
                times.append(now)
            self._seen[client] = times
            while len(self._seen) > MAX_TRACKED:
                self._seen.popitem(last=False)
            return allowed


class MemoryAttempts(SignInAttempts):
    """The sign-in attempts seen by this process (:class:`Attempts`).

    :param clock: seconds (injectable for tests).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        limit: int = SIGNIN_ATTEMPTS,
        window_s: float = SIGNIN_WINDOW_S,
    ) -> None:
        super().__init__(MemoryTries(clock), limit=limit, window_s=window_s)
