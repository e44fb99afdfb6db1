"""Record locks: one write at a time per account and record.

A write holds the locks of every record it depends on (a document, a bank transaction, the
number range it takes a number from) from its final re-check (``prepare`` on the approved
retry) through ``execute`` and the read-back, so a second call on the same record waits and
then sees the first one's result: two approved payments cannot both pass the open-amount check,
and two contacts cannot take the same customer number. Locks live in this process (stdio, or one
HTTP instance); a shared store replaces them when several instances serve one account.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import AsyncExitStack, asynccontextmanager

import anyio


class _Entry:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = anyio.Lock()
        self.users = 0


class RecordLocks:
    """Named locks, created on demand and dropped when nobody holds or waits for them."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}

    @asynccontextmanager
    async def hold(self, scope: str, keys: Iterable[str]) -> AsyncIterator[None]:
        """Hold the locks of ``keys`` in ``scope`` (an account), taken in sorted order so that
        two writes needing the same records cannot deadlock."""
        async with AsyncExitStack() as stack:
            for key in sorted(set(keys)):
                await stack.enter_async_context(self._one((scope, key)))
            yield

    def held(self) -> int:
        """:returns: how many locks are held or waited for (for tests)."""
        return len(self._entries)

    @asynccontextmanager
    async def _one(self, name: tuple[str, str]) -> AsyncIterator[None]:
        entry = self._entries.setdefault(name, _Entry())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._entries[name]
