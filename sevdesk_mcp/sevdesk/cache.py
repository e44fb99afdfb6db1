"""Reference data cached per account for a short time; business records never.

Tax rules, booking accounts (and their receipt guidance), units, countries, payment methods
and the bookkeeping system version change rarely and are read by many tools. One
:class:`ReferenceCache` belongs to one :class:`~sevdesk_mcp.sevdesk.client.SevdeskClient` and
is shared by all its views, so every tool of the account reads such a list at most once per
:data:`DEFAULT_TTL_S`. Documents, contacts, transactions, check accounts and everything else
are not in :data:`REFERENCE_MODELS` and are always read fresh.

Concurrent readers of one missing entry share one request; a failed read caches nothing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Final, TypeVar

import anyio

DEFAULT_TTL_S: Final = 300.0
REFERENCE_MODELS: Final = frozenset(
    {
        "TaxRule",
        "AccountDatev",
        "AccountingType",
        "Unity",
        "StaticCountry",
        "PaymentMethod",
        "ReceiptGuidance",
    }
)
VERSION_PATH: Final = "/Tools/bookkeepingSystemVersion"
Key = tuple[str, tuple[tuple[str, str], ...]]
T = TypeVar("T")


def is_reference(path: str) -> bool:
    """:returns: whether ``path`` reads reference data (its first segment is a reference model,
    or it is the bookkeeping system version)."""
    return path == VERSION_PATH or path.lstrip("/").split("/", 1)[0] in REFERENCE_MODELS


def key_of(path: str, params: Mapping[str, str]) -> Key:
    """:returns: the cache key of a request: its path and its sorted query."""
    return path, tuple(sorted(params.items()))


class ReferenceCache:
    """Answers of reference requests, each kept for ``ttl_s`` seconds of ``clock``.

    :param ttl_s: how long an answer is used; 0 turns the cache off.
    :param clock: seconds, monotonic (tests inject their own).
    """

    def __init__(
        self, ttl_s: float = DEFAULT_TTL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl_s = ttl_s
        self._clock = clock
        self._entries: dict[Key, tuple[float, object]] = {}
        self._pending: dict[Key, anyio.Event] = {}

    async def get(self, key: Key, fetch: Callable[[], Awaitable[T]]) -> T:
        """:returns: the cached answer for ``key``, or the one ``fetch`` reads (then kept).

        :raises Exception: whatever ``fetch`` raises; nothing is kept then.
        """
        while True:
            found = self._fresh(key)
            if found is not None:
                return found[0]  # type: ignore[return-value] # one key, one fetch type
            pending = self._pending.get(key)
            if pending is None:
                break
            await pending.wait()  # another task reads it; then look again
        done = self._pending[key] = anyio.Event()
        try:
            value = await fetch()
            if self._ttl_s > 0:
                self._entries[key] = (self._clock(), value)
            return value
        finally:
            del self._pending[key]
            done.set()

    def clear(self) -> None:
        """Forget every answer."""
        self._entries.clear()

    def _fresh(self, key: Key) -> tuple[object] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if self._clock() - entry[0] >= self._ttl_s:
            del self._entries[key]
            return None
        return (entry[1],)
