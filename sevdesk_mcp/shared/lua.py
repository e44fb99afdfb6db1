"""Lua both token buckets on Redis begin with (the rate limits per client and the pacer per
sevDesk account): Redis's own clock, and the bucket refilled up to now.

``KEYS[1]`` is a hash ``{tokens, at}``; ``ARGV[1]`` the rate per second and ``ARGV[2]`` the
burst. After this prelude the locals ``now`` (microseconds), ``rate``, ``burst``, ``tokens``
(refilled) and ``at`` hold; a missing hash is a full bucket.
"""

from __future__ import annotations

from typing import Final

BUCKET_REFILL: Final = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(saved[1]) or burst
local at = tonumber(saved[2]) or now
if now < at then now = at end
tokens = math.min(burst, tokens + (now - at) / 1000000 * rate)
"""
