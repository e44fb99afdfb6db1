"""Record locks: one write at a time per account and record.

A write holds the locks of every record it depends on (a document, a bank transaction, the
number range it takes a number from) from its final re-check (``prepare`` on the approved
retry) through ``execute`` and the read-back, so a second call on the same record waits and
then sees the first one's result: two approved payments cannot both pass the open-amount check,
and two contacts cannot take the same customer number.

The locks are behind the :class:`LockStore` protocol. :class:`RecordLocks` keeps them in this
process (stdio, or one HTTP instance; the default); ``locks_redis.RedisRecordLocks`` keeps them
in the shared state when several instances serve one account, as leases renewed while held.
:meth:`LockStore.hold` yields a :class:`Held` handle whose :meth:`Held.begin` the write flow
awaits right before ``execute``: a holder whose lease was lost (its process stalled past the
lease and another instance took the lock) is refused there, before anything is sent. In this
process a lock cannot be lost, and :meth:`Held.begin` always passes. The rules of both are
:mod:`~sevdesk_mcp.safety.lock_table`'s (in this process a lock is only free or held).

Right before ``execute`` the write flow calls :meth:`Held.begin` instead (the same check, and the
shared store marks the records "sending since, call id"); once the outcome is known it calls
:meth:`Held.settle`, and the mark goes with the locks. A mark that outlives its locks (the holder
died while sending, or its outcome stayed unknown) is what the next holder of those records
finds in :attr:`Held.earlier`: an earlier attempt whose outcome on them is unknown. In this
process a holder cannot die without every lock and waiter dying with it, so :class:`RecordLocks`
finds none (an unknown outcome in this process is reported to its own caller).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Final, Protocol

import anyio
import msgspec


class Earlier(msgspec.Struct, frozen=True):
    """An earlier write on the same records whose outcome is unknown: it was sending to sevDesk
    and never settled (its holder died, or its outcome stayed unknown).

    :ivar call: the earlier call's id (its audit lines carry it).
    :ivar tool: the earlier call's tool.
    :ivar since: when it started sending (ISO 8601, UTC).
    """

    call: str
    tool: str
    since: str


class Held(Protocol):
    """The locks of one write, while it holds them."""

    @property
    def earlier(self) -> Sequence[Earlier]:
        """:returns: the earlier attempts on these records whose outcome is unknown."""
        ...

    async def begin(self, call: str, tool: str) -> None:
        """Make sure every lock is still this holder's (right before sending), and mark the
        records as being sent to by ``call`` (shared locks).

        :raises WriteRefusedError: if a lock was lost; nothing may be sent.
        :raises StateUnavailableError: if the locks are shared and the state cannot be reached.
        """
        ...

    def settle(self) -> None:
        """The outcome of the write is known: its mark goes with the locks."""
        ...

    def acknowledge(self) -> None:
        """The :attr:`earlier` attempts were reported to the caller: their marks go with the
        locks (the next attempt is not warned again)."""
        ...


class LockStore(Protocol):
    """Record locks per account scope, in this process or shared by every instance."""

    def hold(self, scope: str, keys: Iterable[str]) -> AbstractAsyncContextManager[Held]:
        """:returns: a context that holds the locks of ``keys`` in ``scope`` (an account),
        taken in sorted order so that two writes needing the same records cannot deadlock.

        Entering it may raise :class:`~sevdesk_mcp.errors.ToolError` (the locks stay busy past
        the wait) or :class:`~sevdesk_mcp.errors.StateUnavailableError` (shared locks).
        """
        ...


class _InProcess:
    """The handle of locks of this process: they cannot be lost, nor outlive their holder."""

    __slots__ = ()

    @property
    def earlier(self) -> Sequence[Earlier]:
        """:returns: nothing: no holder of this process died while others wait."""
        return ()

    async def begin(self, call: str, tool: str) -> None:
        """Pass: a lock of this process is held until its block ends."""

    def settle(self) -> None:
        """Nothing to clear."""

    def acknowledge(self) -> None:
        """Nothing to clear."""


IN_PROCESS: Final = _InProcess()


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
    async def hold(self, scope: str, keys: Iterable[str]) -> AsyncIterator[Held]:
        """Hold the locks of ``keys`` in ``scope`` (an account), taken in sorted order so that
        two writes needing the same records cannot deadlock.

        :returns: a handle whose :meth:`Held.begin` always passes.
        """
        async with AsyncExitStack() as stack:
            for key in sorted(set(keys)):
                await stack.enter_async_context(self._one((scope, key)))
            yield IN_PROCESS

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
