"""Every row of the grant table (:mod:`sevdesk_mcp.http.oauth.grant_table`) run through the
memory, file and Redis backends: what a refresh does by the generation found (the Redis script
handed the table's row), a code's single use, and the cap of registered clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from sevdesk_mcp.http.oauth.grant_table import CLAIM, ROTATE, Generation, Rotate, excess
from sevdesk_mcp.http.oauth.redis_store import GRANT, RedisGrants
from sevdesk_mcp.http.oauth.store import (
    FileGrants,
    Grant,
    GrantBackend,
    Grants,
    MemoryGrants,
    RegisteredClient,
)
from sevdesk_mcp.shared.redis import SharedState
from tests.clock import Clock

pytestmark = pytest.mark.anyio
CAP = 3
GRANT_1 = Grant(
    id="g_1",
    account="84210",
    account_name="Muster GmbH",
    client_id="c_client",
    client_name="Client",
    client_host=None,
    tiers=("read",),
    created=900,
    expires=2_000,
)


@pytest.fixture
def clock() -> Clock:
    return Clock(1_000.0)


@pytest.fixture(params=["memory", "file", "redis"])
def backend(request: pytest.FixtureRequest, clock: Clock, tmp_path: Path) -> Iterator[GrantBackend]:
    """Each backend, on the test's clock."""
    if request.param == "memory":
        yield MemoryGrants(clock=clock)
    elif request.param == "file":
        made = FileGrants(tmp_path / "state", clock)
        yield made
        made.release()
    else:
        yield RedisGrants(request.getfixturevalue("shared_state"), clock)


async def _into(store: Grants, found: Generation, clock: Clock) -> int:
    """:returns: the generation a refresh presents to find ``found``."""
    if found == "absent":
        await store.add_grant(msgspec.structs.replace(GRANT_1, expires=1_500))
        clock.now = 1_600.0  # ended
        return 0
    await store.add_grant(GRANT_1)
    if found == "other":
        assert await store.rotate("g_1", 0, 3_000) is not None
    return 0


@pytest.mark.parametrize("found", ["absent", "current", "other"])
async def test_every_rotate_row_holds_on_every_backend(
    backend: GrantBackend, clock: Clock, found: Generation
) -> None:
    store = Grants(backend, clock)
    presented = await _into(store, found, clock)
    rotated = await store.rotate("g_1", presented, 4_000)
    step = ROTATE[found]
    assert (rotated is not None) is (step is Rotate.ROTATE)
    left = await store.grant("g_1")
    if step is Rotate.ROTATE:
        assert left == rotated and left is not None and left.generation == presented + 1
    else:
        assert left is None  # revoked, or ended already


@pytest.mark.parametrize("revokes", ["1", "0"])
async def test_the_backend_revokes_on_another_generation_only_as_the_row_says(
    backend: GrantBackend, clock: Clock, revokes: str
) -> None:
    await backend.put(msgspec.structs.replace(GRANT_1, generation=1))
    replayed = msgspec.structs.replace(GRANT_1, generation=1, expires=3_000)
    assert await backend.swap(replayed, 0, revokes) == "other"
    assert (await backend.get("g_1") is None) is (revokes == "1")


async def test_a_generation_failing_its_check_revokes_the_family(
    shared_state: SharedState, clock: Clock
) -> None:
    store = Grants(RedisGrants(shared_state, clock), clock)
    await store.add_grant(GRANT_1)
    key = shared_state.keys.key(GRANT, "g_1")
    await shared_state.client.hset(key, "gen", b"0")  # untagged: written without the secret
    assert await store.rotate("g_1", 0, 3_000) is None
    assert await store.grant("g_1") is None


async def test_every_claim_row_holds_on_every_backend(backend: GrantBackend) -> None:
    store = Grants(backend)
    assert await store.claim_code("code-1", 1_060) == (CLAIM["unclaimed"], None)
    await store.link_code("code-1", "g_1")
    assert await store.claim_code("code-1", 1_060) == (CLAIM["claimed"], "g_1")


@pytest.mark.parametrize("count", range(CAP + 3))
async def test_the_client_cap_row_holds_on_every_backend(backend: GrantBackend, count: int) -> None:
    store = Grants(backend, max_clients=CAP)
    names = [f"c_{n}" for n in range(count)]
    for name in names:
        await store.add_client(
            RegisteredClient(client_id=name, client_name=name, redirect_uris=(), created=1)
        )
    dropped = excess(count, CAP)
    kept = [name for name in names if await store.client(name) is not None]
    assert kept == names[dropped:]
    if names:  # registering an id again adds none
        await store.add_client(
            RegisteredClient(client_id=names[-1], client_name="again", redirect_uris=(), created=1)
        )
        assert [n for n in names if await store.client(n) is not None] == names[dropped:]
