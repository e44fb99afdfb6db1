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
from typing import Final

import msgspec

from sevdesk_mcp.errors import StateUnavailableError
from sevdesk_mcp.safety.approvals import (
    APPROVAL_TTL_S,
    MAX_PENDING,
    Approval,
    Binding,
    Outcome,
    Status,
    new_approval,
    owned_by,
    too_many,
)
from sevdesk_mcp.safety.basis import Basis, basis_of
from sevdesk_mcp.safety.preview import Preview
from sevdesk_mcp.shared.redis import SharedState, as_bytes, guard

log = logging.getLogger("sevdesk_mcp.shared")
KIND: Final = "approval"
BINDING_KIND: Final = "approval-binding"
WAITING_KIND: Final = "approvals-waiting"
ATTEMPTS: Final = 8
BUSY: Final = (
    "Other calls for this approval are being settled at the same moment; call the tool again "
    "in a moment. Nothing was changed."
)

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

# KEYS: binding, approval. ARGV: expected binding value, then the tags of ``pending``. Uses
# up a decided approval, once: {'used', the status as stored}; the server checks its tag.
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

# KEYS: approval, waiting set. ARGV: the decision (tagged), the member, then the tags of
# ``pending``. Decides a pending one, once.
_DECIDE: Final = (
    _ONE_OF
    + """
if not one_of(redis.call('HGET', KEYS[1], 'status'), 3) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""
)


class RedisApprovalStore:
    """The approvals of every instance (:class:`~sevdesk_mcp.safety.approvals.ApprovalStore`);
    at most ``max_pending`` wait per person (per account without one).

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
        self._state = state
        self._clock = clock
        self._ttl_s = ttl_s
        self._max_pending = max_pending
        self._create = state.script(_CREATE)
        self._consume = state.script(_CONSUME)
        self._decide = state.script(_DECIDE)

    async def settle(
        self, binding: Binding, preview: Preview, basis: Basis | None = None
    ) -> Outcome:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.settle`.

        :raises TooManyApprovalsError: if five of the binding's person (or account) already
            wait.
        :raises StateUnavailableError: if the shared state cannot be reached, or the binding
            stays contended.
        """
        bound = basis if basis is not None else basis_of(preview, {})
        binding_key = self._state.keys.key(BINDING_KIND, _canonical(binding))
        for _ in range(ATTEMPTS):
            outcome = await self._settle_once(binding_key, binding, preview, bound)
            if outcome is not None:
                return outcome
        raise StateUnavailableError(BUSY)

    async def view(self, approval_id: str, person: str) -> Approval | None:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.view`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        found = await self._read(self._state.keys.key(KIND, approval_id))
        if found is None or found[1] != "pending" or not owned_by(found[0], person):
            return None
        return found[0]

    async def decide(self, approval_id: str, person: str, *, approved: bool) -> Approval | None:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.decide` (``person`` is
        checked against the sealed record, which names who asked).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        key = self._state.keys.key(KIND, approval_id)
        found = await self._read(key)
        if found is None or found[1] != "pending" or not owned_by(found[0], person):
            return None
        approval, _, member = found
        status: Status = "approved" if approved else "declined"
        keys = [key, self._waiting_key(approval.binding.holder)]
        args = [self._status(key, status), member, *self._pending(key)]
        async with guard():
            done = await self._decide(keys=keys, args=args)
        return replace(approval, status=status) if int(done) == 1 else None

    async def waiting(self, person: str) -> list[Approval]:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.waiting`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        waiting_key = self._waiting_key(f"person:{person}")
        async with guard():
            members = await self._state.client.zrange(waiting_key, 0, -1)
        found: list[Approval] = []
        for entry in self._entries(waiting_key, members):
            digest = entry.rpartition("|")[2]
            read = await self._read(self._state.keys.plain(KIND, digest))
            if read is not None and read[1] == "pending" and owned_by(read[0], person):
                found.append(read[0])
        return sorted(found, key=lambda a: a.expires)

    async def _settle_once(
        self, binding_key: str, binding: Binding, preview: Preview, bound: Basis
    ) -> Outcome | None:
        async with guard():
            pointer = await self._state.client.get(binding_key)
        expected = as_bytes(pointer) if pointer is not None else b""
        target, current = await self._current(binding_key, pointer, binding)
        if current is None:
            new = self._new(binding, preview, bound)
            done = await self._store(binding_key, expected, new, old=(target, b""))
            return Outcome("new", new) if done else None
        approval, status, member = current
        if approval.basis.digest != bound.digest:
            new = self._new(binding, preview, bound, replaces=approval)
            done = await self._store(binding_key, expected, new, old=(target, member))
            return Outcome("changed", new) if done else None
        if status == "pending":
            return Outcome("pending", approval)
        args = [expected, *self._pending(target)]
        async with guard():
            used = await self._consume(keys=[binding_key, target], args=args)
        kind = self._used(target, used)
        if kind is None:
            return None
        used_up = replace(approval, status=kind)
        return Outcome("approved" if kind == "approved" else "declined", used_up)

    async def _current(
        self, binding_key: str, pointer: object, binding: Binding
    ) -> tuple[str, tuple[Approval, str, bytes] | None]:
        """:returns: the approval key a binding's pointer names (``""``: none, or a pointer
        that fails its check) and the approval there, if it is live and for ``binding``.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        raw = as_bytes(pointer) if pointer is not None else None
        target = self._state.seal.untag(binding_key, raw)
        if target is None:
            return "", None
        key = target.decode()
        current = await self._read(key)
        if current is not None and current[0].binding != binding:
            log.warning(
                "the approval at %s is for another binding than %s; ignored", key, binding_key
            )
            return "", None
        return key, current

    def _used(self, key: str, answer: Sequence[object]) -> Status | None:
        """:returns: how the approval at ``key`` was decided, from what the consuming script
        answered (``None``: not used up, or a status that fails its check)."""
        if _text(answer[0]) != "used":
            return None
        status = self._state.seal.untag(f"{key}#status", as_bytes(answer[1]))
        if status == b"approved":
            return "approved"
        return "declined" if status == b"declined" else None

    def _new(
        self, binding: Binding, preview: Preview, basis: Basis, replaces: Approval | None = None
    ) -> Approval:
        now = self._clock()
        expires = now + self._ttl_s
        return new_approval(binding, preview, basis, expires=expires, replaces=replaces, asked=now)

    async def _store(
        self, binding_key: str, expected: bytes, new: Approval, *, old: tuple[str, bytes]
    ) -> bool:
        """:returns: whether ``new`` was stored (``False``: the binding changed meanwhile).

        :raises TooManyApprovalsError: if the cap of the binding's person (or account) is
            reached.
        """
        key = self._state.keys.key(KIND, new.id)
        sealed = self._state.seal.seal(key, msgspec.json.encode(new))
        ttl_ms = int(self._ttl_s * 1000)
        keys = [binding_key, key, self._waiting_key(new.binding.holder), old[0] or key]
        tag = self._state.seal.tag
        member = tag(keys[2], f"{new.reference}|{key.rpartition(':')[2]}".encode())
        args: list[str | bytes | int] = [expected, ttl_ms, self._max_pending, member, sealed]
        args += [tag(f"{key}#basis", new.basis.digest.encode()), old[1]]
        args += [self._status(key, "pending"), tag(binding_key, key.encode())]
        async with guard():
            answer = await self._create(keys=keys, args=args)
        head = _text(answer[0])
        if head == "full":
            entries = self._entries(keys[2], answer[1:])
            raise too_many(self._max_pending, [e.partition("|")[0] for e in entries])
        return head == "ok"

    async def _read(self, key: str) -> tuple[Approval, str, bytes] | None:
        """:returns: the approval at ``key``, its status and its waiting-set member as stored;
        ``None`` if there is none, it expired or its status fails the check.

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
        if record is None or checked is None:
            return None
        approval = self._state.seal.open_json(key, as_bytes(record), Approval)
        if approval.expires <= self._clock():
            return None
        return approval, checked.decode(), as_bytes(member or b"")

    def _status(self, key: str, status: Status) -> bytes:
        """:returns: ``status`` tagged for the approval at ``key``."""
        return self._state.seal.tag(f"{key}#status", status.encode())

    def _pending(self, key: str) -> tuple[bytes, ...]:
        """:returns: ``pending`` tagged for the approval at ``key`` under each secret."""
        return self._state.seal.tags(f"{key}#status", b"pending")

    def _entries(self, waiting_key: str, members: Iterable[object]) -> list[str]:
        """:returns: the entries (``<reference>|<digest>``) of a waiting set that pass their
        check; forged ones are left out (and logged)."""
        checked = (self._state.seal.untag(waiting_key, as_bytes(m)) for m in members)
        return [entry.decode() for entry in checked if entry is not None]

    def _waiting_key(self, holder: str) -> str:
        """:returns: the waiting set of ``holder`` (:attr:`Binding.holder`)."""
        return self._state.keys.key(WAITING_KIND, holder)


def _canonical(binding: Binding) -> str:
    return msgspec.json.encode(binding).decode()


def _text(value: object) -> str:
    return as_bytes(value).decode()
