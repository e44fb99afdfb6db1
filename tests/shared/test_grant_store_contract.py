"""The grant store's contract, run unchanged against the memory, file and Redis stores; then
what only the Redis store must show: two instances, atomic single use and rotation, nothing in
the clear, every key expiring."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest

from sevdesk_mcp.errors import StateUnavailableError
from sevdesk_mcp.http.oauth.redis_store import RedisGrantStore
from sevdesk_mcp.http.oauth.store import (
    FileGrantStore,
    Grant,
    GrantStore,
    MemoryGrantStore,
    RegisteredClient,
)
from sevdesk_mcp.shared.keys import digest
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.clock import Clock
from tests.redis_server import free_port

CAP = 3
SECRET = "test-secret-" + "x" * 32  # the shared_state fixture's


@pytest.fixture
def clock() -> Clock:
    return Clock(1_000.0)


@pytest.fixture(params=["memory", "file", "redis"])
def store(request: pytest.FixtureRequest, clock: Clock, tmp_path: Path) -> Iterator[GrantStore]:
    """Each implementation, with the test's clock and a cap of :data:`CAP` clients (a plain
    fixture: the Redis one is asked for by name, which an async fixture cannot do)."""
    if request.param == "memory":
        yield MemoryGrantStore(clock=clock, max_clients=CAP)
    elif request.param == "file":
        made = FileGrantStore(tmp_path / "state", clock, max_clients=CAP)
        yield made
        made.release()
    else:
        state: SharedState = request.getfixturevalue("shared_state")
        yield RedisGrantStore(state, clock, max_clients=CAP)


def grant(grant_id: str = "g_1", *, created: int = 900, expires: int = 2_000) -> Grant:
    return Grant(
        id=grant_id,
        account="84210",
        account_name="Muster GmbH",
        client_id="c_client",
        client_name="Client",
        client_host=None,
        tiers=("read", "write"),
        created=created,
        expires=expires,
    )


def client(client_id: str) -> RegisteredClient:
    return RegisteredClient(
        client_id=client_id,
        client_name=f"name of {client_id}",
        redirect_uris=("http://127.0.0.1:9/cb",),
        created=1,
    )


# the contract ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_grant_is_kept_until_it_expires(store: GrantStore, clock: Clock) -> None:
    assert await store.grant("g_1") is None
    await store.add_grant(grant("g_1", expires=1_500))
    assert await store.grant("g_1") == grant("g_1", expires=1_500)
    clock.now = 1_500.0
    assert await store.grant("g_1") is None
    assert await store.grants() == []


@pytest.mark.anyio
async def test_grants_lists_the_live_ones_oldest_first(store: GrantStore, clock: Clock) -> None:
    await store.add_grant(grant("g_new", created=950))
    await store.add_grant(grant("g_old", created=910))
    await store.add_grant(grant("g_ending", created=900, expires=1_100))
    assert [g.id for g in await store.grants()] == ["g_ending", "g_old", "g_new"]
    clock.now = 1_100.0
    assert [g.id for g in await store.grants()] == ["g_old", "g_new"]
    await store.add_grant(grant("g_later", created=1_100))  # prunes as it adds
    assert [g.id for g in await store.grants()] == ["g_old", "g_new", "g_later"]


@pytest.mark.anyio
async def test_a_rotation_moves_the_generation_and_renews_the_grant(
    store: GrantStore, clock: Clock
) -> None:
    await store.add_grant(grant("g_1", expires=1_500))
    rotated = await store.rotate("g_1", 0, 3_000)
    assert rotated is not None and (rotated.generation, rotated.expires) == (1, 3_000)
    clock.now = 2_000.0  # past the first end, before the renewed one
    assert await store.grant("g_1") == rotated
    again = await store.rotate("g_1", 1, 4_000)
    assert again is not None and again.generation == 2
    assert [g.generation for g in await store.grants()] == [2]


@pytest.mark.anyio
async def test_a_replayed_generation_revokes_the_whole_family(store: GrantStore) -> None:
    await store.add_grant(grant("g_1"))
    await store.add_grant(grant("g_2"))
    assert await store.rotate("g_1", 0, 3_000) is not None
    assert await store.rotate("g_1", 0, 3_000) is None  # replay
    assert await store.grant("g_1") is None
    assert await store.rotate("g_1", 1, 3_000) is None  # the current one is gone too
    assert [g.id for g in await store.grants()] == ["g_2"]


@pytest.mark.anyio
async def test_rotating_an_unknown_or_ended_grant_gives_nothing(
    store: GrantStore, clock: Clock
) -> None:
    assert await store.rotate("g_unknown", 0, 3_000) is None
    await store.add_grant(grant("g_1", expires=1_500))
    clock.now = 1_600.0
    assert await store.rotate("g_1", 0, 3_000) is None
    assert await store.grant("g_1") is None


@pytest.mark.anyio
async def test_a_revoked_grant_is_gone(store: GrantStore) -> None:
    await store.add_grant(grant("g_1"))
    await store.add_grant(grant("g_2"))
    assert await store.revoke("g_1") is True
    assert await store.grant("g_1") is None
    assert await store.revoke("g_1") is False
    assert await store.revoke("g_missing") is False
    assert await store.rotate("g_1", 0, 3_000) is None
    assert [g.id for g in await store.grants()] == ["g_2"]


@pytest.mark.anyio
async def test_registered_clients_are_kept_up_to_the_cap_oldest_dropped(
    store: GrantStore,
) -> None:
    assert await store.client("c_0") is None
    for n in range(CAP + 2):
        await store.add_client(client(f"c_{n}"))
    assert await store.client("c_0") is None and await store.client("c_1") is None
    for n in range(2, CAP + 2):
        assert await store.client(f"c_{n}") == client(f"c_{n}")


@pytest.mark.anyio
async def test_a_code_is_claimed_once_and_names_its_grant_after(store: GrantStore) -> None:
    assert await store.claim_code("code-1", 1_060) == (True, None)
    assert await store.claim_code("code-1", 1_060) == (False, None)  # not linked yet
    await store.link_code("code-1", "g_1")
    assert await store.claim_code("code-1", 1_060) == (False, "g_1")
    await store.link_code("code-unclaimed", "g_2")  # nothing to link: no claim made
    assert await store.claim_code("code-unclaimed", 1_060) == (True, None)


@pytest.mark.anyio
async def test_twenty_concurrent_claims_of_one_code_succeed_once(store: GrantStore) -> None:
    results: list[bool] = []

    async def claim() -> None:
        first, _ = await store.claim_code("code-raced", 1_060)
        results.append(first)

    async with anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(claim)
    assert sorted(results) == [False] * 19 + [True]


@pytest.mark.anyio
async def test_closing_twice_is_harmless(store: GrantStore) -> None:
    await store.aclose()
    await store.aclose()


# Redis only -------------------------------------------------------------------------------


@pytest.fixture
async def other(shared_state: SharedState, redis_url: str) -> AsyncIterator[SharedState]:
    """A second instance: its own client on the same Redis and namespace."""
    state = open_state(redis_url, [SECRET], namespace=shared_state.keys.namespace)
    yield state
    await state.aclose()


async def _claim(store: RedisGrantStore, code_id: str, results: list[bool]) -> None:
    first, _ = await store.claim_code(code_id, 10**10)
    results.append(first)


async def _refresh(store: RedisGrantStore, grant_id: str, rotated: list[Grant | None]) -> None:
    rotated.append(await store.rotate(grant_id, 0, 10**10))


@pytest.mark.anyio
async def test_two_instances_redeem_a_code_exactly_once(
    shared_state: SharedState, other: SharedState
) -> None:
    stores = (RedisGrantStore(shared_state), RedisGrantStore(other))
    for round_ in range(40):
        code_id = f"code-{round_}-{uuid.uuid4().hex}"
        results: list[bool] = []
        async with anyio.create_task_group() as group:
            for n in range(8):
                group.start_soon(_claim, stores[n % 2], code_id, results)
        assert results.count(True) == 1, f"round {round_}: {results}"


@pytest.mark.anyio
async def test_a_second_redemption_on_the_other_instance_names_the_grant(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisGrantStore(shared_state), RedisGrantStore(other)
    assert await one.claim_code("code-x", 10**10) == (True, None)
    await one.link_code("code-x", "g_linked")
    assert await two.claim_code("code-x", 10**10) == (False, "g_linked")


@pytest.mark.anyio
async def test_a_refresh_replayed_on_the_other_instance_revokes_the_family(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisGrantStore(shared_state), RedisGrantStore(other)
    now = 10**9
    await one.add_grant(grant("g_1", created=now, expires=now + 10**9))
    assert await one.rotate("g_1", 0, now + 10**9) is not None
    assert await two.rotate("g_1", 0, now + 10**9) is None  # the old token, elsewhere
    assert await one.grant("g_1") is None and await two.grant("g_1") is None
    assert await two.grants() == []


@pytest.mark.anyio
async def test_concurrent_refreshes_of_one_token_on_two_instances_end_the_family(
    shared_state: SharedState, other: SharedState
) -> None:
    stores = (RedisGrantStore(shared_state), RedisGrantStore(other))
    for round_ in range(20):
        grant_id = f"g_race_{round_}"
        await stores[0].add_grant(grant(grant_id, expires=10**10))
        rotated: list[Grant | None] = []
        async with anyio.create_task_group() as group:
            group.start_soon(_refresh, stores[0], grant_id, rotated)
            group.start_soon(_refresh, stores[1], grant_id, rotated)
        assert sum(r is not None for r in rotated) <= 1
        assert await stores[1].grant(grant_id) is None  # one of the two was a replay


async def _everything(state: SharedState) -> dict[str, str]:
    """:returns: every key of the namespace and its raw content, shown as Python literals
    (words in the clear stay readable in them)."""
    client, found = state.client, {}
    async for raw in client.scan_iter(match=f"{state.keys.namespace}:*"):
        key = raw.decode()
        kind = str(await client.type(key))
        if "string" in kind:
            found[key] = str(await client.get(key))
        elif "hash" in kind:
            found[key] = str(await client.hgetall(key))
        elif "zset" in kind:
            found[key] = str(await client.zrange(key, 0, -1))
        else:
            pytest.fail(f"unexpected {kind} at {key}")
    return found


async def _fill(store: RedisGrantStore) -> None:
    await store.add_grant(grant("g_secretgrant1", expires=10**10))
    await store.add_grant(grant("g_secretgrant2", expires=10**10))
    await store.rotate("g_secretgrant2", 0, 10**10)
    await store.revoke("g_secretgrant2")
    await store.add_client(client("c_secretclient"))
    await store.claim_code("code-secretcode", 10**10)
    await store.link_code("code-secretcode", "g_secretgrant1")


@pytest.mark.anyio
async def test_nothing_secret_is_in_redis_in_the_clear(shared_state: SharedState) -> None:
    await _fill(RedisGrantStore(shared_state))
    found = await _everything(shared_state)
    assert len(found) >= 6
    clear = ("secretgrant", "secretclient", "secretcode", "Muster", "name of", "127.0.0.1")
    for key, value in found.items():
        for word in clear:
            assert word not in key, key
            assert word not in value, (key, word)
    assert shared_state.keys.key("oauth-grant", "g_secretgrant1") in found
    assert digest("g_secretgrant1") in found[next(k for k in found if "grants" in k)]


@pytest.mark.anyio
async def test_every_key_expires(shared_state: SharedState) -> None:
    await _fill(RedisGrantStore(shared_state))
    client = shared_state.client
    keys = [k async for k in client.scan_iter(match=f"{shared_state.keys.namespace}:*")]
    assert len(keys) >= 6
    for key in keys:
        assert await client.ttl(key) > 0, key


@pytest.mark.anyio
async def test_a_value_moved_or_sealed_under_another_secret_is_refused(
    shared_state: SharedState, redis_url: str
) -> None:
    await RedisGrantStore(shared_state).add_grant(grant("g_1", expires=10**10))
    stranger = open_state(redis_url, ["z" * 40], namespace=shared_state.keys.namespace)
    try:
        with pytest.raises(StateUnavailableError, match="same secret"):
            await RedisGrantStore(stranger).grant("g_1")
    finally:
        await stranger.aclose()


@pytest.mark.anyio
async def test_an_unreachable_redis_is_a_clear_error_for_every_operation() -> None:
    state = open_state(f"redis://127.0.0.1:{free_port()}/0", [SECRET])
    store = RedisGrantStore(state)
    calls = (
        store.grant("g"),
        store.grants(),
        store.add_grant(grant()),
        store.rotate("g", 0, 1),
        store.revoke("g"),
        store.client("c"),
        store.add_client(client("c")),
        store.claim_code("k", 1),
        store.link_code("k", "g"),
    )
    try:
        for call in calls:
            with pytest.raises(StateUnavailableError, match="SEVDESK_HTTP_STATE_URL"):
                await call
    finally:
        await state.aclose()
