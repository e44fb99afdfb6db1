"""The Lua scripts of the Redis session store: each runs atomically in Redis, reading Redis's
own clock (``TIME``), so the instances' clocks do not matter. What they decide is
``session_table``'s: the create script is handed the caps in the table's order and the busy
rule as flags, the touch script the busy lease. They name keys they derive from
their arguments: one Redis server, not a cluster."""

from __future__ import annotations

from typing import Final

_LUA_NOW: Final = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""

_LUA_REMOVE: Final = """
local function remove(ns, all, d)
  local meta = ns .. 'session-meta:' .. d
  local owners = redis.call('HMGET', meta, 'owner', 'account')
  if owners[1] then redis.call('ZREM', owners[1], d) end
  if owners[2] then redis.call('ZREM', owners[2], d) end
  redis.call('ZREM', all, d)
  redis.call('DEL', ns .. 'session:' .. d, meta, ns .. 'session-events:' .. d,
    ns .. 'session-waits:' .. d)
end
"""

# KEYS: all, owner, account, record, meta; ARGV: idle ms, the caps in session_table.CAPS order
# (principal, account, server), new digest, sealed record, key prefix, then session_table's
# busy_flags() (busy for running/within lease: yes/yes, yes/no, no/yes, no/no). Returns
# {0, evicted...}, or {i} for the cap i (1-based, the table's order) whose sessions are all busy.
CREATE: Final = (
    _LUA_NOW
    + _LUA_REMOVE
    + """
local idle = tonumber(ARGV[1])
local ns = ARGV[7]
local function busy(d)
  local m = redis.call('HMGET', ns .. 'session-meta:' .. d, 'active', 'busy_until')
  local row = (tonumber(m[1] or '0') > 0 and 0 or 2) + (tonumber(m[2] or '0') > now and 0 or 1)
  return ARGV[8 + row] == '1'
end
local function evict(z)
  for _, d in ipairs(redis.call('ZRANGE', z, 0, -1)) do
    if not busy(d) then remove(ns, KEYS[1], d) return d end
  end
  return false
end
for i = 1, 3 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - idle) end
local evicted = {}
local caps = {{KEYS[2], ARGV[2]}, {KEYS[3], ARGV[3]}, {KEYS[1], ARGV[4]}}
for i, cap in ipairs(caps) do
  if redis.call('ZCARD', cap[1]) >= tonumber(cap[2]) then
    local d = evict(cap[1])
    if not d then return {i} end
    table.insert(evicted, d)
  end
end
redis.call('SET', KEYS[4], ARGV[6], 'PX', idle)
redis.call('HSET', KEYS[5], 'owner', KEYS[2], 'account', KEYS[3], 'active', 0,
  'busy_until', 0, 'seq', 0, 'sent', 0, 'gen', 0)
redis.call('PEXPIRE', KEYS[5], idle)
for i = 1, 3 do
  redis.call('ZADD', KEYS[i], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[i], idle)
end
return {0, unpack(evicted)}
"""
)

# KEYS: all, owner, account, record, meta, events, waits; ARGV: idle ms, digest, sealed record
# or '', change of the busy count, busy lease ms. Returns 1, or 0 if the session is gone.
TOUCH: Final = (
    _LUA_NOW
    + """
if redis.call('EXISTS', KEYS[4]) == 0 then return 0 end
local idle = tonumber(ARGV[1])
if ARGV[3] ~= '' then
  redis.call('SET', KEYS[4], ARGV[3], 'PX', idle)
else
  redis.call('PEXPIRE', KEYS[4], idle)
end
local delta = tonumber(ARGV[4])
if delta ~= 0 then
  if redis.call('HINCRBY', KEYS[5], 'active', delta) < 0 then
    redis.call('HSET', KEYS[5], 'active', 0)
  end
  if delta > 0 then redis.call('HSET', KEYS[5], 'busy_until', now + tonumber(ARGV[5])) end
end
for i = 5, 7 do redis.call('PEXPIRE', KEYS[i], idle) end
for i = 1, 3 do
  redis.call('ZADD', KEYS[i], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], idle)
end
return 1
"""
)

# KEYS: all; ARGV: digest, key prefix.
REMOVE: Final = _LUA_REMOVE + "remove(ARGV[2], KEYS[1], ARGV[1])\nreturn 1\n"

# KEYS: record, meta, events; ARGV: kept events, sealed message. Returns the event id or 0.
APPEND: Final = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local id = redis.call('HINCRBY', KEYS[2], 'seq', 1)
redis.call('ZADD', KEYS[3], id, ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[1]) + 1))
redis.call('PEXPIRE', KEYS[3], math.max(1, redis.call('PTTL', KEYS[1])))
return id
"""

# KEYS: meta; ARGV: event id. The highest event a stream sent.
SENT: Final = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'sent') or '0') < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'sent', ARGV[1])
end
return 1
"""

# KEYS: record, meta. The generation of a new GET stream; 0 if the session is gone (the meta
# key is never created without the record, so it always expires with it).
OPEN_STREAM: Final = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[2], 'gen', 1)
"""
