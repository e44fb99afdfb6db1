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

import secrets
import time
from collections.abc import Callable
from typing import Final

import msgspec

from sevdesk_mcp.errors import TransferRefusedError
from sevdesk_mcp.safety.files import LocalFile
from sevdesk_mcp.safety.transfers import (
    ID_BYTES,
    NOT_FILLED,
    NOT_YOURS,
    SLOT_GONE,
    UPLOAD_PREFIX,
    Holder,
    Kind,
    Limits,
    Owner,
    Record,
    Upload,
    delivery,
    filled_slot,
    local_file,
    too_many_bytes,
    too_many_files,
)
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
local function held(sizes)
  local total = 0
  for _, v in ipairs(redis.call('HVALS', sizes)) do total = total + tonumber(v) end
  return total
end
local function keep(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
"""
# KEYS: record, account index, grant index, sizes. ARGV: member, ttl ms, max records of the
# account, of the grant, max bytes, size, sealed record, kind, account digest, sealed data.
_ADD: Final = (
    _PRUNE
    + """
local now = now_ms()
prune(KEYS[2], KEYS[3], KEYS[4], now)
local account, grant = redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3])
if account >= tonumber(ARGV[3]) then return {'account', account} end
if grant >= tonumber(ARGV[4]) then return {'grant', grant} end
local size, ttl = tonumber(ARGV[6]), tonumber(ARGV[2])
if held(KEYS[4]) + size > tonumber(ARGV[5]) then return {'bytes', 0} end
local filled = '0'
if ARGV[10] ~= '' then filled = '1' end
redis.call('HSET', KEYS[1], 'record', ARGV[7], 'kind', ARGV[8], 'account', ARGV[9],
  'filled', filled, 'grant', KEYS[3])
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'data', ARGV[10]) end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], size)
keep(KEYS[2], ttl) keep(KEYS[3], ttl) keep(KEYS[4], ttl)
return {'ok', 0}
"""
)
# KEYS: record, account index, sizes. ARGV: account digest, size, max bytes, sealed record,
# sealed data, member.
_FILL: Final = (
    _PRUNE
    + """
local kind, account, filled = unpack(redis.call('HMGET', KEYS[1], 'kind', 'account', 'filled'))
if kind ~= 'upload' or account ~= ARGV[1] or filled ~= '0' then return 'gone' end
prune(KEYS[2], false, KEYS[3], now_ms())
if held(KEYS[3]) + tonumber(ARGV[2]) > tonumber(ARGV[3]) then return 'bytes' end
redis.call('HSET', KEYS[1], 'record', ARGV[4], 'data', ARGV[5], 'filled', '1')
redis.call('HSET', KEYS[3], ARGV[6], ARGV[2])
return 'ok'
"""
)
# KEYS: record, account index, grant index, sizes. ARGV: account digest, member.
_TAKE: Final = """
local kind, account = unpack(redis.call('HMGET', KEYS[1], 'kind', 'account'))
if kind ~= 'download' or account ~= ARGV[1] then return false end
local found = redis.call('HMGET', KEYS[1], 'record', 'data')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[2])
return found
"""


class RedisTransferStore:
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
        self._state = state
        self._clock = clock
        self.limits = limits or Limits()
        self._add = state.script(_ADD)
        self._fill = state.script(_FILL)
        self._take = state.script(_TAKE)

    async def request_upload(self, owner: Owner) -> Record:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.request_upload`.

        :raises TransferRefusedError: if the grant or the account holds too many records.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        record = Record(_new_id(), "upload", owner, self._expiry("upload"))
        await self._insert(record, b"")
        return record

    async def offer(self, owner: Owner, name: str, media_type: str, data: bytes) -> Record:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.offer`.

        :raises TransferRefusedError: if a limit would be exceeded.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        record = delivery(_new_id(), owner, self._expiry("download"), name, media_type, data)
        await self._insert(record, data)
        return record

    async def slot(self, record_id: str, holder: Holder) -> Record | None:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.slot`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        record = await self._live(record_id, "upload", holder)
        return record if record is not None and not record.filled else None

    async def pending_uploads(self, holder: Holder) -> list[Record]:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.pending_uploads` (the
        account's index, each record's owner checked against ``holder``).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        index = self._state.keys.key("transfers-account", holder.account)
        async with guard():
            members = await self._state.client.zrangebyscore(index, self._clock() * 1000, "+inf")
        found: list[Record] = []
        for member in members:
            record = await self._read(self._state.keys.plain(KIND, _text(member)))
            if record is not None and holder.holds(record):
                found.append(record)
        return [r for r in found if r.kind == "upload" and not r.filled]

    async def fill(self, record_id: str, holder: Holder, upload: Upload) -> Record:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.fill` (the slot's owner is
        checked against ``holder`` in its sealed record first).

        :raises TransferRefusedError: as the protocol says.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        record = await self.slot(record_id, holder)
        if record is None:
            raise TransferRefusedError(SLOT_GONE)
        account = holder.account
        filled = filled_slot(record, upload, self.limits)
        key = self._state.keys.key(KIND, record_id)
        keys = [key, self._index("account", account), self._index("bytes", account)]
        args: list[str | bytes | int] = [digest(account), filled.size]
        args += [self.limits.max_bytes_per_account, self._seal_record(key, filled)]
        args += [self._seal_data(key, upload.data), key.rpartition(":")[2]]
        async with guard():
            answer = _text(await self._fill(keys=keys, args=args))
        if answer == "bytes":
            raise too_many_bytes(self.limits)
        if answer != "ok":
            raise TransferRefusedError(SLOT_GONE)
        return filled

    async def read_upload(self, reference: str, principal: str) -> LocalFile:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.read_upload`.

        :raises TransferRefusedError: as the protocol says.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        record_id = reference.strip().removeprefix(UPLOAD_PREFIX)
        key = self._state.keys.key(KIND, record_id)
        record = await self._read(key) if record_id else None
        if record is None or record.kind != "upload" or record.owner.principal != principal:
            raise TransferRefusedError(NOT_YOURS.format(reference=reference[:60]))
        async with guard():
            sealed = await self._state.client.hget(key, "data")
        if not record.filled or sealed is None:
            raise TransferRefusedError(NOT_FILLED.format(reference=reference[:60]))
        return local_file(reference, record, self._state.seal.open(f"{key}#data", as_bytes(sealed)))

    async def download(self, record_id: str, holder: Holder) -> tuple[Record, bytes] | None:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.download`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        record = await self._live(record_id, "download", holder)
        if record is None:
            return None
        account = holder.account
        key = self._state.keys.key(KIND, record_id)
        keys = [key, self._index("account", account)]
        keys += [self._grant(record.owner), self._index("bytes", account)]
        async with guard():
            found = await self._take(keys=keys, args=[digest(account), key.rpartition(":")[2]])
        if not found or found[1] is None:
            return None
        return record, self._state.seal.open(f"{key}#data", as_bytes(found[1]))

    async def peek(self, record_id: str, holder: Holder) -> Record | None:
        """See :meth:`~sevdesk_mcp.safety.transfers.TransferStore.peek`.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        return await self._live(record_id, "download", holder)

    async def _insert(self, record: Record, data: bytes) -> None:
        key = self._state.keys.key(KIND, record.id)
        account = record.owner.account
        ttl = self.limits.upload_ttl_s if record.kind == "upload" else self.limits.download_ttl_s
        keys = [key, self._index("account", account), self._grant(record.owner)]
        keys.append(self._index("bytes", account))
        args: list[str | bytes | int] = [key.rpartition(":")[2], int(ttl * 1000)]
        args += [self.limits.max_records_per_account, self.limits.max_records_per_grant]
        args += [self.limits.max_bytes_per_account, record.size]
        args += [self._seal_record(key, record), record.kind, digest(account)]
        args.append(self._seal_data(key, data) if record.filled else b"")
        async with guard():
            answer = await self._add(keys=keys, args=args)
        what, held = _text(answer[0]), int(answer[1])
        if what == "account":
            raise too_many_files(held, self.limits.max_records_per_account, "This account")
        if what == "grant":
            limit = self.limits.max_records_per_grant
            raise too_many_files(held, limit, "This connection (grant)")
        if what == "bytes":
            raise too_many_bytes(self.limits)

    async def _live(self, record_id: str, kind: Kind, holder: Holder) -> Record | None:
        if not record_id:
            return None
        record = await self._read(self._state.keys.key(KIND, record_id))
        if record is None or record.kind != kind or not holder.holds(record):
            return None
        return record

    async def _read(self, key: str) -> Record | None:
        async with guard():
            sealed = await self._state.client.hget(key, "record")
        if sealed is None:
            return None
        record = self._state.seal.open_json(f"{key}#record", as_bytes(sealed), Record)
        return record if record.expires > self._clock() else None

    def _seal_record(self, key: str, record: Record) -> bytes:
        return self._state.seal.seal(f"{key}#record", msgspec.json.encode(record))

    def _seal_data(self, key: str, data: bytes) -> bytes:
        return self._state.seal.seal(f"{key}#data", data)

    def _index(self, what: str, account: str) -> str:
        return self._state.keys.key(f"transfers-{what}", account)

    def _grant(self, owner: Owner) -> str:
        return self._state.keys.key("transfers-grant", owner.principal)

    def _expiry(self, kind: Kind) -> float:
        ttl = self.limits.upload_ttl_s if kind == "upload" else self.limits.download_ttl_s
        return self._clock() + ttl


def _new_id() -> str:
    return secrets.token_urlsafe(ID_BYTES)


def _text(value: object) -> str:
    return as_bytes(value).decode()
