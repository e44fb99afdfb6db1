"""Approvals: one contract for this process's store and the shared state's, then what only the
shared one must show (asked on one instance, decided on another, and used exactly once when
two instances retry at the same moment; no secret in Redis in the clear; every key expires)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from decimal import Decimal

import anyio
import pytest

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.approvals import (
    APPROVAL_TTL_S,
    ApprovalStore,
    Binding,
    MemoryApprovalStore,
    Outcome,
    TooManyApprovalsError,
)
from sevdesk_mcp.safety.approvals_redis import RedisApprovalStore
from sevdesk_mcp.safety.basis import basis_of
from sevdesk_mcp.safety.preview import Preview, amount, fact, say
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.clock import Clock

pytestmark = pytest.mark.anyio
SECRETS = ["test-secret-" + "x" * 32]
ACCOUNT = "4711"
PERSON = "f" * 64  # the keyed fingerprint of the sevDesk token that asked
COLLEAGUE = "c" * 64  # another user of the same account
BINDING = Binding(
    "sevdesk_finalize_invoice", "args-digest", f"oauth:{ACCOUNT}:grant-1", ACCOUNT, PERSON
)
PREVIEW = Preview(
    action=say("Finalize invoice {0}", "Rechnung {0} abschließen", "RE-1001"),
    facts=[fact("Total", "Summe", amount(Decimal("119.00")))],
)
SHORT_S = 0.4


def _store(request: pytest.FixtureRequest, **options: float) -> ApprovalStore:
    ttl_s = options.get("ttl_s", 600.0)
    cap = int(options.get("max_pending", 5))
    if request.param == "memory":
        return MemoryApprovalStore(ttl_s=ttl_s, max_pending=cap)
    state = request.getfixturevalue("shared_state")
    return RedisApprovalStore(state, ttl_s=ttl_s, max_pending=cap)


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> ApprovalStore:
    """The approval store under test."""
    return _store(request)


@pytest.fixture(params=["memory", "redis"])
def capped(request: pytest.FixtureRequest) -> ApprovalStore:
    """A store where two approvals may wait per account."""
    return _store(request, max_pending=2)


@pytest.fixture(params=["memory", "redis"])
def short(request: pytest.FixtureRequest) -> ApprovalStore:
    """A store whose approvals live :data:`SHORT_S`."""
    return _store(request, ttl_s=SHORT_S)


@pytest.fixture(params=["memory", "redis"])
def clocked(request: pytest.FixtureRequest) -> tuple[ApprovalStore, Clock]:
    """A store whose approvals' expiry is judged by a clock the test moves (the Redis store's
    own clock: its keys still expire on Redis's, after 10 minutes)."""
    clock = Clock()
    if request.param == "memory":
        return MemoryApprovalStore(clock), clock
    return RedisApprovalStore(request.getfixturevalue("shared_state"), clock=clock), clock


@pytest.fixture
async def other(shared_state: SharedState, redis_url: str) -> AsyncIterator[SharedState]:
    """A second instance: its own Redis client on the same namespace."""
    state = open_state(redis_url, SECRETS, namespace=shared_state.keys.namespace)
    yield state
    await state.aclose()


async def test_an_approval_is_asked_decided_once_and_used_once(store: ApprovalStore) -> None:
    created = await store.settle(BINDING, PREVIEW)
    assert created.kind == "new" and created.approval.status == "pending"
    assert len(created.approval.id) == 43 and created.approval.binding == BINDING
    again = await store.settle(BINDING, PREVIEW)
    assert again.kind == "pending" and again.approval.id == created.approval.id
    shown = await store.view(created.approval.id, PERSON)
    assert shown is not None and shown.csrf == created.approval.csrf
    decided = await store.decide(created.approval.id, PERSON, approved=True)
    assert decided is not None and decided.status == "approved"
    assert await store.decide(created.approval.id, PERSON, approved=False) is None  # decided once
    assert await store.view(created.approval.id, PERSON) is None
    used = await store.settle(BINDING, PREVIEW)
    assert used.kind == "approved" and used.approval.id == created.approval.id
    assert used.approval.call == created.approval.call
    assert (await store.settle(BINDING, PREVIEW)).kind == "new"  # used up


async def test_a_declined_approval_is_reported_once(store: ApprovalStore) -> None:
    created = await store.settle(BINDING, PREVIEW)
    await store.decide(created.approval.id, PERSON, approved=False)
    assert (await store.settle(BINDING, PREVIEW)).kind == "declined"
    assert (await store.settle(BINDING, PREVIEW)).kind == "new"


async def test_unknown_ids_are_neither_shown_nor_decided(store: ApprovalStore) -> None:
    assert await store.view("A" * 43, PERSON) is None
    assert await store.decide("A" * 43, PERSON, approved=True) is None


async def test_a_changed_basis_voids_the_approval_and_names_the_change(
    store: ApprovalStore,
) -> None:
    created = await store.settle(BINDING, PREVIEW)
    await store.decide(created.approval.id, PERSON, approved=True)
    changed = Preview(
        action=PREVIEW.action, facts=[fact("Total", "Summe", amount(Decimal("120.00")))]
    )
    renewed = await store.settle(BINDING, changed, basis_of(changed, {}))
    assert renewed.kind == "changed" and renewed.approval.id != created.approval.id
    assert renewed.approval.call == created.approval.call
    assert renewed.approval.changed == ("the preview lines 'Total'",)
    assert await store.view(created.approval.id, PERSON) is None
    assert (await store.settle(BINDING, changed)).kind == "pending"


@pytest.mark.parametrize(
    "other_binding",
    [
        Binding("sevdesk_other_tool", "args-digest", BINDING.principal, ACCOUNT, PERSON),
        Binding(BINDING.tool, "other-args", BINDING.principal, ACCOUNT, PERSON),
        Binding(BINDING.tool, BINDING.arguments, f"oauth:{ACCOUNT}:grant-2", ACCOUNT, PERSON),
        Binding(BINDING.tool, BINDING.arguments, BINDING.principal, ACCOUNT, COLLEAGUE),
    ],
)
async def test_an_approval_never_serves_another_binding(
    store: ApprovalStore, other_binding: Binding
) -> None:
    created = await store.settle(BINDING, PREVIEW)
    await store.decide(created.approval.id, PERSON, approved=True)
    assert (await store.settle(other_binding, PREVIEW)).kind == "new"
    assert (await store.settle(BINDING, PREVIEW)).kind == "approved"


async def test_the_inbox_lists_the_persons_waiting_approvals_only(store: ApprovalStore) -> None:
    first = await store.settle(BINDING, PREVIEW)
    second = await store.settle(Binding("t", "a2", BINDING.principal, ACCOUNT, PERSON), PREVIEW)
    await store.settle(Binding("t", "a3", "oauth:999:g", "999", "9" * 64), PREVIEW)
    await store.settle(Binding("t", "a4", f"oauth:{ACCOUNT}:g-c", ACCOUNT, COLLEAGUE), PREVIEW)
    listed = await store.waiting(PERSON)
    assert [a.id for a in listed] == [first.approval.id, second.approval.id]
    await store.decide(first.approval.id, PERSON, approved=True)
    assert [a.id for a in await store.waiting(PERSON)] == [second.approval.id]
    assert len(await store.waiting("9" * 64)) == 1
    assert len(await store.waiting(COLLEAGUE)) == 1
    assert await store.waiting("nobody") == []
    assert await store.waiting("") == []


async def test_at_most_the_cap_waits_per_person(capped: ApprovalStore) -> None:
    made = [
        await capped.settle(Binding("t", str(n), "p", ACCOUNT, PERSON), PREVIEW) for n in range(2)
    ]
    with pytest.raises(TooManyApprovalsError, match="2 approvals already wait") as caught:
        await capped.settle(Binding("t", "third", "p", ACCOUNT, PERSON), PREVIEW)
    assert all(o.approval.reference in str(caught.value) for o in made)
    assert (await capped.settle(Binding("t", "x", "q", "another"), PREVIEW)).kind == "new"
    assert (await capped.settle(Binding("t", "y", "q", ACCOUNT, COLLEAGUE), PREVIEW)).kind == "new"
    await capped.decide(made[0].approval.id, PERSON, approved=False)  # decided ones do not wait
    assert (await capped.settle(Binding("t", "third", "p", ACCOUNT, PERSON), PREVIEW)).kind == "new"


@pytest.mark.threat("I35-2")
async def test_an_approval_is_shown_and_decided_to_its_person_only(store: ApprovalStore) -> None:
    created = (await store.settle(BINDING, PREVIEW)).approval
    assert created.asked > 0 and created.asked <= created.expires
    assert await store.waiting(COLLEAGUE) == []
    for other in (COLLEAGUE, ""):  # a colleague of the same account; no person at all
        assert await store.view(created.id, other) is None
        assert await store.decide(created.id, other, approved=True) is None
    assert (await store.settle(BINDING, PREVIEW)).kind == "pending"  # still undecided
    assert [a.id for a in await store.waiting(PERSON)] == [created.id]
    assert await store.decide(created.id, PERSON, approved=True) is not None
    assert (await store.settle(BINDING, PREVIEW)).kind == "approved"


async def test_an_approval_expires(short: ApprovalStore) -> None:
    created = await short.settle(BINDING, PREVIEW)
    await anyio.sleep(SHORT_S + 0.2)  # past its life (a slow machine only waits longer)
    assert await short.view(created.approval.id, PERSON) is None
    assert await short.decide(created.approval.id, PERSON, approved=True) is None
    assert await short.waiting(PERSON) == []
    assert (await short.settle(BINDING, PREVIEW)).kind == "new"


async def test_a_decided_approval_expires_unused(clocked: tuple[ApprovalStore, Clock]) -> None:
    store, clock = clocked
    created = await store.settle(BINDING, PREVIEW)
    # decided in time whatever the machine: the clock stands still
    assert await store.decide(created.approval.id, PERSON, approved=True) is not None
    clock.now += APPROVAL_TTL_S + 1
    assert await store.view(created.approval.id, PERSON) is None
    assert await store.waiting(PERSON) == []
    assert (await store.settle(BINDING, PREVIEW)).kind == "new"  # not "approved"


async def test_decided_on_one_instance_it_is_used_once_by_concurrent_retries(
    shared_state: SharedState, other: SharedState
) -> None:
    asking, deciding = RedisApprovalStore(shared_state), RedisApprovalStore(other)
    created = await asking.settle(BINDING, PREVIEW)
    assert [a.id for a in await deciding.waiting(PERSON)] == [created.approval.id]
    assert await deciding.decide(created.approval.id, PERSON, approved=True) is not None
    outcomes: list[Outcome] = []

    async def retry(store: RedisApprovalStore) -> None:
        outcomes.append(await store.settle(BINDING, PREVIEW))

    async with anyio.create_task_group() as group:
        for store in (asking, deciding, asking, deciding):
            group.start_soon(retry, store)
    kinds = sorted(o.kind for o in outcomes)
    assert kinds.count("approved") == 1, kinds
    assert set(kinds) <= {"approved", "new", "pending"}
    assert len({o.approval.id for o in outcomes if o.kind != "approved"}) == 1  # one new one


async def test_two_instances_deciding_at_once_decide_once(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisApprovalStore(shared_state), RedisApprovalStore(other)
    created = await one.settle(BINDING, PREVIEW)
    results = []

    async def decide(store: RedisApprovalStore, approved: bool) -> None:
        results.append(await store.decide(created.approval.id, PERSON, approved=approved))

    async with anyio.create_task_group() as group:
        group.start_soon(decide, one, True)
        group.start_soon(decide, two, False)
    assert sum(r is not None for r in results) == 1


async def test_the_cap_holds_across_instances(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisApprovalStore(shared_state), RedisApprovalStore(other)
    for n in range(5):
        await (one if n % 2 else two).settle(Binding("t", str(n), "p", ACCOUNT, PERSON), PREVIEW)
    with pytest.raises(ToolError, match="5 approvals already wait"):
        await one.settle(Binding("t", "sixth", "p", ACCOUNT, PERSON), PREVIEW)


async def test_no_secret_stands_in_redis_and_every_key_expires(shared_state: SharedState) -> None:
    store = RedisApprovalStore(shared_state)
    created = (await store.settle(BINDING, PREVIEW)).approval
    await store.settle(Binding("t", "2", "p", ACCOUNT, PERSON), PREVIEW)
    secrets = [created.id, created.csrf, created.cookie, "RE-1001", BINDING.principal, PERSON]
    namespace = shared_state.keys.namespace
    keys = [k async for k in shared_state.client.scan_iter(match=f"{namespace}:*")]
    assert len(keys) == 5  # two approvals, two bindings, one waiting set
    for key in keys:
        raw = await _stored(shared_state, key)
        assert not any(s.encode() in key + raw for s in secrets), key
        assert 0 < await shared_state.client.pttl(key) <= 600_000


async def _stored(state: SharedState, key: bytes) -> bytes:
    """:returns: everything Redis holds under ``key``, concatenated."""
    kind = await state.client.type(key)
    parts: list[object]
    if kind == b"hash":
        parts = list(await state.client.hvals(key))
    elif kind == b"zset":
        parts = list(await state.client.zrange(key, 0, -1))
    else:
        parts = [await state.client.get(key) or b""]
    return b"".join(p if isinstance(p, bytes) else str(p).encode() for p in parts)
