"""Single-use nonces: one contract for this process's store and the shared state's, then what
only the shared one must show (two instances consuming one nonce at the same moment accept it
once; the nonce never stands in Redis; every key expires)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from sevdesk_mcp.safety.nonces import MemoryNonceStore, NonceStore
from sevdesk_mcp.safety.nonces_redis import RedisNonceStore
from sevdesk_mcp.shared.redis import SharedState, open_state

pytestmark = pytest.mark.anyio
SECRETS = ["test-secret-" + "x" * 32]
SHORT_S = 0.3


def _store(request: pytest.FixtureRequest, ttl_s: float = 600.0) -> NonceStore:
    if request.param == "memory":
        return MemoryNonceStore(ttl_s=ttl_s)
    return RedisNonceStore(request.getfixturevalue("shared_state"), ttl_s=ttl_s)


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> NonceStore:
    """The nonce store under test."""
    return _store(request)


@pytest.fixture(params=["memory", "redis"])
def short(request: pytest.FixtureRequest) -> NonceStore:
    """A store whose nonces live :data:`SHORT_S`."""
    return _store(request, SHORT_S)


@pytest.fixture
async def other(shared_state: SharedState, redis_url: str) -> AsyncIterator[SharedState]:
    """A second instance: its own Redis client on the same namespace."""
    state = open_state(redis_url, SECRETS, namespace=shared_state.keys.namespace)
    yield state
    await state.aclose()


async def test_a_nonce_is_accepted_once(store: NonceStore) -> None:
    first, second = await store.issue(), await store.issue()
    assert first != second and len(first) >= 22
    assert await store.consume(first)
    assert not await store.consume(first)
    assert await store.consume(second)


@pytest.mark.parametrize("made_up", [None, "", "made-up", 7, ["x"]])
async def test_what_was_never_issued_is_refused(store: NonceStore, made_up: object) -> None:
    assert not await store.consume(made_up)


async def test_a_nonce_expires(short: NonceStore) -> None:
    nonce = await short.issue()
    await anyio.sleep(SHORT_S + 0.2)
    assert not await short.consume(nonce)


async def test_two_instances_consuming_at_once_accept_each_nonce_once(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisNonceStore(shared_state), RedisNonceStore(other)
    nonces = [await one.issue() for _ in range(20)]
    accepted: list[str] = []

    async def consume(store: RedisNonceStore, nonce: str) -> None:
        if await store.consume(nonce):
            accepted.append(nonce)

    async with anyio.create_task_group() as group:
        for nonce in nonces:
            group.start_soon(consume, one, nonce)
            group.start_soon(consume, two, nonce)
    assert sorted(accepted) == sorted(nonces)


async def test_no_nonce_stands_in_redis_and_every_key_expires(shared_state: SharedState) -> None:
    store = RedisNonceStore(shared_state)
    nonces = [await store.issue() for _ in range(3)]
    keys = [
        k async for k in shared_state.client.scan_iter(match=f"{shared_state.keys.namespace}:*")
    ]
    assert len(keys) == 3
    for key in keys:
        value = await shared_state.client.get(key)
        assert all(n.encode() not in key + (value or b"") for n in nonces)
        assert 0 < await shared_state.client.pttl(key) <= 600_000
