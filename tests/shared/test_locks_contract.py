"""Record locks: one contract for this process's locks and the shared leases, then what only
the leases do (one instance blocks the other, an expired lease fails its check and frees the
record, only the owner releases, fencing numbers grow, every key expires), and the write flow
refusing a write whose lease was lost before anything is sent."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import StateUnavailableError, ToolError, WriteRefusedError
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.safety.locks import Held, LockStore, RecordLocks
from sevdesk_mcp.safety.locks_redis import Lease, RedisRecordLocks
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.demo_account import DEMO_URL
from tests.redis_server import free_port
from tests.wire import HANG_GUARD_S, open_wire
from tests.writes.helpers import ALL, write_app, writes

pytestmark = pytest.mark.anyio
SECRETS = ["test-secret-" + "x" * 32]
SCOPE = "account-4711"


async def checked(held: Held) -> None:
    """Check the locks as the write flow does right before sending, with an outcome known at
    once (no mark is left behind)."""
    await held.begin("0123456789abcdef", "sevdesk_test_tool")
    held.settle()


@pytest.fixture(params=["memory", "redis"])
def locks(request: pytest.FixtureRequest) -> LockStore:
    """The locks under test: this process's, or the shared state's."""
    if request.param == "memory":
        return RecordLocks()
    return RedisRecordLocks(request.getfixturevalue("shared_state"))


@pytest.fixture
async def other_instance(shared_state: SharedState, redis_url: str) -> AsyncIterator[SharedState]:
    """A second instance: its own Redis client on the same namespace."""
    state = open_state(redis_url, SECRETS, namespace=shared_state.keys.namespace)
    yield state
    await state.aclose()


async def _keys(state: SharedState) -> list[bytes]:
    return [k async for k in state.client.scan_iter(match=f"{state.keys.namespace}:*")]


async def test_two_writes_on_one_record_run_one_after_the_other(locks: LockStore) -> None:
    order: list[str] = []

    async def write(name: str, keys: list[str]) -> None:
        async with locks.hold(SCOPE, keys) as held:
            order.append(f"{name} in")
            await anyio.sleep(0.05)
            await checked(held)
            order.append(f"{name} out")

    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as group:
            group.start_soon(write, "a", ["invoice/1", "transaction/2"])
            group.start_soon(write, "b", ["transaction/2", "invoice/1"])  # no deadlock
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


async def test_other_records_and_other_accounts_do_not_wait(locks: LockStore) -> None:
    with anyio.fail_after(HANG_GUARD_S):
        async with locks.hold(SCOPE, ["invoice/1"]):
            async with locks.hold(SCOPE, ["invoice/2"]) as held:
                await checked(held)
            async with locks.hold("another-account", ["invoice/1"]) as held:
                await checked(held)


async def test_a_failed_write_releases_its_locks(locks: LockStore) -> None:
    with pytest.raises(RuntimeError):
        async with locks.hold(SCOPE, ["invoice/1"]):
            raise RuntimeError("the write failed")
    with anyio.fail_after(HANG_GUARD_S):
        async with locks.hold(SCOPE, ["invoice/1"]) as held:
            await checked(held)


async def test_a_write_without_records_holds_nothing(locks: LockStore) -> None:
    async with locks.hold(SCOPE, []) as held:
        await checked(held)
        await anyio.lowlevel.checkpoint()


async def test_a_lock_held_by_one_instance_blocks_the_other(
    shared_state: SharedState, other_instance: SharedState
) -> None:
    first = RedisRecordLocks(shared_state)
    second = RedisRecordLocks(other_instance, wait_s=0.3)
    async with first.hold(SCOPE, ["invoice/1"]):
        with pytest.raises(ToolError, match="still running"):
            async with second.hold(SCOPE, ["invoice/1"]):
                pytest.fail("both instances held the lock")
    async with second.hold(SCOPE, ["invoice/1"]) as held:
        await checked(held)


async def test_an_expired_lease_fails_its_check_and_frees_the_record(
    shared_state: SharedState, other_instance: SharedState
) -> None:
    stalled = RedisRecordLocks(shared_state, lease_s=0.2, renew_s=60)  # never renews in time
    other = RedisRecordLocks(other_instance, wait_s=HANG_GUARD_S)
    async with stalled.hold(SCOPE, ["invoice/1"]) as late:
        async with other.hold(SCOPE, ["invoice/1"]) as taken:  # waits for the lease to end
            with pytest.raises(WriteRefusedError, match="Nothing was sent"):
                await checked(late)
            await checked(taken)
        assert isinstance(late, Lease) and isinstance(taken, Lease)
        assert taken.fences[0] > late.fences[0]
    async with other.hold(SCOPE, ["invoice/1"]) as again:  # the late release freed nothing
        await checked(again)


async def _lease_end_ms(state: SharedState, key: str) -> int:
    """:returns: when the lock ``key`` ends, in milliseconds of Redis's clock."""
    async with state.client.pipeline(transaction=True) as pipe:
        pipe.time()
        pipe.pttl(key)
        (seconds, micros), left = await pipe.execute()
    return int(seconds) * 1000 + int(micros) // 1000 + int(left)


async def test_renewal_keeps_a_lease_past_its_length(
    shared_state: SharedState, other_instance: SharedState
) -> None:
    # a lease longer than the hang guard, so no stall can end it; the test waits for renewals
    # to move its end past where its length put it when taken (however long that takes)
    holder = RedisRecordLocks(shared_state, lease_s=2 * HANG_GUARD_S, renew_s=0.05)
    other = RedisRecordLocks(other_instance, wait_s=0.0)
    async with holder.hold(SCOPE, ["invoice/1"]) as held:
        assert isinstance(held, Lease)
        key = held.keys[0]
        first_end = await _lease_end_ms(shared_state, key)
        with anyio.fail_after(HANG_GUARD_S):
            while await _lease_end_ms(shared_state, key) < first_end + 200:  # noqa: ASYNC110
                await anyio.sleep(0.05)  # polls Redis, guarded against hangs
        await checked(held)
        with pytest.raises(ToolError):
            async with other.hold(SCOPE, ["invoice/1"]):
                pass


async def test_only_the_owner_releases_a_lock(shared_state: SharedState) -> None:
    locks = RedisRecordLocks(shared_state)
    async with locks.hold(SCOPE, ["invoice/1"]) as held:
        assert isinstance(held, Lease)
        stranger = Lease(
            held.scripts, held.lease_ms, held.seal, list(held.keys), ["someone-else:1"]
        )
        stranger.marks = list(held.marks)
        assert await stranger.release() == 0
        await checked(held)
        assert await shared_state.client.exists(held.keys[0]) == 1
    assert await shared_state.client.exists(held.keys[0]) == 0


async def test_fencing_numbers_grow_with_each_holder(shared_state: SharedState) -> None:
    locks, fences = RedisRecordLocks(shared_state), []
    for _ in range(3):
        async with locks.hold(SCOPE, ["invoice/1"]) as held:
            assert isinstance(held, Lease)
            fences += held.fences
    assert fences == sorted(fences) and len(set(fences)) == 3


async def test_every_lock_key_expires_and_names_no_record(shared_state: SharedState) -> None:
    locks = RedisRecordLocks(shared_state)
    async with locks.hold(SCOPE, ["invoice/1", "numbers/contact"]):
        keys = await _keys(shared_state)
        assert len(keys) == 4  # two locks, two fencing counters
        for key in keys:
            assert await shared_state.client.pttl(key) > 0
            assert b"invoice" not in key and SCOPE.encode() not in key


async def test_no_lock_is_taken_when_the_state_is_gone() -> None:
    state = open_state(f"redis://127.0.0.1:{free_port()}/0", SECRETS)
    try:
        with pytest.raises(StateUnavailableError):
            async with RedisRecordLocks(state).hold(SCOPE, ["invoice/1"]):
                pytest.fail("held a lock without the shared state")
    finally:
        await state.aclose()


async def test_a_write_whose_lease_ran_out_is_refused_before_sending(
    shared_state: SharedState, tmp_path: Path
) -> None:
    fake = build_demo()
    fake.faults.latency_s = 0.1  # each read of prepare outlasts the lease
    audit = tmp_path / "audit.jsonl"
    config = load_config({**ALL, "SEVDESK_API_URL": DEMO_URL, "SEVDESK_AUDIT_LOG": str(audit)})
    factory = ServerFactory(config)
    factory.safety.locks = RedisRecordLocks(shared_state, lease_s=0.05, renew_s=60)
    arguments = {"kind": "organisation", "category": "customer", "name": "Late GmbH"}
    params = {"name": "sevdesk_create_contact", "arguments": arguments}
    app = write_app(fake, {"SEVDESK_AUDIT_LOG": str(audit)}, factory=factory)
    async with open_wire(app) as wire:
        result = (await wire.modern("tools/call", params))["result"]
    assert result.get("isError"), result
    assert "Nothing was sent to sevDesk" in result["content"][0]["text"]
    assert writes(fake) == []
    events = [json.loads(line)["event"] for line in audit.read_text().splitlines()]
    assert events == ["refused"]
