"""Uploads and deliveries in the shared state: a file uploaded through one instance is read by
a tool call on another, and a delivery is downloaded once, whichever instance serves it.

Keys (``<ns>`` is the namespace; a record expires after its lifetime, 30 minutes for uploads and
10 for deliveries; an index lives as long as its longest-lived record):

- ``<ns>:transfer:<sha256 of the record id>``: a hash of one record:

  - ``record``: the record (id, kind, owner: principal, account and person, expiry, file
    name, type, size, SHA-256) as JSON, sealed with ``<key>#record`` as associated data; the
    pages serve a record only to its person (checked against this sealed owner);
  - ``data``: the file's bytes, sealed with ``<key>#data`` (only once filled or offered);
  - ``kind`` (``upload``/``download``), ``account`` (the SHA-256 of the sevDesk account),
    ``filled`` (``0``/``1``), ``grant`` (the name of the grant's index key).

- ``<ns>:transfers-account:<sha256 of the account>`` and
  ``<ns>:transfers-grant:<sha256 of the principal>``: sorted sets of the live records (member
  the SHA-256 of the id, score the expiry in milliseconds): the record limits and the inbox's
  upload list.
- ``<ns>:transfers-bytes:<sha256 of the account>``: a hash of the size of each live record of
  the account: the byte limit.

Adding a record (within the limits of account and grant), filling a slot (once, within the
byte limit) and taking a delivery (once) are each one Lua script; only sealed bytes are stored.
The scripts decide nothing of their own: the limits they check, in order, are the rows of
:mod:`~sevdesk_mcp.safety.transfer_table` handed to them as arguments, and every other decision
is taken by :class:`~sevdesk_mcp.safety.transfers.Transfers` on the sealed record.

Nothing here is tagged (:meth:`~sevdesk_mcp.shared.seal.Seal.tag`), because no plain value
decides what someone who can write to Redis but lacks the server secret could not decide by
deleting keys. Every decision is taken on the sealed record first (its kind, owner, whether
it is filled, its expiry; bound to its key, so it cannot be forged nor moved to another
record), and the file only ever comes from the sealed ``data``. The plain ``kind``,
``account`` and ``filled`` repeat facts of that record for the scripts (Lua has no HMAC): a
changed one can only make a script refuse (a slot gone, a delivery not taken), or, in the
instant between the sealed check and the script, let the slot's own holder fill it a second
time with a file of their own. The ``grant`` field is never read. The indexes and the sizes
only count against the limits (a forged entry refuses new records or lifts one's own byte
limit, as writing to Redis directly fills it anyway) and name which records are looked at,
each still checked against its sealed owner.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, Literal

import msgspec

from sevdesk_mcp.safety.transfer_table import Limit, Row, flat
from sevdesk_mcp.safety.transfers import Limits, Record, Transfers
from sevdesk_mcp.shared.keys import digest
from sevdesk_mcp.shared.redis import SharedState, as_bytes, guard

KIND: Final = "transfer"
_PRUNE: Final = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function prune(account, grant, sizes, now)
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', account, '-inf', now)) do
    redis.call('HDEL', sizes, m)
  end
  redis.call('ZREMRANGEBYSCORE', account, '-inf', now)
  if grant then redis.call('ZREMRANGEBYSCORE', grant, '-inf', now) end
end
local function bytes(sizes)
  local total = 0
  for _, v in ipairs(redis.call('HVALS', sizes)) do total = total + tonumber(v) end
  return total
end
local function refused(held, from)
  local i = from
  while ARGV[i] do
    local what = ARGV[i]
    if held[what] + tonumber(ARGV[i + 1]) > tonumber(ARGV[i + 2]) then
      return {what, held[what]}
    end
    i = i + 3
  end
  return false
end
local function keep(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
"""
# KEYS: record, account index, grant index, sizes. ARGV: member, ttl ms, size, sealed record,
# kind, account digest, sealed data, then the table's rows (name, adds, limit).
_ADD: Final = (
    _PRUNE
    + """
local now = now_ms()
prune(KEYS[2], KEYS[3], KEYS[4], now)
local held = {account = redis.call('ZCARD', KEYS[2]), grant = redis.call('ZCARD', KEYS[3]),
  bytes = bytes(KEYS[4])}
local full = refused(held, 8)
if full then return full end
local ttl = tonumber(ARGV[2])
local filled = '0'
if ARGV[7] ~= '' then filled = '1' end
redis.call('HSET', KEYS[1], 'record', ARGV[4], 'kind', ARGV[5], 'account', ARGV[6],
  'filled', filled, 'grant', KEYS[3])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'data', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
keep(KEYS[2], ttl) keep(KEYS[3], ttl) keep(KEYS[4], ttl)
return {'ok', 0}
"""
)
# KEYS: record, account index, sizes. ARGV: account digest, size, sealed record, sealed data,
# member, then the table's rows (name, adds, limit).
_FILL: Final = (
    _PRUNE
    + """
local kind, account, filled = unpack(redis.call('HMGET', KEYS[1], 'kind', 'account', 'filled'))
if kind ~= 'upload' or account ~= ARGV[1] or filled ~= '0' then return 'gone' end
prune(KEYS[2], false, KEYS[3], now_ms())
local full = refused({account = 0, grant = 0, bytes = bytes(KEYS[3])}, 6)
if full then return full[1] end
redis.call('HSET', KEYS[1], 'record', ARGV[3], 'data', ARGV[4], 'filled', '1')
redis.call('HSET', KEYS[3], ARGV[5], ARGV[2])
return 'ok'
"""
)
# KEYS: record, account index, grant index, sizes. ARGV: account digest, member.
_TAKE: Final = """
local kind, account = unpack(redis.call('HMGET', KEYS[1], 'kind', 'account'))
if kind ~= 'download' or account ~= ARGV[1] then return false end
local found = redis.call('HGET', KEYS[1], 'data')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[2])
return found
"""


class RedisTransfers:
    """The records of every instance (:class:`~sevdesk_mcp.safety.transfers.TransferBackend`).
    Each method may raise :class:`~sevdesk_mcp.errors.StateUnavailableError`."""

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._add = state.script(_ADD)
        self._fill = state.script(_FILL)
        self._take = state.script(_TAKE)

    async def add(
        self, record: Record, data: bytes | None, ttl_s: float, rows: list[Row]
    ) -> tuple[Limit, int] | None:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferBackend.add`: one script."""
        key = self._key(record.id)
        owner = record.owner
        keys = [key, self._index("account", owner.account), self._grant(owner.principal)]
        keys.append(self._index("bytes", owner.account))
        args: list[str | bytes | int] = [_member(key), int(ttl_s * 1000), record.size]
        args += [self._seal_record(key, record), record.kind, digest(owner.account)]
        args.append(b"" if data is None else self._seal_data(key, data))
        async with guard():
            answer = await self._add(keys=keys, args=[*args, *flat(rows)])
        what: Limit | Literal["ok"] = _text(answer[0])  # type: ignore[assignment]
        return None if what == "ok" else (what, int(answer[1]))

    async def get(self, record_id: str) -> Record | None:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferBackend.get` (a sealed record that
        does not open raises :class:`~sevdesk_mcp.errors.StateUnavailableError`)."""
        return await self._read(self._key(record_id))

    async def listed(self, account: str) -> list[Record]:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferBackend.listed` (the account's
        index; each record is still checked against its sealed owner by the store)."""
        async with guard():
            members = await self._state.client.zrange(self._index("account", account), 0, -1)
        found = [await self._read(self._state.keys.plain(KIND, _text(m))) for m in members]
        return [r for r in found if r is not None]

    async def put_file(
        self, found: Record, filled: Record, data: bytes, rows: list[Row]
    ) -> Literal["ok", "gone", "bytes"]:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferBackend.put_file`: one script."""
        account = found.owner.account
        key = self._key(found.id)
        keys = [key, self._index("account", account), self._index("bytes", account)]
        args: list[str | bytes | int] = [digest(account), filled.size]
        args += [self._seal_record(key, filled), self._seal_data(key, data), _member(key)]
        async with guard():
            answer = _text(await self._fill(keys=keys, args=[*args, *flat(rows)]))
        return "ok" if answer == "ok" else "bytes" if answer == "bytes" else "gone"

    async def data(self, record_id: str) -> bytes | None:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferBackend.data`."""
        key = self._key(record_id)
        async with guard():
            sealed = await self._state.client.hget(key, "data")
        return None if sealed is None else self._state.seal.open(f"{key}#data", as_bytes(sealed))

    async def take(self, found: Record) -> bytes | None:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferBackend.take`: one script."""
        account = found.owner.account
        key = self._key(found.id)
        keys = [key, self._index("account", account), self._grant(found.owner.principal)]
        keys.append(self._index("bytes", account))
        async with guard():
            sealed = await self._take(keys=keys, args=[digest(account), _member(key)])
        return None if not sealed else self._state.seal.open(f"{key}#data", as_bytes(sealed))

    async def _read(self, key: str) -> Record | None:
        async with guard():
            sealed = await self._state.client.hget(key, "record")
        if sealed is None:
            return None
        return self._state.seal.open_json(f"{key}#record", as_bytes(sealed), Record)

    def _seal_record(self, key: str, record: Record) -> bytes:
        return self._state.seal.seal(f"{key}#record", msgspec.json.encode(record))

    def _seal_data(self, key: str, data: bytes) -> bytes:
        return self._state.seal.seal(f"{key}#data", data)

    def _key(self, record_id: str) -> str:
        return self._state.keys.key(KIND, record_id)

    def _index(self, what: str, account: str) -> str:
        return self._state.keys.key(f"transfers-{what}", account)

    def _grant(self, principal: str) -> str:
        return self._state.keys.key("transfers-grant", principal)


class RedisTransferStore(Transfers):
    """The uploads and deliveries of every instance
    (:class:`~sevdesk_mcp.safety.transfers.TransferStore`).

    :param state: the shared state.
    :param limits: the limits (the module's constants by default).
    :param clock: seconds since the epoch, by which a record's expiry is judged (injectable for
        tests; the keys expire on Redis's clock).
    """

    def __init__(
        self,
        state: SharedState,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(RedisTransfers(state), limits, clock)


def _member(key: str) -> str:
    return key.rpartition(":")[2]


def _text(value: object) -> str:
    return as_bytes(value).decode()
