"""Record locks shared by every instance: leases with fencing in Redis.

The same locks as :class:`~sevdesk_mcp.safety.locks.RecordLocks` (one write at a time per
account and record, taken in sorted order), held across instances behind a load balancer:

- a lock is taken by one Lua script (set if absent, with a lease, as ``SET NX PX``) whose value
  is a random owner id and the lock's fencing number, the next of a counter per record
  (``INCR``), so every holder of a record has a larger number than the one before;
- while held, a background task renews the lease every :data:`RENEW_S` (a script extends it
  only if the value is still the holder's); a holder whose process died stops renewing and its
  lock expires after :data:`LEASE_S`;
- a lock that is taken is waited for by polling with backoff, up to the store's wait;
- :meth:`Lease.check`, which the write flow awaits right before ``execute``, verifies owner and
  fencing number of every lock by script (and extends the leases): a holder that stalled past
  its lease, whose lock another instance may have taken since, is refused before it sends
  anything;
- release deletes a lock only if it is still the holder's (a script), so a late holder never
  frees another's lock.

sevDesk cannot check a fencing number itself, so the check narrows the window to the moment
before the first request of ``execute``; the lease (30 s) is long against that moment.

Keys (the scope and the record appear only as a digest of both):

- ``lock:<digest>``: the lock of one record of one account scope, the string
  ``<owner id>:<fencing number>`` (the owner id is random, 128 bits, and opens nothing outside
  this key); expires with its lease, :data:`LEASE_S` after the last renewal.
- ``lockfence:<digest>``: the record's fencing counter, an integer; it starts from Redis's
  clock in microseconds, so it grows even if it expired in between; expires
  :data:`FENCE_TTL_S` after the record was last locked.

The store runs on asyncio only (the ``redis`` client's); when Redis cannot be reached, taking a
lock and the check raise :class:`~sevdesk_mcp.errors.StateUnavailableError`, so no write goes
out unlocked.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, ClassVar, Final

import anyio
import msgspec

from sevdesk_mcp.errors import StateUnavailableError, ToolError, WriteRefusedError
from sevdesk_mcp.safety.redact import Undisclosed
from sevdesk_mcp.shared.redis import SharedState, guard

if TYPE_CHECKING:
    from sevdesk_mcp.shared.redis import Script

log = logging.getLogger("sevdesk_mcp")

LEASE_S: Final = 30.0
RENEW_S: Final = 10.0
WAIT_S: Final = 120.0
FENCE_TTL_S: Final = 86_400
FIRST_POLL_S: Final = 0.02
MAX_POLL_S: Final = 0.5
RELEASE_LIMIT_S: Final = 5.0
LOST: Final = (
    "Refused before sending: this server lost the lock on a record of this write (it did not "
    "renew the lock within its {lease:g}-second lease, so another instance may have changed the "
    "record since the check). Nothing was sent to sevDesk; call the tool again to check afresh."
)
BUSY: Final = (
    "Another write on the same records is still running after {wait:g} seconds; nothing was "
    "changed. Try again shortly."
)

ACQUIRE: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then
  local clock = redis.call('TIME')
  redis.call('SET', KEYS[2], clock[1] .. string.format('%06d', tonumber(clock[2])))
end
local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%.0f', fence), 'PX', ARGV[2])
return fence
"""
RENEW: Final = """
local lost = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
  else
    lost = lost + 1
  end
end
return lost
"""
RELEASE: Final = """
local freed = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then
    freed = freed + redis.call('DEL', key)
  end
end
return freed
"""


class _Scripts(msgspec.Struct, frozen=True):
    acquire: Script
    renew: Script
    release: Script


class Lease(Undisclosed, msgspec.Struct):
    """The locks one write holds (:class:`~sevdesk_mcp.safety.locks.Held`).

    :ivar values: the owner token of each lock, which renews and frees it (not in the repr).
    :ivar fences: the fencing number of each lock, in the order taken.
    """

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"values"})

    scripts: _Scripts
    lease_ms: int
    keys: list[str] = msgspec.field(default_factory=list)
    values: list[str] = msgspec.field(default_factory=list)
    fences: list[int] = msgspec.field(default_factory=list)
    lost: bool = False

    async def check(self) -> None:
        """Verify owner and fencing number of every lock, and extend their leases.

        :raises WriteRefusedError: if a lock is no longer this holder's (nothing may be sent).
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        if not self.lost and self.keys:
            self.lost = await self.renew() > 0
        if self.lost:
            raise WriteRefusedError(LOST.format(lease=self.lease_ms / 1000))

    async def renew(self) -> int:
        """Extend the lease of every lock still this holder's.

        :returns: how many locks were lost.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        if not self.keys:
            return 0  # still waiting for the first lock
        async with guard():
            lost = await self.scripts.renew(keys=self.keys, args=[self.lease_ms, *self.values])
        return int(lost)

    async def release(self) -> int:
        """Delete every lock still this holder's.

        :returns: how many were deleted.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        if not self.keys:
            return 0
        async with guard():
            freed = await self.scripts.release(keys=self.keys, args=self.values)
        return int(freed)


class RedisRecordLocks:
    """A :class:`~sevdesk_mcp.safety.locks.LockStore` in the shared state.

    :param lease_s: how long a lock outlives its holder's last renewal.
    :param renew_s: how often a held lock is renewed (well under ``lease_s``).
    :param wait_s: how long to wait for a taken lock before giving up.
    """

    def __init__(
        self,
        state: SharedState,
        *,
        lease_s: float = LEASE_S,
        renew_s: float = RENEW_S,
        wait_s: float = WAIT_S,
    ) -> None:
        self._state = state
        self._scripts = _Scripts(state.script(ACQUIRE), state.script(RENEW), state.script(RELEASE))
        self._lease_ms = max(1, int(lease_s * 1000))
        self._renew_s = renew_s
        self._wait_s = wait_s

    def key(self, scope: str, record: str, kind: str = "lock") -> str:
        """:returns: the Redis key of the lock of ``record`` in ``scope`` (or, with ``kind``
        ``lockfence``, of its fencing counter)."""
        return self._state.keys.key(kind, f"{scope}\n{record}")

    @asynccontextmanager
    async def hold(self, scope: str, keys: Iterable[str]) -> AsyncIterator[Lease]:
        """Hold the locks of ``keys`` in ``scope``, taken in sorted order, renewed while held.

        :returns: the lease, whose :meth:`Lease.check` the write flow awaits before sending.
        :raises ToolError: if a lock is still taken after the store's wait.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        lease = Lease(self._scripts, self._lease_ms)
        # renewed from the first lock on: waiting for a later one must not let the earlier expire
        renewal = asyncio.create_task(self._renew(lease))
        try:
            deadline = anyio.current_time() + self._wait_s
            for record in sorted(set(keys)):
                await self._acquire(lease, (scope, record), deadline)
            yield lease
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(RELEASE_LIMIT_S):
                renewal.cancel()
                await asyncio.wait([renewal])
                await _release_quietly(lease)

    async def _acquire(self, lease: Lease, name: tuple[str, str], deadline: float) -> None:
        owner, delay = secrets.token_hex(16), FIRST_POLL_S
        key, fence_key = self.key(*name), self.key(*name, kind="lockfence")
        args: list[str | int] = [owner, self._lease_ms, FENCE_TTL_S * 1000]
        while True:
            async with guard():
                fence = int(await self._scripts.acquire(keys=[key, fence_key], args=args))
            if fence:
                lease.keys.append(key)
                lease.values.append(f"{owner}:{fence}")
                lease.fences.append(fence)
                return
            if anyio.current_time() + delay > deadline:
                raise ToolError(BUSY.format(wait=self._wait_s))
            await anyio.sleep(delay * (0.5 + secrets.randbelow(500) / 1000))
            delay = min(delay * 2, MAX_POLL_S)

    async def _renew(self, lease: Lease) -> None:
        """Renew until cancelled; a lost lock marks the lease lost (never raises: the write in
        the block must not be cancelled halfway, its check refuses it instead)."""
        while not lease.lost:
            await anyio.sleep(self._renew_s)
            try:
                lease.lost = await lease.renew() > 0
            except StateUnavailableError:
                log.warning("record locks: the shared state did not answer a renewal")
            except Exception:
                log.exception("record locks: renewal failed; the write will be refused")
                lease.lost = True


async def _release_quietly(lease: Lease) -> None:
    try:
        await lease.release()
    except StateUnavailableError:
        log.warning(
            "record locks: not released (the shared state is unreachable); they "
            "expire with their lease"
        )
