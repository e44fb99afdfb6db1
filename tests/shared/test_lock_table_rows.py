"""Every row of the lock table (:mod:`sevdesk_mcp.safety.lock_table`) run through both
backends: whose a lock is and the lifetime it has left decide whether it is taken or waited
for, in this process (only free or held) and in the Redis script, handed the table's flags."""

from __future__ import annotations

import anyio
import pytest

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.lock_table import ACQUIRE, LIFETIMES, Lifetime, Owner, Take, lifetime
from sevdesk_mcp.safety.locks import RecordLocks
from sevdesk_mcp.safety.locks_redis import LEASE_S, RedisRecordLocks
from sevdesk_mcp.shared.redis import SharedState

pytestmark = pytest.mark.anyio
SCOPE, RECORD = "account-4711", "invoice:7"
LEASE_MS = int(LEASE_S * 1000)
PX: dict[Lifetime, int | None] = {"none": None, "lease": LEASE_MS // 3, "longer": LEASE_MS * 3}
WAIT_S = 0.3


async def _taken(locks: RedisRecordLocks) -> bool:
    try:
        async with locks.hold(SCOPE, [RECORD]):
            return True
    except ToolError:
        return False


@pytest.mark.parametrize("life", LIFETIMES)
@pytest.mark.parametrize("owner", ["free", "genuine", "forged"])
async def test_every_acquire_row_holds_in_the_redis_script(
    shared_state: SharedState, owner: Owner, life: Lifetime
) -> None:
    locks = RedisRecordLocks(shared_state, wait_s=WAIT_S)
    key = locks.key(SCOPE, RECORD)
    if owner != "free":
        who = shared_state.seal.tag(key, b"another-holder") if owner == "genuine" else b"forged"
        await shared_state.client.set(key, who + b":7", px=PX[life])
        assert lifetime(await shared_state.client.pttl(key), LEASE_MS) == life
    assert await _taken(locks) is (ACQUIRE[owner][life] is Take.TAKE)


@pytest.mark.parametrize("owner", ["free", "genuine"])
async def test_every_acquire_row_of_this_process_holds(owner: Owner) -> None:
    locks, entered = RecordLocks(), anyio.Event()
    async with anyio.create_task_group() as tg:
        if owner == "genuine":
            release = anyio.Event()

            async def holder() -> None:
                async with locks.hold(SCOPE, [RECORD]):
                    entered.set()
                    await release.wait()

            tg.start_soon(holder)
            await entered.wait()
        taken = False
        with anyio.move_on_after(WAIT_S):
            async with locks.hold(SCOPE, [RECORD]):
                taken = True
        if owner == "genuine":
            release.set()
    assert all(ACQUIRE[owner][life] is (Take.TAKE if taken else Take.WAIT) for life in LIFETIMES)
