"""2025-era sessions shared by two instances on one Redis (issue 25): what one instance's client
sends reaches the call, request or stream that lives on the other; nothing secret is stored in
the clear and every key expires."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from sevdesk_mcp.errors import PeerRequestError, StateUnavailableError
from sevdesk_mcp.http.sessions import redis_session
from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore
from sevdesk_mcp.mcp.envelope import Handshake
from sevdesk_mcp.mcp.jsonrpc import Response
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.shared.test_session_store_contract import Asked, _ask
from tests.wire import HANG_GUARD_S

pytestmark = pytest.mark.anyio


NO_RECHECK_S = 10 * HANG_GUARD_S  # a stream re-check that never comes within a guard
SECRET = "two-instances-" + "y" * 32
PRINCIPAL = "oauth:acct-7:grant-secret-42"


@dataclass
class Pair:
    """Two instances: each its own Redis client and routing task."""

    a: RedisSessionStore
    b: RedisSessionStore
    state: SharedState


@pytest.fixture
async def pair(redis_url: str) -> AsyncIterator[Pair]:
    namespace = f"t{uuid.uuid4().hex}"
    states = [open_state(redis_url, [SECRET], namespace=namespace) for _ in range(2)]
    stores = [RedisSessionStore(state) for state in states]
    async with anyio.create_task_group() as tg:
        for store in stores:
            await tg.start(store.serve)
        yield Pair(stores[0], stores[1], states[0])
        tg.cancel_scope.cancel()
    keys = [k async for k in states[0].client.scan_iter(match=f"{namespace}:*")]
    if keys:
        await states[0].client.delete(*keys)
    for state in states:
        await state.aclose()


async def test_an_answer_posted_to_b_reaches_the_call_waiting_on_a(pair: Pair) -> None:
    session = await pair.a.create(PRINCIPAL)
    asked, outcome = Asked(), list[object]()
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_ask, session, asked, outcome)
            await asked.arrived.wait()
            request_id = asked.sent[0]["id"]
            assert isinstance(request_id, str) and pair.a.instance in request_id
            on_b = await pair.b.get(session.id, PRINCIPAL)
            assert on_b is not None
            assert await on_b.deliver(Response(request_id, {"action": "accept"}, None))
            assert not await on_b.deliver(Response(request_id, {"action": "accept"}, None))
    assert outcome == [{"action": "accept"}]


async def test_an_answer_for_an_instance_that_is_gone_is_refused(pair: Pair) -> None:
    session = await pair.a.create(PRINCIPAL)
    waits = pair.state.keys.key("session-waits", session.id)
    await pair.state.client.hset(waits, "srv-gone-1", "gone")
    on_b = await pair.b.get(session.id, PRINCIPAL)
    assert on_b is not None
    assert not await on_b.deliver(Response("srv-gone-1", {}, None))


async def test_a_cancellation_sent_to_b_cancels_the_request_running_on_a(pair: Pair) -> None:
    session = await pair.a.create(PRINCIPAL)
    started, caught = anyio.Event(), list[bool]()

    async def run() -> None:
        async with session.running("client-9") as scope:
            started.set()
            await anyio.sleep_forever()
        caught.append(scope.cancelled_caught)

    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await started.wait()
            on_b = await pair.b.get(session.id, PRINCIPAL)
            assert on_b is not None
            await on_b.cancel("client-9")
    assert caught == [True]


async def test_delete_on_b_ends_the_session_on_a(pair: Pair) -> None:
    session = await pair.a.create(PRINCIPAL)
    asked, outcome = Asked(), list[object]()
    running, caught = anyio.Event(), list[bool]()
    streamed: list[bool] = []
    stream_open = anyio.Event()  # the session is ended only once all three hold it

    async def run() -> None:
        async with session.running("client-1") as scope:
            running.set()
            await anyio.sleep_forever()
        caught.append(scope.cancelled_caught)

    async def stream() -> None:
        async with session.holding():
            generation = await session.open_stream()
            stream_open.set()
            while await session.streaming(generation):
                await session.changed()
        streamed.append(True)

    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_ask, session, asked, outcome)
            tg.start_soon(run)
            tg.start_soon(stream)
            await asked.arrived.wait()
            await running.wait()
            await stream_open.wait()
            assert await pair.b.end(session.id, PRINCIPAL)
    assert isinstance(outcome[0], PeerRequestError) and "session ended" in str(outcome[0])
    assert caught == [True] and streamed == [True]
    assert await pair.a.get(session.id, PRINCIPAL) is None


async def test_events_made_on_b_reach_the_stream_on_a_and_replay_anywhere(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stream's own re-check comes only after the guard: only the routing can wake it.
    monkeypatch.setattr(redis_session, "RECHECK_S", NO_RECHECK_S)
    session = await pair.a.create(PRINCIPAL)
    session.subscribe("test://r")
    await pair.a.save(session)
    received: list[int] = []
    ready = anyio.Event()

    async def stream() -> None:
        async with session.holding():
            generation = await session.open_stream()
            cursor = 0
            ready.set()
            while await session.streaming(generation):
                for event_id, _ in await session.events_after(cursor):
                    received.append(event_id)
                    cursor = event_id
                if len(received) == 2:
                    return
                await session.changed()

    with anyio.fail_after(HANG_GUARD_S):  # before the stream's own re-check
        async with anyio.create_task_group() as tg:
            tg.start_soon(stream)
            await ready.wait()
            assert await pair.b.resource_updated("test://r") == 1
            await anyio.sleep(0.05)
            assert await pair.b.resource_updated("test://r") == 1
    assert received == [1, 2]
    on_b = await pair.b.get(session.id, PRINCIPAL)
    assert on_b is not None and [e for e, _ in await on_b.events_after(1)] == [2]


async def test_a_newer_stream_on_b_ends_the_stream_on_a(pair: Pair) -> None:
    session = await pair.a.create(PRINCIPAL)
    ended = anyio.Event()
    ready = anyio.Event()

    async def stream() -> None:
        async with session.holding():
            generation = await session.open_stream()
            ready.set()
            while await session.streaming(generation):
                await session.changed()
        ended.set()

    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(stream)
            await ready.wait()
            on_b = await pair.b.get(session.id, PRINCIPAL)
            assert on_b is not None
            await on_b.open_stream()
            await ended.wait()


async def test_the_handshake_saved_on_a_is_read_on_b(pair: Pair) -> None:
    session = await pair.a.create(PRINCIPAL)
    session.handshake = Handshake("2025-06-18", {"sampling": {}})
    await pair.a.save(session)
    on_b = await pair.b.get(session.id, PRINCIPAL)
    assert on_b is not None and on_b.handshake == session.handshake
    assert await pair.b.get(session.id, "oauth:acct-7:other") is None


async def test_nothing_secret_in_the_clear_and_every_key_expires(pair: Pair) -> None:
    session = await pair.a.create(PRINCIPAL)
    session.handshake = Handshake("2025-11-25", {"elicitation": {}})
    session.subscribe("test://private-resource")
    await pair.a.save(session)
    await session.publish({"jsonrpc": "2.0", "method": "m", "params": {"p": "private-event"}})
    asked, outcome = Asked(), list[object]()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_ask, session, asked, outcome)
        await asked.arrived.wait()
        dump = await _dump(pair.state)
        await session.deliver(Response(asked.sent[0]["id"], {"action": "decline"}, None))  # type: ignore[arg-type]
    for secret in (session.id, PRINCIPAL, "grant-secret-42", "private", "2025-11-25"):
        assert secret.encode() not in dump, secret
    keys = [k async for k in pair.state.client.scan_iter(match=f"{pair.state.keys.namespace}:*")]
    assert len(keys) >= 7  # record, meta, events, three sets by last use, subscribers
    for key in keys:
        assert await pair.state.client.pttl(key) > 0, key


async def _dump(state: SharedState) -> bytes:
    """:returns: every key name and value of the namespace, concatenated."""
    parts: list[Any] = []
    client: Any = state.client
    async for key in client.scan_iter(match=f"{state.keys.namespace}:*"):
        parts.append(key)
        kind = (await client.type(key)).decode()
        if kind == "string":
            parts.append(await client.get(key) or b"")
        elif kind == "hash":
            for field, value in (await client.hgetall(key)).items():
                parts += [field, value]
        elif kind == "zset":
            parts += list(await client.zrange(key, 0, -1))
        elif kind == "set":
            parts += list(await client.smembers(key))
    return b"\n".join(bytes(part) for part in parts)


async def test_without_routing_the_server_asks_nothing(pair: Pair, redis_url: str) -> None:
    state = open_state(redis_url, [SECRET], namespace=pair.state.keys.namespace)
    idle = RedisSessionStore(state)  # its routing task never started
    try:
        session = await idle.create(PRINCIPAL)
        async with session.running(1):
            with pytest.raises(StateUnavailableError, match="cannot ask the client"):
                await session.request(Asked(), "roots/list", {}, 5.0)
    finally:
        await state.aclose()
