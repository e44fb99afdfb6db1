"""Every row of the nonce table (:mod:`sevdesk_mcp.safety.nonce_table`) run through both
backends: what the one atomic take finds, and what the store answers for it."""

from __future__ import annotations

import anyio
import pytest

from sevdesk_mcp.safety.nonce_table import ACCEPT, Found
from sevdesk_mcp.safety.nonces import MemoryNonces, NonceBackend, Nonces
from sevdesk_mcp.safety.nonces_redis import KIND, RedisNonces
from sevdesk_mcp.shared.redis import SharedState

pytestmark = pytest.mark.anyio
SHORT_S = 0.05


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> NonceBackend:
    """Either backend, its nonces living :data:`SHORT_S`."""
    if request.param == "memory":
        return MemoryNonces(ttl_s=SHORT_S)
    return RedisNonces(request.getfixturevalue("shared_state"), ttl_s=SHORT_S)


async def test_an_unused_nonce_is_found_unused_once_and_accepted(backend: NonceBackend) -> None:
    await backend.put("n-1")
    assert await backend.take("n-1") == "unused"
    assert await backend.take("n-1") == "absent"
    store = Nonces(backend)
    nonce = await store.issue()
    assert await store.consume(nonce) is ACCEPT["unused"]
    assert await store.consume(nonce) is ACCEPT["absent"]


async def test_a_nonce_never_issued_is_found_absent_and_refused(backend: NonceBackend) -> None:
    assert await backend.take("never") == "absent"
    assert await Nonces(backend).consume("never") is ACCEPT["absent"]


async def test_an_expired_nonce_is_refused(backend: NonceBackend) -> None:
    store = Nonces(backend)
    nonce = await store.issue()
    await anyio.sleep(SHORT_S * 3)
    found: Found = await backend.take(nonce)
    assert found in {"expired", "absent"}  # Redis let the key expire: absent
    assert not ACCEPT[found]
    other = await store.issue()
    await anyio.sleep(SHORT_S * 3)
    assert not await store.consume(other)


async def test_a_forged_mark_is_found_forged_and_refused(shared_state: SharedState) -> None:
    backend = RedisNonces(shared_state)
    await shared_state.client.set(shared_state.keys.key(KIND, "made-up"), b"unused")
    assert await backend.take("made-up") == "forged"
    await shared_state.client.set(shared_state.keys.key(KIND, "made-up"), b"unused")
    assert await Nonces(backend).consume("made-up") is ACCEPT["forged"]
    assert await shared_state.client.get(shared_state.keys.key(KIND, "made-up")) is None
