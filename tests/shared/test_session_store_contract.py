"""The contract of a store of 2025-era sessions, run unchanged against the memory store and the
Redis store (issue 25): ownership, saved state, caps, expiry, answers, cancellation, the end of
a session and the GET stream's events."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import pytest

from sevdesk_mcp.errors import HttpError, PeerRequestError
from sevdesk_mcp.http.sessions import MemorySessionStore, Session, SessionStore
from sevdesk_mcp.mcp.envelope import Handshake
from sevdesk_mcp.mcp.jsonrpc import Response
from sevdesk_mcp.mcp.types import JsonObject
from tests.wire import HANG_GUARD_S

pytestmark = pytest.mark.anyio

Opener = Callable[..., Awaitable[SessionStore]]

SECRET = "contract-secret-" + "x" * 32
URI = "test://watched-resource"


@pytest.fixture(params=["memory", "redis"])
async def open_store(request: pytest.FixtureRequest) -> AsyncIterator[Opener]:
    """Opens stores of the parametrized kind, each with its background task running."""
    namespace = f"t{uuid.uuid4().hex}"
    states: list[Any] = []
    async with anyio.create_task_group() as tg:

        async def opener(**options: Any) -> SessionStore:
            store: SessionStore
            if request.param == "memory":
                store = MemorySessionStore(**options)
            else:
                from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore
                from sevdesk_mcp.shared.redis import open_state
                from tests.redis_server import redis_url

                state = open_state(redis_url(), [SECRET], namespace=namespace)
                states.append(state)
                store = RedisSessionStore(state, **options)
            await tg.start(store.serve)
            return store

        yield opener
        tg.cancel_scope.cancel()
    for state in states:
        keys = [k async for k in state.client.scan_iter(match=f"{namespace}:*")]
        if keys:
            await state.client.delete(*keys)
        await state.aclose()


class Asked:
    """A ``send`` for :meth:`Session.request` that remembers what it sent."""

    def __init__(self) -> None:
        self.sent: list[JsonObject] = []
        self.arrived = anyio.Event()

    async def __call__(self, message: JsonObject) -> None:
        self.sent.append(message)
        self.arrived.set()


async def _ask(session: Session, asked: Asked, outcome: list[object]) -> None:
    """Run a request of the session that asks the client, and note the outcome."""
    async with session.running("call-1"):
        try:
            outcome.append(await session.request(asked, "elicitation/create", {}, HANG_GUARD_S))
        except PeerRequestError as exc:
            outcome.append(exc)


async def test_a_session_is_found_only_by_its_principal(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("oauth:1:alice")
    found = await store.get(session.id, "oauth:1:alice")
    assert found is not None and found.id == session.id and found.principal == "oauth:1:alice"
    assert await store.get(session.id, "oauth:2:bob") is None
    assert await store.get("never-issued", "oauth:1:alice") is None
    assert len(session.id) == 43 and await store.count() == 1


async def test_the_handshake_log_level_and_subscriptions_are_kept(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("bearer")
    session.handshake = Handshake("2025-11-25", {"elicitation": {"form": {}}})
    session.log_level = "warning"
    session.subscribe(URI)
    await store.save(session)
    found = await store.get(session.id, "bearer")
    assert found is not None and found.handshake == session.handshake
    assert found.log_level == "warning" and found.subscribed == {URI}


async def test_only_its_principal_ends_a_session(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("oauth:1:alice")
    assert not await store.end(session.id, "oauth:2:bob")
    assert await store.get(session.id, "oauth:1:alice") is not None
    assert await store.end(session.id, "oauth:1:alice")
    assert await store.get(session.id, "oauth:1:alice") is None
    assert not await store.end(session.id, "oauth:1:alice")
    assert await store.count() == 0


async def test_an_answer_reaches_the_waiting_call_once(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("bearer")
    asked, outcome = Asked(), list[object]()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_ask, session, asked, outcome)
        await asked.arrived.wait()
        request_id = asked.sent[0]["id"]
        assert isinstance(request_id, str) and request_id.startswith("srv-")
        again = await store.get(session.id, "bearer")
        assert again is not None
        assert not await again.deliver(Response("srv-never", {}, None))
        assert await again.deliver(Response(request_id, {"action": "accept"}, None))
        assert not await again.deliver(Response(request_id, {"action": "accept"}, None))
    assert outcome == [{"action": "accept"}]


async def test_a_refusal_reaches_the_waiting_call(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("bearer")
    asked, outcome = Asked(), list[object]()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_ask, session, asked, outcome)
        await asked.arrived.wait()
        error = {"code": -1, "message": "declined"}
        assert await session.deliver(Response(asked.sent[0]["id"], None, error))  # type: ignore[arg-type]
    assert isinstance(outcome[0], PeerRequestError) and "declined" in str(outcome[0])


async def test_notifications_cancelled_cancels_the_running_request(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("bearer")
    started, caught = anyio.Event(), list[bool]()

    async def run() -> None:
        async with session.running(7) as scope:
            started.set()
            await anyio.sleep_forever()
        caught.append(scope.cancelled_caught)

    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await started.wait()
            again = await store.get(session.id, "bearer")
            assert again is not None
            await again.cancel("not-running")
            await again.cancel(7)
    assert caught == [True]


async def test_the_end_fails_waits_cancels_requests_and_closes_the_stream(
    open_store: Opener,
) -> None:
    store = await open_store()
    session = await store.create("bearer")
    asked, outcome = Asked(), list[object]()
    generation = await session.open_stream()
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_ask, session, asked, outcome)
            await asked.arrived.wait()
            assert await session.streaming(generation)
            assert await store.end(session.id, "bearer")
    assert isinstance(outcome[0], PeerRequestError) and "session ended" in str(outcome[0])
    assert not await session.streaming(generation)


async def test_a_newer_stream_ends_the_older(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("bearer")
    first = await session.open_stream()
    again = await store.get(session.id, "bearer")
    assert again is not None
    second = await again.open_stream()
    assert not await session.streaming(first) and await again.streaming(second)


async def test_resource_updates_reach_subscribers_and_replay(open_store: Opener) -> None:
    store = await open_store()
    watching, other = await store.create("bearer"), await store.create("bearer")
    watching.subscribe(URI)
    await store.save(watching)
    await store.save(other)
    assert await store.resource_updated(URI) == 1
    assert await store.resource_updated(URI) == 1
    again = await store.get(watching.id, "bearer")
    assert again is not None
    events = await again.events_after(0)
    assert [event_id for event_id, _ in events] == [1, 2]
    assert b"notifications/resources/updated" in events[0][1] and URI.encode() in events[0][1]
    assert [e for e, _ in await again.events_after(1)] == [2]
    assert await again.last_sent() == 0
    await again.sent(2)
    await again.sent(1)
    assert await watching.last_sent() == 2
    assert await other.events_after(0) == []
    again.unsubscribe(URI)
    await store.save(again)
    assert await store.resource_updated(URI) == 0


async def test_the_replay_buffer_keeps_the_last_events(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("bearer")
    for number in range(70):
        await session.publish({"jsonrpc": "2.0", "method": "n", "params": {"n": number}})
    ids = [event_id for event_id, _ in await session.events_after(0)]
    assert ids == list(range(7, 71))


async def test_an_idle_session_expires(open_store: Opener) -> None:
    store = await open_store(idle_s=0.3)
    session = await store.create("bearer")
    await anyio.sleep(0.6)
    assert await store.get(session.id, "bearer") is None
    assert await store.count() == 0


async def test_the_least_recently_used_idle_session_of_a_principal_makes_room(
    open_store: Opener,
) -> None:
    store = await open_store(per_principal=2)
    first = await store.create("oauth:1:alice")
    await anyio.sleep(0.01)
    second = await store.create("oauth:1:alice")
    await anyio.sleep(0.01)
    assert await store.get(first.id, "oauth:1:alice") is not None  # now the second is oldest
    await anyio.sleep(0.01)
    third = await store.create("oauth:1:alice")
    assert await store.get(second.id, "oauth:1:alice") is None
    assert await store.get(first.id, "oauth:1:alice") is not None
    assert await store.get(third.id, "oauth:1:alice") is not None


async def test_busy_sessions_are_not_evicted_429_then(open_store: Opener) -> None:
    store = await open_store(per_principal=1)
    session = await store.create("bearer")
    async with session.holding():
        with pytest.raises(HttpError) as caught:
            await store.create("bearer")
    assert caught.value.status == 429 and "all busy" in str(caught.value)
    await store.create("bearer")  # idle again: it makes room
    assert await store.get(session.id, "bearer") is None


async def test_one_account_holds_at_most_four_grants_worth(open_store: Opener) -> None:
    store = await open_store(per_principal=1)
    other = await store.create("oauth:acct-b:grant-1")
    made = []
    for grant in range(6):
        made.append(await store.create(f"oauth:acct-a:grant-{grant}"))
        await anyio.sleep(0.005)
    alive = [s for s in made if await store.get(s.id, s.principal) is not None]
    assert [s.id for s in alive] == [s.id for s in made[-4:]]
    assert await store.get(other.id, other.principal) is not None


async def test_the_server_cap_evicts_the_oldest_idle_or_refuses_503(open_store: Opener) -> None:
    store = await open_store(max_sessions=2)
    first = await store.create("oauth:1:a")
    await anyio.sleep(0.01)
    second = await store.create("oauth:2:b")
    async with first.holding(), second.holding():
        with pytest.raises(HttpError) as caught:
            await store.create("oauth:3:c")
    assert caught.value.status == 503
    await anyio.sleep(0.01)
    assert await store.get(second.id, "oauth:2:b") is not None  # first is now the oldest
    await store.create("oauth:3:c")
    assert await store.get(first.id, "oauth:1:a") is None
    assert await store.count() == 2


async def test_a_waiting_call_times_out_and_a_late_answer_is_refused(open_store: Opener) -> None:
    store = await open_store()
    session = await store.create("bearer")
    asked = Asked()
    async with session.running(1):
        with pytest.raises(PeerRequestError, match="did not answer"):
            await session.request(asked, "roots/list", {}, 0.05)
    late = Response(asked.sent[0]["id"], {}, None)  # type: ignore[arg-type]
    assert not await session.deliver(late)
