"""Approvals in the shared state: asked on one instance, decided and used on any other.

Keys (``<ns>`` is the namespace; every key expires with the approval, after
:data:`~sevdesk_mcp.safety.approvals.APPROVAL_TTL_S`):

- ``<ns>:approval:<sha256 of the approval id>``: a hash of one approval:

  - ``record``: the approval (id, reference, binding, preview, basis, call id, expiry, CSRF
    token, cookie value, what changed) as JSON, sealed with the key name as associated data;
  - ``status``: ``pending``, ``approved`` or ``declined``;
  - ``basis``: the SHA-256 of the basis it binds (not secret);
  - ``member``: its entry in the account's waiting set.

- ``<ns>:approval-binding:<sha256 of the binding>``: the name of the approval key for one
  binding (tool, argument hash, principal, account): what a retry looks up.
- ``<ns>:approvals-waiting:<sha256 of the account>``: a sorted set of the account's approvals
  waiting for a decision (member ``<reference>|<sha256 of the id>``, score the expiry in
  milliseconds): the inbox and the cap of :data:`~sevdesk_mcp.safety.approvals.MAX_PENDING`.

Using up a decided approval, deciding once and creating under the cap are each one Lua script
(compare-and-set on the binding key), so an approval decided on one instance and retried
through two others at the same moment is used by exactly one of them; the other finds none and
asks anew. The scripts touch only the keys they are given (the server's clock decides expiry).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Final, cast

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
    too_many,
)
from sevdesk_mcp.safety.basis import Basis, basis_of
from sevdesk_mcp.safety.preview import Preview
from sevdesk_mcp.shared.redis import SharedState, guard

KIND: Final = "approval"
BINDING_KIND: Final = "approval-binding"
WAITING_KIND: Final = "approvals-waiting"
ATTEMPTS: Final = 8
BUSY: Final = (
    "Other calls for this approval are being settled at the same moment; call the tool again "
    "in a moment. Nothing was changed."
)

# KEYS: binding, new approval, waiting set, old approval. ARGV: expected binding value, ttl ms,
# cap, new member, sealed record, basis digest, old member ('' without one).
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
redis.call('HSET', KEYS[2], 'record', ARGV[5], 'status', 'pending', 'basis', ARGV[6],
  'member', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('SET', KEYS[1], KEYS[2], 'PX', ttl)
redis.call('ZADD', KEYS[3], now + ttl, ARGV[4])
if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
return {'ok'}
"""

# KEYS: binding, approval. ARGV: expected binding value. Uses up a decided approval, once.
_CONSUME: Final = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 'retry' end
local status = redis.call('HGET', KEYS[2], 'status')
if not status then return 'retry' end
if status == 'pending' then return status end
redis.call('DEL', KEYS[2], KEYS[1])
return status
"""

# KEYS: approval, waiting set. ARGV: the decision, the member. Decides a pending one, once.
_DECIDE: Final = """
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""


class RedisApprovalStore:
    """The approvals of every instance (:class:`~sevdesk_mcp.safety.approvals.ApprovalStore`);
    at most ``max_pending`` wait per account.

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

        :raises TooManyApprovalsError: if five of the account already wait.
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

    async def view(self, approval_id: str) -> Approval | None:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.view`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        found = await self._read(self._state.keys.key(KIND, approval_id))
        if found is None or found[1] != "pending":
            return None
        return found[0]

    async def decide(self, approval_id: str, *, approved: bool) -> Approval | None:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.decide`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        key = self._state.keys.key(KIND, approval_id)
        found = await self._read(key)
        if found is None or found[1] != "pending":
            return None
        approval, _, member = found
        status: Status = "approved" if approved else "declined"
        keys = [key, self._waiting_key(approval.binding.account)]
        async with guard():
            done = await self._decide(keys=keys, args=[status, member])
        return replace(approval, status=status) if int(done) == 1 else None

    async def waiting(self, account: str) -> list[Approval]:
        """See :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.waiting`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        async with guard():
            members = await self._state.client.zrange(self._waiting_key(account), 0, -1)
        found: list[Approval] = []
        for member in members:
            digest = _text(member).rpartition("|")[2]
            read = await self._read(self._state.keys.plain(KIND, digest))
            if read is not None and read[1] == "pending" and read[0].binding.account == account:
                found.append(read[0])
        return sorted(found, key=lambda a: a.expires)

    async def _settle_once(
        self, binding_key: str, binding: Binding, preview: Preview, bound: Basis
    ) -> Outcome | None:
        async with guard():
            pointer = await self._state.client.get(binding_key)
        expected = _text(pointer) if pointer is not None else ""
        current = await self._read(expected) if expected else None
        if current is None:
            new = self._new(binding, preview, bound)
            done = await self._store(binding_key, expected, new, old=(expected, ""))
            return Outcome("new", new) if done else None
        approval, status, member = current
        if approval.basis.digest != bound.digest:
            new = self._new(binding, preview, bound, replaces=approval)
            done = await self._store(binding_key, expected, new, old=(expected, member))
            return Outcome("changed", new) if done else None
        if status == "pending":
            return Outcome("pending", approval)
        async with guard():
            used = await self._consume(keys=[binding_key, expected], args=[expected])
        kind = _text(used)
        if kind not in {"approved", "declined"}:
            return None
        used_up = replace(approval, status=cast("Status", kind))
        return Outcome("approved" if kind == "approved" else "declined", used_up)

    def _new(
        self, binding: Binding, preview: Preview, basis: Basis, replaces: Approval | None = None
    ) -> Approval:
        expires = self._clock() + self._ttl_s
        return new_approval(binding, preview, basis, expires=expires, replaces=replaces)

    async def _store(
        self, binding_key: str, expected: str, new: Approval, *, old: tuple[str, str]
    ) -> bool:
        """:returns: whether ``new`` was stored (``False``: the binding changed meanwhile).

        :raises TooManyApprovalsError: if the account's cap is reached.
        """
        key = self._state.keys.key(KIND, new.id)
        member = f"{new.reference}|{key.rpartition(':')[2]}"
        sealed = self._state.seal.seal(key, msgspec.json.encode(new))
        ttl_ms = int(self._ttl_s * 1000)
        keys = [binding_key, key, self._waiting_key(new.binding.account), old[0] or key]
        args: list[str | bytes | int] = [expected, ttl_ms, self._max_pending, member, sealed]
        args += [new.basis.digest, old[1]]
        async with guard():
            answer = await self._create(keys=keys, args=args)
        head, *rest = [_text(part) for part in answer]
        if head == "full":
            raise too_many(self._max_pending, [m.partition("|")[0] for m in rest])
        return head == "ok"

    async def _read(self, key: str) -> tuple[Approval, str, str] | None:
        """:returns: the approval at ``key``, its status and its waiting-set member."""
        async with guard():
            record, status, member = await self._state.client.hmget(
                key, ["record", "status", "member"]
            )
        if record is None or status is None:
            return None
        approval = self._state.seal.open_json(key, _raw(record), Approval)
        if approval.expires <= self._clock():
            return None
        return approval, _text(status), _text(member or b"")

    def _waiting_key(self, account: str) -> str:
        return self._state.keys.key(WAITING_KIND, account)


def _canonical(binding: Binding) -> str:
    return msgspec.json.encode(binding).decode()


def _raw(value: object) -> bytes:
    """:returns: a value Redis answered, as bytes (the client decodes nothing)."""
    return value if isinstance(value, bytes) else str(value).encode()


def _text(value: object) -> str:
    return _raw(value).decode()
