"""Approvals in the shared state: asked on one instance, decided and used on any other.

Keys (``<ns>`` is the namespace; every key expires with the approval, after
:data:`~sevdesk_mcp.safety.approvals.APPROVAL_TTL_S`):

- ``<ns>:approval:<sha256 of the approval id>``: a hash of one approval:

  - ``record``: the approval (id, reference, binding, preview, basis, call id, expiry, CSRF
    token, cookie value, what changed) as JSON, sealed with the key name as associated data;
  - ``status``: ``pending``, ``approved`` or ``declined``, tagged for ``<key>#status``;
  - ``basis``: the SHA-256 of the basis it binds (not secret), tagged for ``<key>#basis``
    (the server decides by the basis in the sealed record; this copy is for readers);
  - ``member``: its entry in the waiting set of the person who asked, as stored there (only
    ever handed back to ``ZREM`` of that set: a changed one removes another entry or none,
    which whoever can write to Redis can do directly).

- ``<ns>:approval-binding:<sha256 of the binding>``: the name of the approval key for one
  binding (tool, argument hash, principal, account, person, client), tagged for the binding
  key: what a retry looks up.
- ``<ns>:approvals-waiting:<sha256 of the holder>``: a sorted set of the approvals waiting for
  a decision of one person (``person:<fingerprint of their sevDesk token>``; without one, of
  the account: ``account:<id>``), member ``<reference>|<sha256 of the id>`` tagged for the
  set's key, score the expiry
  in milliseconds: the person's inbox and their cap of
  :data:`~sevdesk_mcp.safety.approvals.MAX_PENDING`. Whether a person may see or decide an
  approval is checked against its sealed record, never against this set alone.

Using up a decided approval, deciding once and creating under the cap are each one Lua script
(compare-and-set on the binding key), so an approval decided on one instance and retried
through two others at the same moment is used by exactly one of them; the other finds none and
asks anew. The scripts touch only the keys they are given (the server's clock decides expiry).

Tagged values (:meth:`~sevdesk_mcp.shared.seal.Seal.tag`, an HMAC under a key derived from the
server secret, bound to the key name) are what someone who can write to Redis but lacks the
secret cannot forge or move: a status set to ``approved`` by hand, a pointer copied from
another binding or written in the clear, an entry added to a waiting set. Each fails its check
and is treated as absent (logged): the retry asks the human anew, the inbox leaves the entry
out. The scripts compare stored values with the tags the server computed (one per configured
secret while it rotates); Lua has no HMAC, so the cap counts forged entries too (they can only
refuse new approvals, as filling Redis would). An approval read through a valid pointer is
still used only if its sealed record is for that very binding. Values written by a version
before tags fail the check: approvals waiting or decided at the upgrade are asked anew.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Final, NamedTuple

import msgspec

from sevdesk_mcp.safety.approval_table import STATUSES, Status, decidable, kept, live
from sevdesk_mcp.safety.approvals import (
    APPROVAL_TTL_S,
    MAX_PENDING,
    Approval,
    Approvals,
    Binding,
    Slot,
    too_many,
)
from sevdesk_mcp.shared.redis import SharedState, as_bytes, guard

log = logging.getLogger("sevdesk_mcp.shared")
KIND: Final = "approval"
BINDING_KIND: Final = "approval-binding"
WAITING_KIND: Final = "approvals-waiting"
_STATUS: Final[dict[bytes, Status]] = {s.encode(): s for s in STATUSES}

# True if ``value`` is one of ARGV[first..]: the tags of one value under each secret.
_ONE_OF: Final = """
local function one_of(value, first)
  for i = first, #ARGV do
    if value == ARGV[i] then return true end
  end
  return false
end
"""
# KEYS: binding, new approval, waiting set, old approval. ARGV: expected binding value, ttl ms,
# cap, new member, sealed record, basis digest, old member ('' without one), pending status,
# binding value (the last four tagged; the old member as read).
_CREATE: Final = """
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return {'retry'} end
if ARGV[1] ~= '' then
  redis.call('DEL', KEYS[4])
  if ARGV[7] ~= '' then redis.call('ZREM', KEYS[3], ARGV[7]) end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then
  redis.call('DEL', KEYS[1])
  return {'full', unpack(redis.call('ZRANGE', KEYS[3], 0, -1))}
end
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[2], 'record', ARGV[5], 'status', ARGV[8], 'basis', ARGV[6],
  'member', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('SET', KEYS[1], ARGV[9], 'PX', ttl)
redis.call('ZADD', KEYS[3], now + ttl, ARGV[4])
if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
return {'ok'}
"""

# KEYS: binding, approval. ARGV: expected binding value, then the tags of the statuses the
# table keeps (approval_table.kept(): ``pending``). Uses up a decided approval, once:
# {'used', the status as stored}; the server checks its tag.
_CONSUME: Final = (
    _ONE_OF
    + """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return {'retry'} end
local status = redis.call('HGET', KEYS[2], 'status')
if not status then return {'retry'} end
if one_of(status, 2) then return {'pending'} end
redis.call('DEL', KEYS[2], KEYS[1])
return {'used', status}
"""
)

# KEYS: approval, waiting set. ARGV: the decision (tagged), the member, then the tags of the
# statuses the table lets be decided (approval_table.decidable(): ``pending``). Decides once.
_DECIDE: Final = (
    _ONE_OF
    + """
if not one_of(redis.call('HGET', KEYS[1], 'status'), 3) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""
)


class RedisApprovals:
    """The approvals of every instance (:class:`~sevdesk_mcp.safety.approvals.ApprovalBackend`):
    each change one script that compares first.

    :param state: the shared state.
    :param clock: seconds since the epoch, by which an approval's expiry is judged (the
        waiting set and the keys expire on Redis's clock).
    """

    def __init__(self, state: SharedState, *, ttl_s: float, clock: Callable[[], float]) -> None:
        self._state = state
        self._clock = clock
        self._ttl_ms = int(ttl_s * 1000)
        self._create = state.script(_CREATE)
        self._consume = state.script(_CONSUME)
        self._decide = state.script(_DECIDE)

    async def current(self, binding: Binding) -> Slot:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalBackend.current`; the token is
        the binding's key, its pointer as read, the approval's key and its waiting-set member
        (an approval behind a valid pointer that is for another binding is logged and absent).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        binding_key = self._state.keys.key(BINDING_KIND, _canonical(binding))
        async with guard():
            pointer = await self._state.client.get(binding_key)
        raw = as_bytes(pointer) if pointer is not None else None
        target = self._state.seal.untag(binding_key, raw)
        approval, member = None, b""
        if target is not None:
            approval, member = await self._read(target.decode())
        if approval is not None and approval.binding != binding:
            log.warning(
                "the approval at %s is for another binding than %s; ignored", target, binding_key
            )
            approval, target = None, None
        key = target.decode() if target is not None else ""
        return Slot(approval, _Where(binding_key, raw or b"", key, member))

    async def put(self, slot: Slot, new: Approval, cap: int) -> Approval | None:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalBackend.put`.

        :raises TooManyApprovalsError: if the cap of the binding's person (or account) is
            reached.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        binding_key, expected, old_key, old_member = _where(slot)
        key = self._state.keys.key(KIND, new.id)
        sealed = self._state.seal.seal(key, msgspec.json.encode(new))
        keys = [binding_key, key, self._waiting_key(new.binding.holder), old_key or key]
        tag = self._state.seal.tag
        member = tag(keys[2], f"{new.reference}|{key.rpartition(':')[2]}".encode())
        args: list[str | bytes | int] = [expected, self._ttl_ms, cap, member, sealed]
        args += [tag(f"{key}#basis", new.basis.digest.encode()), old_member if old_key else b""]
        args += [self._status(key, "pending"), tag(binding_key, key.encode())]
        async with guard():
            answer = await self._create(keys=keys, args=args)
        head = _text(answer[0])
        if head == "full":
            entries = self._entries(keys[2], answer[1:])
            raise too_many(cap, [e.partition("|")[0] for e in entries])
        return new if head == "ok" else None

    async def take(self, slot: Slot) -> Status | None:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalBackend.take` (the script leaves
        the table's :func:`~sevdesk_mcp.safety.approval_table.kept` statuses).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        binding_key, expected, key, _ = _where(slot)
        async with guard():
            answer = await self._consume(
                keys=[binding_key, key], args=[expected, *self._tags(key, kept())]
            )
        return self._used(key, answer)

    async def read(self, approval_id: str) -> Slot:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalBackend.read`; the token is the
        approval's key and its waiting-set member.

        :raises StateUnavailableError: if the shared state cannot be reached, or the record
            does not open.
        """
        key = self._state.keys.key(KIND, approval_id)
        approval, member = await self._read(key)
        return Slot(approval, _Where("", b"", key, member))

    async def mark(self, slot: Slot, status: Status) -> bool:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalBackend.mark` (the script compares
        with the tags of the table's :func:`~sevdesk_mcp.safety.approval_table.decidable`).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        _, _, key, member = _where(slot)
        if slot.approval is None:
            return False
        keys = [key, self._waiting_key(slot.approval.binding.holder)]
        args = [self._status(key, status), member, *self._tags(key, decidable())]
        async with guard():
            done = await self._decide(keys=keys, args=args)
        return int(done) == 1

    async def holding(self, holder: str) -> list[Approval]:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalBackend.holding` (the entries of
        the holder's waiting set that pass their check; each still read from its record).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        waiting_key = self._waiting_key(holder)
        async with guard():
            members = await self._state.client.zrange(waiting_key, 0, -1)
        found: list[Approval] = []
        for entry in self._entries(waiting_key, members):
            digest = entry.rpartition("|")[2]
            approval, _ = await self._read(self._state.keys.plain(KIND, digest))
            if approval is not None:
                found.append(approval)
        return found

    def _used(self, key: str, answer: Sequence[object]) -> Status | None:
        """:returns: how the approval at ``key`` was decided, from what the consuming script
        answered (``None``: not used up, or a status that fails its check)."""
        if _text(answer[0]) != "used":
            return None
        status = _STATUS.get(self._state.seal.untag(f"{key}#status", as_bytes(answer[1])) or b"")
        return status if status not in kept() else None

    async def _read(self, key: str) -> tuple[Approval | None, bytes]:
        """:returns: the approval at ``key`` with its status as stored, and its waiting-set
        member as stored; ``None`` if there is none, it expired or its status fails the check.

        :raises StateUnavailableError: if the shared state cannot be reached, or the record
            does not open.
        """
        async with guard():
            record, status, member = await self._state.client.hmget(
                key, ["record", "status", "member"]
            )
        checked = self._state.seal.untag(
            f"{key}#status", None if status is None else as_bytes(status)
        )
        found = _STATUS.get(checked or b"")
        if record is None or found is None:
            return None, b""
        approval = self._state.seal.open_json(key, as_bytes(record), Approval)
        if not live(approval.expires, self._clock()):
            return None, b""
        return replace(approval, status=found), as_bytes(member or b"")

    def _status(self, key: str, status: Status) -> bytes:
        """:returns: ``status`` tagged for the approval at ``key``."""
        return self._state.seal.tag(f"{key}#status", status.encode())

    def _tags(self, key: str, statuses: Iterable[Status]) -> list[bytes]:
        """:returns: each of ``statuses`` tagged for the approval at ``key`` under each secret."""
        return [t for s in statuses for t in self._state.seal.tags(f"{key}#status", s.encode())]

    def _entries(self, waiting_key: str, members: Iterable[object]) -> list[str]:
        """:returns: the entries (``<reference>|<digest>``) of a waiting set that pass their
        check; forged ones are left out (and logged)."""
        checked = (self._state.seal.untag(waiting_key, as_bytes(m)) for m in members)
        return [entry.decode() for entry in checked if entry is not None]

    def _waiting_key(self, holder: str) -> str:
        """:returns: the waiting set of ``holder`` (:attr:`Binding.holder`)."""
        return self._state.keys.key(WAITING_KIND, holder)


class RedisApprovalStore(Approvals):
    """The approvals of every instance (:class:`~sevdesk_mcp.safety.approvals.ApprovalStore`:
    the table's rules over :class:`RedisApprovals`); at most ``max_pending`` wait per person
    (per account without one).

    :param state: the shared state.
    :param clock: seconds since the epoch, by which an approval's expiry is judged (injectable
        for tests; the waiting set and the keys expire on Redis's clock).
    """

    def __init__(
        self,
        state: SharedState,
        *,
        ttl_s: float = APPROVAL_TTL_S,
        max_pending: int = MAX_PENDING,
        clock: Callable[[], float] = time.time,
    ) -> None:
        backend = RedisApprovals(state, ttl_s=ttl_s, clock=clock)
        super().__init__(backend, clock, ttl_s=ttl_s, max_pending=max_pending)


class _Where(NamedTuple):
    """Where a slot's approval stands in Redis, as fetched (a slot's token)."""

    binding_key: str  # "" for an approval read by its id
    pointer: bytes  # the binding's pointer as read (b"": none)
    key: str  # the approval's key ("": none)
    member: bytes  # its waiting-set entry as stored


def _where(slot: Slot) -> _Where:
    if not isinstance(slot.token, _Where):
        raise TypeError("an approval slot of another backend")  # a wiring error
    return slot.token


def _canonical(binding: Binding) -> str:
    return msgspec.json.encode(binding).decode()


def _text(value: object) -> str:
    return as_bytes(value).decode()
