"""Every row of the MCP session table (:mod:`sevdesk_mcp.http.sessions.session_table`) run
through both stores: whether a session is busy (running and within its lease, the same rule in
this process and in the Redis create script, handed the table's flags), what each cap does to a
new session (room, the least recently used idle one ended, or the table's refusal), expiry by
idle time, and who ends a session."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import pytest

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.sessions import MemorySessionStore, Session, SessionStore
from sevdesk_mcp.http.sessions import session_table as table
from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.clock import Clock
from tests.redis_server import redis_url

pytestmark = pytest.mark.anyio

SECRET = "rows-secret-" + "x" * 32
Opener = Callable[..., Awaitable[SessionStore]]
Lapse = Callable[[list[Session]], Awaitable[None]]  # the busy lease of a session runs out

# per cap: the options of a store at that cap with one session, and the principals of the
# session already there and of the new one
AT_CAP: dict[table.Cap, tuple[dict[str, int], list[str], str]] = {
    "principal": ({"per_principal": 1}, ["oauth:a:g1"], "oauth:a:g1"),
    "account": ({"per_principal": 1}, [f"oauth:a:g{n}" for n in range(4)], "oauth:a:g9"),
    "server": ({"max_sessions": 1}, ["oauth:a:g1"], "oauth:b:g1"),
}


class Setup:
    """A store of either kind, how to let a session's busy lease run out, and how to let time
    pass."""

    def __init__(self, open_store: Opener, lapse: Lapse, wait: Callable[[float], Any]) -> None:
        self.open = open_store
        self.lapse = lapse
        self.wait = wait


@pytest.fixture(params=["memory", "redis"])
async def setup(request: pytest.FixtureRequest) -> AsyncIterator[Setup]:
    """Either store; the memory store on a clock the test moves."""
    clock = Clock(1000.0)
    state = None if request.param == "memory" else _state()
    async with anyio.create_task_group() as tg:
        if state is None:

            async def open_memory(**options: Any) -> SessionStore:
                return MemorySessionStore(clock=clock, **options)

            async def lapse_memory(sessions: list[Session]) -> None:
                clock.advance(table.BUSY_LEASE_S)

            async def wait_memory(seconds: float) -> None:
                clock.advance(seconds)

            yield Setup(open_memory, lapse_memory, wait_memory)
        else:
            shared = state

            async def open_redis(**options: Any) -> SessionStore:
                store = RedisSessionStore(shared, **options)
                await tg.start(store.serve)
                return store

            async def lapse_redis(sessions: list[Session]) -> None:  # as if the lease ran out
                for session in sessions:
                    meta = shared.keys.plain("session-meta", _hashed(session))
                    await shared.client.hset(meta, "busy_until", 1)

            yield Setup(open_redis, lapse_redis, anyio.sleep)
        tg.cancel_scope.cancel()
    if state is not None:
        keys = [k async for k in state.client.scan_iter(match=f"{state.keys.namespace}:*")]
        if keys:
            await state.client.delete(*keys)
        await state.aclose()


def _state() -> SharedState:
    return open_state(redis_url(), [SECRET], namespace=f"t{uuid.uuid4().hex}")


def _hashed(session: Session) -> str:
    hashed = getattr(session, "hashed", None)
    assert isinstance(hashed, str)
    return hashed


async def _busy_at_cap(
    setup: Setup, cap: table.Cap, *, running: bool, within: bool
) -> tuple[SessionStore, list[Session], bool, HttpError | None]:
    """Fill ``cap`` with sessions in the given busy row, then create one more.

    :returns: the sessions there, whether the new one was made, and the refusal if not.
    """
    options, principals, newcomer = AT_CAP[cap]
    store = await setup.open(**options)
    there = [await store.create(principal) for principal in principals]
    async with anyio.create_task_group() as tg:
        held, release = anyio.Event(), anyio.Event()

        async def hold() -> None:
            async with Holding(setup, there):
                held.set()
                await release.wait()

        if running:
            tg.start_soon(hold)
            await held.wait()
        else:  # ran and finished: the lease is still on, nothing runs
            async with Holding(setup, there):
                pass
        if not within:
            await setup.lapse(there)
        try:
            await store.create(newcomer)
            made, refusal = True, None
        except HttpError as exc:
            made, refusal = False, exc
        release.set()
    return store, there, made, refusal


class Holding:
    """Holds sessions one after the other and lets them go in the same order, a little time
    apart (Redis orders uses by the millisecond), so the first is the least recently used."""

    def __init__(self, setup: Setup, sessions: list[Session]) -> None:
        self._setup = setup
        self._managers = [session.holding() for session in sessions]

    async def __aenter__(self) -> None:
        for manager in self._managers:
            await self._setup.wait(0.005)
            await manager.__aenter__()

    async def __aexit__(self, *exc: object) -> None:
        for manager in self._managers:
            await self._setup.wait(0.005)
            await manager.__aexit__(None, None, None)


@pytest.mark.parametrize("cap", table.CAPS)
@pytest.mark.parametrize(("running", "within"), table.BUSY_ROWS)
async def test_every_busy_and_create_row_holds_on_both_stores(
    setup: Setup, cap: table.Cap, running: bool, within: bool
) -> None:
    store, there, made, refusal = await _busy_at_cap(setup, cap, running=running, within=within)
    outcome = table.create(len(there), len(there), idle_one=not table.BUSY[running][within])
    assert made is (outcome is table.Create.EVICT)
    if outcome is table.Create.REFUSE:
        assert refusal is not None and refusal.status == table.REFUSE[cap]
    else:  # the least recently used idle one made room
        assert await store.get(there[0].id, there[0].principal) is None
        assert all([await store.get(s.id, s.principal) is not None for s in there[1:]])


@pytest.mark.parametrize("cap", table.CAPS)
async def test_below_every_cap_there_is_room(setup: Setup, cap: table.Cap) -> None:
    options, principals, newcomer = AT_CAP[cap]
    store = await setup.open(**{k: v + 1 for k, v in options.items()})
    there = [await store.create(p) for p in principals]
    assert table.create(len(there), len(there) + 1, idle_one=False) is table.Create.ROOM
    await store.create(newcomer)
    assert not any(s.ended for s in there)


async def test_the_least_recently_used_idle_session_is_the_victim(setup: Setup) -> None:
    store = await setup.open(per_principal=3)
    made = []
    for _ in range(3):
        made.append(await store.create("bearer"))
        await setup.wait(0.005)
    first, second, third = made
    async with first.holding():  # used last now, and busy
        assert table.victim([(second.id, False), (third.id, False), (first.id, True)]) == second.id
        await store.create("bearer")
    assert await store.get(second.id, "bearer") is None
    assert await store.get(third.id, "bearer") is not None
    assert await store.get(first.id, "bearer") is not None


async def test_an_idle_session_expires_at_the_idle_time() -> None:
    clock = Clock(1000.0)
    store = MemorySessionStore(idle_s=10.0, clock=clock)
    session = await store.create("bearer")
    clock.advance(9.999)
    assert not table.expired(session.last_seen, clock(), 10.0)
    assert await store.get(session.id, "bearer") is session
    clock.advance(10.0)
    assert table.expired(session.last_seen, clock(), 10.0)
    assert await store.get(session.id, "bearer") is None


async def test_busy_does_not_defer_expiry_on_either_store(setup: Setup) -> None:
    store = await setup.open(idle_s=0.2)
    session = await store.create("bearer")
    async with session.holding():
        await setup.wait(0.4)
        assert await store.get(session.id, "bearer") is None


@pytest.mark.parametrize("same", [True, False], ids=["own", "another"])
async def test_every_end_row_holds_on_both_stores(setup: Setup, same: bool) -> None:
    store = await setup.open()
    session = await store.create("oauth:a:g1")
    assert await store.end(session.id, "oauth:a:g1" if same else "oauth:a:g2") is table.END[same]
    assert (await store.get(session.id, "oauth:a:g1") is None) is table.ends(same_principal=same)


async def test_the_redis_scripts_are_handed_the_table(shared_state: SharedState) -> None:
    store = RedisSessionStore(shared_state, per_principal=2, max_sessions=50)
    assert table.create_args(store._caps) == [2, 8, 50]
    assert table.busy_flags() == ["1", "0", "0", "0"]
    session = await store.create("bearer")
    async with session.holding():
        meta = shared_state.keys.plain("session-meta", _hashed(session))
        stored = await shared_state.client.hget(meta, "busy_until")
        assert isinstance(stored, bytes)
        until = int(stored)
        now_s, micro = await shared_state.client.time()
        left = until - (now_s * 1000 + micro // 1000)
        assert table.lease_ms() - 5000 < left <= table.lease_ms()
