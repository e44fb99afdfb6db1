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
- :meth:`Lease.begin`, which the write flow awaits right before ``execute``, verifies owner and
  fencing number of every lock by script (and extends the leases): a holder that stalled past
  its lease, whose lock another instance may have taken since, is refused before it sends
  anything;
- release deletes a lock only if it is still the holder's (a script), so a late holder never
  frees another's lock;
- :meth:`Lease.begin` (the check, right before ``execute``) also marks every record "sending
  since <time>, call <id>" in one script; release clears the marks only once the outcome is known
  (:meth:`Lease.settle`). A mark found when a lock is taken (its holder died while sending: a
  SIGKILL, a lost machine; or its outcome stayed unknown) is an earlier attempt whose outcome on
  that record is unknown (:attr:`Lease.earlier`), which the write flow tells the human about.

Every decision (take or wait, send or refuse, which marks release clears) is the rule of
:mod:`~sevdesk_mcp.safety.lock_table`; the scripts compare and set as it says.

Every value here that decides something is tagged (:meth:`~sevdesk_mcp.shared.seal.Seal.tag`: an
HMAC under a key derived from the server secret, bound to the key name): the owner id in a lock,
and the whole mark. A lock whose owner fails the check (written by someone without the secret)
is treated as free and taken over; a mark that fails it is ignored. Both are logged.

sevDesk cannot check a fencing number itself, so the check narrows the window to the moment
before the first request of ``execute``; the lease (30 s) is long against that moment.

Keys (the scope and the record appear only as a digest of both):

- ``lock:<digest>``: the lock of one record of one account scope, the string
  ``<tagged owner id>:<fencing number>`` (the owner id is random, 128 bits, and opens nothing
  outside this key; the fencing number is the one the script returned to the holder, and nothing
  reads it back from Redis); expires with its lease, :data:`LEASE_S` after the last renewal.
- ``lockrun:<digest>``: the record's executing mark, tagged JSON ``{"call", "tool", "since"}``;
  set by :meth:`Lease.begin`, deleted with the lock once the outcome is known; otherwise it
  expires :data:`FENCE_TTL_S` after it was set.
- ``lockfence:<digest>``: the record's fencing counter, an integer; it starts from Redis's
  clock in microseconds, so it grows even if it expired in between; expires
  :data:`FENCE_TTL_S` after the record was last locked.

The store runs on asyncio only (the ``redis`` client's); when Redis cannot be reached, taking a
lock and the check raise :class:`~sevdesk_mcp.errors.StateUnavailableError`, so no write goes
out unlocked.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, ClassVar, Final

import anyio
import msgspec

from sevdesk_mcp.errors import StateUnavailableError, ToolError, WriteRefusedError
from sevdesk_mcp.safety.lock_table import clearing, sends, takeover_flags
from sevdesk_mcp.safety.locks import Earlier
from sevdesk_mcp.safety.redact import Undisclosed
from sevdesk_mcp.shared.redis import SharedState, guard

if TYPE_CHECKING:
    from sevdesk_mcp.shared.redis import Script
    from sevdesk_mcp.shared.seal import Seal

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

# KEYS: lock, fence, mark. ARGV: tagged owner, lease ms, fence ttl ms, a value found forged
# or '', then the forged row of lock_table.ACQUIRE as flags for the lifetimes none, lease,
# longer (lock_table.takeover_flags(): '1' takes over). {0, the lock's value} if taken;
# {fence, the mark or ''} once held. A genuine lock is always waited for (its row is all
# WAIT); the lifetime is classified as lock_table.lifetime() does.
ACQUIRE: Final = """
local held = redis.call('GET', KEYS[1])
if held then
  if held ~= ARGV[4] then return {0, held} end
  local left, life = redis.call('PTTL', KEYS[1]), 7
  if left < 0 then life = 5 elseif left <= tonumber(ARGV[2]) then life = 6 end
  if ARGV[life] ~= '1' then return {0, held} end
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  local clock = redis.call('TIME')
  redis.call('SET', KEYS[2], clock[1] .. string.format('%06d', tonumber(clock[2])))
end
local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%.0f', fence), 'PX', ARGV[2])
return {fence, redis.call('GET', KEYS[3]) or ''}
"""
# KEYS: n locks, then their n marks. ARGV: lease ms, mark ttl ms, n values, n marks. Marks
# the records only if every lock is still this holder's; returns how many were lost.
BEGIN: Final = """
local n = #KEYS / 2
for i = 1, n do
  if redis.call('GET', KEYS[i]) ~= ARGV[i + 2] then return 1 end
end
for i = 1, n do
  redis.call('PEXPIRE', KEYS[i], ARGV[1])
  redis.call('SET', KEYS[n + i], ARGV[n + i + 2], 'PX', ARGV[2])
end
return 0
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
# KEYS: n locks, then their n marks. ARGV: n values, then n marks to clear ('' keeps it).
RELEASE: Final = """
local n = #KEYS / 2
local freed = 0
for i = 1, n do
  if redis.call('GET', KEYS[i]) == ARGV[i] then
    freed = freed + redis.call('DEL', KEYS[i])
  end
  if ARGV[n + i] ~= '' and redis.call('GET', KEYS[n + i]) == ARGV[n + i] then
    redis.call('DEL', KEYS[n + i])
  end
end
return freed
"""


class _Scripts(msgspec.Struct, frozen=True):
    acquire: Script
    renew: Script
    release: Script
    begin: Script


class Lease(Undisclosed, msgspec.Struct):
    """The locks one write holds (:class:`~sevdesk_mcp.safety.locks.Held`).

    :ivar values: the owner token of each lock, which renews and frees it (not in the repr).
    :ivar fences: the fencing number of each lock, in the order taken.
    :ivar marks: the executing mark's key of each lock.
    :ivar found: the mark each lock had when taken (``""``: none, or one that failed its check).
    :ivar mine: this holder's marks, once :meth:`begin` set them.
    :ivar earlier: the earlier attempts the found marks name (outcome unknown).
    """

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"values"})

    scripts: _Scripts
    lease_ms: int
    seal: Seal
    keys: list[str] = msgspec.field(default_factory=list)
    values: list[str] = msgspec.field(default_factory=list)
    fences: list[int] = msgspec.field(default_factory=list)
    marks: list[str] = msgspec.field(default_factory=list)
    found: list[str] = msgspec.field(default_factory=list)
    mine: list[str] = msgspec.field(default_factory=list)
    earlier: list[Earlier] = msgspec.field(default_factory=list)
    lost: bool = False
    settled: bool = False
    acknowledged: bool = False

    async def begin(self, call: str, tool: str) -> None:
        """Verify every lock is still this holder's and extend their leases, and mark every
        record "sending since now, ``call``", in one script.

        :raises WriteRefusedError: if a lock is no longer this holder's (nothing may be sent).
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        if not self.lost and self.keys:
            since = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            mark = msgspec.json.encode(Earlier(call=call, tool=tool, since=since))
            mine = [self.seal.tag(key, mark).decode("ascii") for key in self.marks]
            args: list[str | int] = [self.lease_ms, FENCE_TTL_S * 1000, *self.values, *mine]
            async with guard():
                lost = int(await self.scripts.begin(keys=self.keys + self.marks, args=args))
            self.lost = not sends(lost)
            self.mine = [] if self.lost else mine
        if self.lost:
            raise WriteRefusedError(LOST.format(lease=self.lease_ms / 1000))

    def settle(self) -> None:
        """The write's outcome is known: release clears this holder's marks."""
        self.settled = True

    def acknowledge(self) -> None:
        """The earlier attempts were reported: release clears the marks found."""
        self.acknowledged = True

    def clearing(self) -> list[str]:
        """:returns: for each lock, the mark release deletes (``""`` keeps it), by
        :data:`~sevdesk_mcp.safety.lock_table.CLEAR`."""
        began = bool(self.mine)
        which = clearing(began=began, settled=self.settled, acknowledged=self.acknowledged)
        return {"mine": self.mine, "found": self.found}.get(which, [""] * len(self.keys))

    def took(self, keys: tuple[str, str], value: str, fence: int, mark: bytes) -> None:
        """Record a lock just taken (``keys``: the lock's and its mark's; ``mark``: the
        executing mark the record had)."""
        key, mark_key = keys
        self.keys.append(key)
        self.values.append(value)
        self.fences.append(fence)
        self.marks.append(mark_key)
        earlier = _earlier(self.seal, mark_key, mark)
        self.found.append(mark.decode("ascii") if earlier is not None else "")
        if earlier is not None and earlier not in self.earlier:
            self.earlier.append(earlier)

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
        keys, args = self.keys + self.marks, self.values + self.clearing()
        async with guard():
            freed = await self.scripts.release(keys=keys, args=args)
        return int(freed)


def _earlier(seal: Seal, mark_key: str, mark: bytes) -> Earlier | None:
    """:returns: the earlier attempt ``mark`` names, or ``None`` without one (a mark that fails
    its check, or holds another shape, is logged and ignored)."""
    opened = seal.untag(mark_key, mark) if mark else None
    if opened is None:
        return None
    try:
        return msgspec.json.decode(opened, type=Earlier)
    except (msgspec.DecodeError, msgspec.ValidationError):
        log.warning("record locks: an executing mark of another shape at %s; ignored", mark_key)
        return None


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
        self._scripts = _Scripts(
            state.script(ACQUIRE),
            state.script(RENEW),
            state.script(RELEASE),
            state.script(BEGIN),
        )
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

        :returns: the lease, whose :meth:`Lease.begin` the write flow awaits before sending.
        :raises ToolError: if a lock is still taken after the store's wait.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        lease = Lease(self._scripts, self._lease_ms, self._state.seal)
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
        """Take one lock, waiting while another holds it; a lock whose owner fails its check
        (logged) is taken over unless it lives as a lease does (see :data:`ACQUIRE`).

        :raises ToolError: if it is still taken at ``deadline``.
        :raises StateUnavailableError: if Redis cannot be reached.
        """
        owner, delay, forged = secrets.token_hex(16), FIRST_POLL_S, b""
        key, fence_key = self.key(*name), self.key(*name, kind="lockfence")
        mark_key = self.key(*name, kind="lockrun")
        tagged = self._state.seal.tag(key, owner.encode("ascii")).decode("ascii")
        while True:
            args: list[str | int | bytes] = [tagged, self._lease_ms, FENCE_TTL_S * 1000, forged]
            args += takeover_flags()
            async with guard():
                fence, found = await self._scripts.acquire(
                    keys=[key, fence_key, mark_key], args=args
                )
            if int(fence):
                lease.took((key, mark_key), f"{tagged}:{int(fence)}", int(fence), bytes(found))
                return
            if self._forged(key, bytes(found)):
                forged = bytes(found)  # taken over next round unless it lives as a lease
            if anyio.current_time() + delay > deadline:
                raise ToolError(BUSY.format(wait=self._wait_s))
            await anyio.sleep(delay * (0.5 + secrets.randbelow(500) / 1000))
            delay = min(delay * 2, MAX_POLL_S)

    def _forged(self, key: str, value: bytes) -> bool:
        """:returns: whether the lock's ``value`` fails its check (logged by the seal)."""
        owner, _, _ = value.rpartition(b":")
        return self._state.seal.untag(key, owner) is None

    async def _renew(self, lease: Lease) -> None:
        """Renew until cancelled; a lost lock marks the lease lost (never raises: the write in
        the block must not be cancelled halfway, its check refuses it instead)."""
        while not lease.lost:
            await anyio.sleep(self._renew_s)
            try:
                lease.lost = not sends(await lease.renew())
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
