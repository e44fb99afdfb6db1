"""The grant store on Redis: several instances behind a load balancer share grants, refresh
families, revocations, registered clients and the single use of authorization codes.

Keys (``<ns>`` is the namespace of :class:`~sevdesk_mcp.shared.keys.Keys`; ``<d(x)>`` the
SHA-256 digest of ``x``, so no grant id, client id or code id appears in a key name):

==================================  ==========  =================================================
key                                 type        holds, and when it expires
==================================  ==========  =================================================
``<ns>:oauth-grant:<d(grant id)>``  hash        ``gen``: the generation of the refresh token that
                                                may still be used (a number, tagged for
                                                ``<key>#gen``, for the compare-and-set);
                                                ``data``: the grant (ids, account, client,
                                                tiers, times), sealed. Expires with the grant;
                                                a refresh renews both.
``<ns>:oauth-grants:index``         sorted set  the digests of the grants, scored by their end
                                                (``grants list``); pruned of ended ones on every
                                                change, expires with the last grant.
``<ns>:oauth-revoked:<d(grant)>``   string      when the grant was revoked (epoch seconds);
                                                90 days.
``<ns>:oauth-client:<d(client)>``   string      a registered client, sealed; 90 days after its
                                                registration or its last use.
``<ns>:oauth-clients:index``        sorted set  the digests of registered clients in the order
                                                of registration (the oldest is dropped beyond
                                                ``MAX_CLIENTS``); 90 days after the last one.
``<ns>:oauth-code:<d(code id)>``    string      a redeemed authorization code: empty, then the
                                                id of the grant it created, sealed; until the
                                                code would have expired (60 s).
==================================  ==========  =================================================

No value holds a token: the sevDesk token lives only inside the sealed tokens the clients hold.
Every sealed value is bound to its key name (:class:`~sevdesk_mcp.shared.seal.Seal`).

What decides and is not secret is tagged (HMAC under a key derived from the server secret,
bound to the key name): the generation. A refresh compares the stored value with the tags of
the presented generation, so one set by someone who can write to Redis but lacks the secret
(an old generation, to let a replayed refresh token in) matches none: the refresh is treated
as a replay and the family is revoked. Not tagged, because they decide nothing a writer to
Redis could not decide by deleting keys: the revocation marker (written for the record and
never read: a grant is revoked by deleting its key, so a marker changed or removed changes
nothing, and a deleted grant cannot come back without its sealed value); a code's claim
(its existence is what decides, in the safe direction: a claimed code is refused; a value
that is not the sealed grant id fails to open, and the token request fails); the indexes
(which grants are listed and which clients are dropped beyond the cap: each listed grant
still opens only under its own key; a forged entry can only drop a registered client, as
deleting it would).

Every rule is :mod:`~sevdesk_mcp.http.oauth.grant_table`'s, taken by
:class:`~sevdesk_mcp.http.oauth.store.Grants`; :class:`RedisGrants` only fetches and stores,
and the rotating script, which compares inside Redis, is handed the table's row for a
generation other than the presented one.

Atomicity: a code's claim is one Lua script (``SET NX``, or the linked grant on a later claim),
so of two instances redeeming one code at the same moment exactly one succeeds. A refresh is
one Lua script comparing the generation and either moving it on or, on a mismatch (a replayed
refresh token, whichever instance it reaches), deleting the grant: the family is revoked.
Adding a client and dropping the oldest is one script too. The scripts touch only keys of this
store; they need one Redis (standalone, or a primary with replicas), not Redis Cluster.

Grants end by the store's clock (the grant's ``expires``); each key's time to live is counted
from it, so Redis drops a key no earlier than the store would ignore it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

import msgspec

from sevdesk_mcp.errors import StartupError, StateUnavailableError
from sevdesk_mcp.http.oauth.grant_table import REVOCATION_KEEP_S, Claim, Generation
from sevdesk_mcp.http.oauth.store import (
    MAX_CLIENTS,
    FileGrantStore,
    Grant,
    Grants,
    GrantStore,
    RegisteredClient,
)
from sevdesk_mcp.http.oauth_settings import CLOCK_SKEW_S, OAuthSettings
from sevdesk_mcp.shared.keys import digest
from sevdesk_mcp.shared.redis import SharedState, guard
from sevdesk_mcp.shared.seal import DAMAGED

GRANT: Final = "oauth-grant"
GRANTS: Final = "oauth-grants"
REVOKED: Final = "oauth-revoked"
CLIENT: Final = "oauth-client"
CLIENTS: Final = "oauth-clients"
CODE: Final = "oauth-code"
CLIENT_KEEP_S: Final = 90 * 24 * 3600

_KEEP_INDEX: Final = """
local function keep_index(index, ttl)
  if redis.call('TTL', index) < tonumber(ttl) then redis.call('EXPIRE', index, ttl) end
end
"""
_REVOKE: Final = """
local function revoke(grant, index, revoked, digest, at, keep)
  local existed = redis.call('DEL', grant)
  redis.call('ZREM', index, digest)
  redis.call('SET', revoked, at, 'EX', keep)
  return existed
end
"""
# KEYS: grant, index. ARGV: generation (tagged), sealed grant, ttl, digest, expires, now.
ADD_GRANT: Final = (
    _KEEP_INDEX
    + """
redis.call('HSET', KEYS[1], 'gen', ARGV[1], 'data', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
keep_index(KEYS[2], ARGV[3])
return 1
"""
)
# KEYS: grant, index, revoked. ARGV: next generation (tagged), sealed next grant, ttl, digest,
# expires, now, revocation keep, whether another generation revokes (the table's row), then the
# presented generation tagged under each secret. Returns 1 current (rotated), 0 another (a
# replay, or a value failing its check: revoked as the row says), -1 none.
ROTATE: Final = (
    _KEEP_INDEX
    + _REVOKE
    + """
local gen = redis.call('HGET', KEYS[1], 'gen')
if not gen then return -1 end
local current = false
for i = 9, #ARGV do
  if gen == ARGV[i] then current = true end
end
if not current then
  if ARGV[8] == '1' then revoke(KEYS[1], KEYS[2], KEYS[3], ARGV[4], ARGV[6], ARGV[7]) end
  return 0
end
redis.call('HSET', KEYS[1], 'gen', ARGV[1], 'data', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
keep_index(KEYS[2], ARGV[3])
return 1
"""
)
# KEYS: grant, index, revoked. ARGV: digest, now, revocation keep.
REVOKE: Final = _REVOKE + "return revoke(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3])"
# KEYS: code. ARGV: ttl. Returns {1} for the first claim, {0, value} for every later one.
CLAIM: Final = """
if redis.call('SET', KEYS[1], '', 'NX', 'EX', ARGV[1]) then return {1} end
return {0, redis.call('GET', KEYS[1])}
"""
# KEYS: client, index. ARGV: digest, sealed client, keep, cap, client key prefix. Drops the
# table's excess: the oldest beyond the cap, the new one counted.
ADD_CLIENT: Final = """
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000000 + tonumber(t[2]), ARGV[1])
end
redis.call('EXPIRE', KEYS[2], ARGV[3])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local dropped = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #dropped, 2 do redis.call('DEL', ARGV[5] .. dropped[i]) end
end
return 1
"""

T = TypeVar("T")
Arg = bytes | str | int | float
_decode_grant = msgspec.msgpack.Decoder(Grant)
_decode_client = msgspec.msgpack.Decoder(RegisteredClient)


class RedisGrants:
    """A :class:`~sevdesk_mcp.http.oauth.store.GrantBackend` on Redis (see the module
    docstring). Each method raises :class:`~sevdesk_mcp.errors.StateUnavailableError` if Redis
    cannot be reached or a value does not open.

    :param state: the shared state (its client, key names and seal); the caller closes it.
    :param clock: seconds since the epoch (each key's time to live is counted from it).
    """

    def __init__(self, state: SharedState, clock: Callable[[], float] = time.time) -> None:
        self._state = state
        self._now = clock
        self._grants_index = state.keys.plain(GRANTS, "index")
        self._clients_index = state.keys.plain(CLIENTS, "index")
        self._add_grant = state.script(ADD_GRANT)
        self._rotate = state.script(ROTATE)
        self._revoke = state.script(REVOKE)
        self._claim = state.script(CLAIM)
        self._add_client = state.script(ADD_CLIENT)

    async def get(self, grant_id: str) -> Grant | None:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.get`."""
        key = self._key(GRANT, grant_id)
        async with guard():
            sealed = _raw(await self._state.client.hget(key, "data"))
        return self._opened(key, sealed)

    async def listed(self) -> list[Grant]:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.listed` (ended ones are
        pruned from the index)."""
        client, index = self._state.client, self._grants_index
        async with guard():
            await client.zremrangebyscore(index, "-inf", int(self._now()))
            digests = await client.zrange(index, 0, -1)
            pipe = client.pipeline(transaction=False)
            keys = [self._state.keys.plain(GRANT, _text(d)) for d in digests]
            for key in keys:
                pipe.hget(key, "data")
            values = await pipe.execute() if keys else []
        found = (self._opened(key, _raw(v)) for key, v in zip(keys, values, strict=True))
        return [g for g in found if g is not None]

    async def put(self, grant: Grant) -> None:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.put`: its key expires when
        it ends."""
        key = self._key(GRANT, grant.id)
        args: list[Arg] = [self._generation(key, grant.generation), self._seal_grant(key, grant)]
        args += [self._ttl(grant.expires)]
        args += [digest(grant.id), grant.expires, int(self._now())]
        async with guard():
            await self._add_grant(keys=[key, self._grants_index], args=args)

    async def swap(self, rotated: Grant, generation: int, revokes: str) -> Generation:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.swap`: one script comparing
        the stored tag with the presented generation's tags."""
        key = self._key(GRANT, rotated.id)
        args: list[Arg] = [self._generation(key, rotated.generation)]
        args += [self._seal_grant(key, rotated), self._ttl(rotated.expires)]
        args += [digest(rotated.id), rotated.expires, int(self._now()), REVOCATION_KEEP_S]
        args += [revokes, *self._state.seal.tags(f"{key}#gen", b"%d" % generation)]
        async with guard():
            done = int(
                await self._rotate(keys=[key, *self._revocation_keys(rotated.id)], args=args)
            )
        return "current" if done == 1 else "other" if done == 0 else "absent"

    async def delete(self, grant_id: str, at: int) -> bool:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.delete`: one script."""
        keys = [self._key(GRANT, grant_id), *self._revocation_keys(grant_id)]
        args: list[Arg] = [digest(grant_id), at, REVOCATION_KEEP_S]
        async with guard():
            existed = await self._revoke(keys=keys, args=args)
        return int(existed) == 1

    async def client(self, client_id: str) -> RegisteredClient | None:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.client` (its 90 days start
        again)."""
        key = self._key(CLIENT, client_id)
        async with guard():
            sealed = _raw(await self._state.client.getex(key, ex=CLIENT_KEEP_S))
        if sealed is None:
            return None
        return _decoded(_decode_client, self._state.seal.open(key, sealed))

    async def add_client(self, client: RegisteredClient, cap: int) -> None:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.add_client`: one script."""
        key = self._key(CLIENT, client.client_id)
        sealed = self._state.seal.seal(key, msgspec.msgpack.encode(client))
        prefix = self._state.keys.plain(CLIENT, "")
        args: list[Arg] = [digest(client.client_id), sealed, CLIENT_KEEP_S, cap, prefix]
        async with guard():
            await self._add_client(keys=[key, self._clients_index], args=args)

    async def claim(self, code_id: str, expires: int) -> tuple[Claim, str | None]:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.claim`: ``SET NX`` in one
        script, across every instance."""
        key = self._key(CODE, code_id)
        async with guard():
            # kept a clock skew longer: an instance whose clock is behind still finds the claim
            answer = await self._claim(keys=[key], args=[self._ttl(expires) + CLOCK_SKEW_S])
        if int(answer[0]) == 1:
            return "unclaimed", None
        sealed = _raw(answer[1]) if len(answer) > 1 else None
        if not sealed:
            return "claimed", None
        return "claimed", self._state.seal.open(key, sealed).decode("utf-8")

    async def link(self, code_id: str, grant_id: str) -> None:
        """See :meth:`~sevdesk_mcp.http.oauth.store.GrantBackend.link`."""
        key = self._key(CODE, code_id)
        sealed = self._state.seal.seal(key, grant_id.encode("utf-8"))
        async with guard():
            await self._state.client.set(key, sealed, xx=True, keepttl=True)

    async def aclose(self) -> None:
        """Nothing to let go of: the shared state is closed by whoever opened it."""

    def _key(self, kind: str, ident: str) -> str:
        return self._state.keys.key(kind, ident)

    def _revocation_keys(self, grant_id: str) -> list[str]:
        return [self._grants_index, self._key(REVOKED, grant_id)]

    def _ttl(self, expires: int) -> int:
        return max(1, expires - int(self._now()))

    def _generation(self, key: str, generation: int) -> bytes:
        """:returns: ``generation`` tagged for the grant at ``key``."""
        return self._state.seal.tag(f"{key}#gen", b"%d" % generation)

    def _seal_grant(self, key: str, grant: Grant) -> bytes:
        return self._state.seal.seal(key, msgspec.msgpack.encode(grant))

    def _opened(self, key: str, sealed: bytes | None) -> Grant | None:
        if sealed is None:
            return None
        return _decoded(_decode_grant, self._state.seal.open(key, sealed))


class RedisGrantStore(Grants):
    """A :class:`~sevdesk_mcp.http.oauth.store.GrantStore` on Redis (see the module docstring).

    :param state: the shared state (its client, key names and seal); the caller closes it.
    :param clock: seconds since the epoch (when grants end; tests inject it).
    :param max_clients: the cap of registered clients (tests lower it).
    """

    def __init__(
        self,
        state: SharedState,
        clock: Callable[[], float] = time.time,
        *,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        super().__init__(RedisGrants(state, clock), clock, max_clients=max_clients)


def _raw(value: object) -> bytes | None:
    """:returns: a value as Redis answered it (bytes: responses are never decoded)."""
    if value is None or isinstance(value, bytes):
        return value
    raise StateUnavailableError(DAMAGED)


def _text(value: object) -> str:
    raw = _raw(value)
    if raw is None:
        raise StateUnavailableError(DAMAGED)
    return raw.decode("ascii", "replace")


def _decoded(decoder: msgspec.msgpack.Decoder[T], data: bytes) -> T:
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise StateUnavailableError(DAMAGED) from None


def grant_store_for(oauth: OAuthSettings, state: SharedState | None) -> GrantStore:
    """:returns: the grant store of OAuth mode: on Redis when a shared state is configured
    (``SEVDESK_HTTP_STATE_URL``), else the file store in ``SEVDESK_HTTP_STATE_DIR``.

    :raises StartupError: if the state directory is unusable or locked by another process
        (the file store only; the Redis store connects on first use).
    """
    if state is not None:
        return RedisGrantStore(state)
    return FileGrantStore(state_dir(oauth))


def state_dir(oauth: OAuthSettings) -> Path:
    """:returns: the folder of the file store.

    :raises StartupError: if none is set (the settings allow that only with a state URL).
    """
    if oauth.state_dir is None:
        raise StartupError("SEVDESK_HTTP_STATE_DIR: set it, or SEVDESK_HTTP_STATE_URL")
    return oauth.state_dir
