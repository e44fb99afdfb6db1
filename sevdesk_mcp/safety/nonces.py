"""Single-use nonces of sealed request states, with a lifetime of :data:`NONCE_TTL_S`.

:class:`NonceStore` is the seam, and :class:`Nonces` its one implementation: it issues fresh
nonces and takes every decision from :mod:`sevdesk_mcp.safety.nonce_table`, leaving storing
and taking, atomically, to a :class:`NonceBackend`: :class:`MemoryNonces` keeps the nonces of
one process (:class:`MemoryNonceStore`, the default; the oldest are dropped beyond
:data:`MAX_NONCES`), :mod:`sevdesk_mcp.safety.nonces_redis` shares them between instances.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, Protocol

from sevdesk_mcp.safety.nonce_table import Found, accepts, live, well_formed

NONCE_TTL_S: Final = 600.0
MAX_NONCES: Final = 10_000
NONCE_BYTES: Final = 16


class NonceStore(Protocol):
    """Single-use nonces of sealed request states, with a lifetime of :data:`NONCE_TTL_S`."""

    async def issue(self) -> str:
        """:returns: a new nonce, valid for 10 minutes.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...

    async def consume(self, nonce: object) -> bool:
        """:returns: whether ``nonce`` was issued, unexpired and unused; it is used up now
        (once, also when two instances consume it at the same moment).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...


class NonceBackend(Protocol):
    """Where nonces wait; it decides nothing. Both methods may raise
    :class:`~sevdesk_mcp.errors.StateUnavailableError`."""

    async def put(self, nonce: str) -> None:
        """Store ``nonce`` as unused, for the backend's lifetime."""
        ...

    async def take(self, nonce: str) -> Found:
        """Remove ``nonce``'s mark in one atomic step.

        :returns: what the mark was (:data:`~sevdesk_mcp.safety.nonce_table.ACCEPT`).
        """
        ...


class Nonces:
    """The one :class:`NonceStore`: fresh nonces, the table's rule, over a backend."""

    def __init__(self, backend: NonceBackend) -> None:
        self._backend = backend

    async def issue(self) -> str:
        """See :meth:`NonceStore.issue`."""
        nonce = secrets.token_urlsafe(NONCE_BYTES)
        await self._backend.put(nonce)
        return nonce

    async def consume(self, nonce: object) -> bool:
        """See :meth:`NonceStore.consume`."""
        if not isinstance(nonce, str) or not well_formed(nonce):
            return False
        return accepts(await self._backend.take(nonce))


class MemoryNonces:
    """The nonces of one process (:class:`NonceBackend`); the oldest are dropped beyond
    :data:`MAX_NONCES`.

    :param clock: seconds, by which expiry is judged (monotonic by default).
    """

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, *, ttl_s: float = NONCE_TTL_S
    ) -> None:
        self._clock = clock
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._expiry: OrderedDict[str, float] = OrderedDict()

    async def put(self, nonce: str) -> None:
        """See :meth:`NonceBackend.put`."""
        with self._lock:
            self._expiry[nonce] = self._clock() + self._ttl_s
            while len(self._expiry) > MAX_NONCES:
                self._expiry.popitem(last=False)

    async def take(self, nonce: str) -> Found:
        """See :meth:`NonceBackend.take`."""
        with self._lock:
            expiry = self._expiry.pop(nonce, None)
        if expiry is None:
            return "absent"
        return "unused" if live(expiry, self._clock()) else "expired"


class MemoryNonceStore(Nonces):
    """The nonces of one process (:class:`NonceStore`)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, *, ttl_s: float = NONCE_TTL_S
    ) -> None:
        super().__init__(MemoryNonces(clock, ttl_s=ttl_s))
