"""Browser sessions and sign-in attempts of the web pages: one contract for this process's
stores and the shared state's, then what only the shared ones must show (a cookie set by one
instance opens on another, a sign-out on one ends the session on all, the attempts of a client
are counted across instances, nothing secret stands in Redis, every key expires)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.http.web.attempts import Attempts, MemoryAttempts
from sevdesk_mcp.http.web.attempts_redis import RedisAttempts
from sevdesk_mcp.http.web.sessions import (
    SESSION_TTL_S,
    MemorySignOuts,
    SessionStore,
    SignOuts,
)
from sevdesk_mcp.http.web.sessions_redis import RedisSignOuts
from sevdesk_mcp.shared.redis import SharedState, open_state
from sevdesk_mcp.shared.seal import derived_key

pytestmark = pytest.mark.anyio
SECRET = "test-secret-" + "x" * 32
KEYS = [derived_key(SECRET, "cookie")]


def _signouts(request: pytest.FixtureRequest) -> SignOuts:
    if request.param == "memory":
        return MemorySignOuts()
    return RedisSignOuts(request.getfixturevalue("shared_state"))


@pytest.fixture(params=["memory", "redis"])
def sessions(request: pytest.FixtureRequest) -> SessionStore:
    """The session store under test, with sign-outs in memory or in the shared state."""
    return SessionStore(_signouts(request), keys=KEYS)


SHORT_S = 0.5


def _attempts(request: pytest.FixtureRequest, window_s: float) -> Attempts:
    if request.param == "memory":
        return MemoryAttempts(window_s=window_s)
    return RedisAttempts(request.getfixturevalue("shared_state"), window_s=window_s)


@pytest.fixture(params=["memory", "redis"])
def attempts(request: pytest.FixtureRequest) -> Attempts:
    """The sign-in attempts under test, with the window of 5 minutes (no stall ends it)."""
    return _attempts(request, 300.0)


@pytest.fixture(params=["memory", "redis"])
def short(request: pytest.FixtureRequest) -> Attempts:
    """Sign-in attempts with a window of :data:`SHORT_S`."""
    return _attempts(request, SHORT_S)


@pytest.fixture
async def other(shared_state: SharedState, redis_url: str) -> AsyncIterator[SharedState]:
    """A second instance: its own Redis client on the same namespace."""
    state = open_state(redis_url, [SECRET], namespace=shared_state.keys.namespace)
    yield state
    await state.aclose()


def _cookies(*values: str) -> Headers:
    return Headers([(b"cookie", v.encode()) for v in values])


def _request(set_cookie: str) -> Headers:
    return _cookies(set_cookie.partition(";")[0])


async def test_a_session_opens_from_its_cookie_until_signed_out(sessions: SessionStore) -> None:
    session = sessions.start("4711", "Muster GmbH")
    cookie = sessions.set_cookie(session)
    assert session.id not in cookie and session.csrf not in cookie and "4711" not in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert f"Max-Age={SESSION_TTL_S}" in cookie
    assert await sessions.of(_request(cookie)) == session
    await sessions.end(session)
    assert await sessions.of(_request(cookie)) is None


async def test_a_forged_tampered_or_missing_cookie_opens_nothing(sessions: SessionStore) -> None:
    cookie = sessions.set_cookie(sessions.start("4711", "Muster GmbH"))
    name, _, value = cookie.partition(";")[0].partition("=")
    tampered = value[:-2] + ("AA" if value[-2:] != "AA" else "BB")
    foreign = SessionStore(keys=[derived_key("another-secret-" + "y" * 30, "cookie")])
    for headers in (
        _cookies(f"{name}={tampered}"),
        _cookies(f"{name}=not-base64-%%%"),
        _cookies(),
        _request(foreign.set_cookie(foreign.start("4711", "x"))),
        _cookies(f"{name}={value}", f"{name}={value}"),  # sent twice
    ):
        assert await sessions.of(headers) is None


async def test_an_expired_session_opens_nothing() -> None:
    now = [1_000_000.0]
    store = SessionStore(keys=KEYS, clock=lambda: now[0])
    cookie = store.set_cookie(store.start("4711", "Muster GmbH"))
    now[0] += SESSION_TTL_S + 1
    assert await store.of(_request(cookie)) is None


async def test_a_client_gets_five_tries_per_window(attempts: Attempts) -> None:
    assert [await attempts.allow("203.0.113.9") for _ in range(6)] == [True] * 5 + [False]
    assert await attempts.allow("203.0.113.10")


async def test_tries_older_than_the_window_no_longer_count(short: Attempts) -> None:
    assert [await short.allow("203.0.113.9") for _ in range(5)] == [True] * 5  # all it may
    await anyio.sleep(SHORT_S + 0.2)  # past the window (a slow machine only waits longer)
    assert [await short.allow("203.0.113.9") for _ in range(5)] == [True] * 5


async def test_a_cookie_of_one_instance_opens_on_another_and_signs_out_on_all(
    shared_state: SharedState, other: SharedState
) -> None:
    one = SessionStore(RedisSignOuts(shared_state), keys=KEYS)
    two = SessionStore(RedisSignOuts(other), keys=[derived_key(SECRET, "cookie")])
    session = one.start("4711", "Muster GmbH")
    cookie = one.set_cookie(session)
    assert await two.of(_request(cookie)) == session
    await two.end(session)
    assert await one.of(_request(cookie)) is None


async def test_a_rotated_secret_still_opens_the_earlier_cookies() -> None:
    old = SessionStore(keys=KEYS)
    cookie = old.set_cookie(old.start("4711", "Muster GmbH"))
    rotated = SessionStore(keys=[derived_key("new-secret-" + "z" * 32, "cookie"), *KEYS])
    assert await rotated.of(_request(cookie)) is not None


async def test_the_tries_of_a_client_count_across_instances(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisAttempts(shared_state), RedisAttempts(other)
    allowed: list[bool] = []

    async def attempt(store: RedisAttempts) -> None:
        allowed.append(await store.allow("203.0.113.9"))

    async with anyio.create_task_group() as group:
        for n in range(8):
            group.start_soon(attempt, (one, two)[n % 2])
    assert sorted(allowed) == [False] * 3 + [True] * 5


async def test_nothing_secret_stands_in_redis_and_every_key_expires(
    shared_state: SharedState,
) -> None:
    store = SessionStore(RedisSignOuts(shared_state), keys=KEYS)
    session = store.start("4711", "Muster GmbH")
    await store.end(session)
    await RedisAttempts(shared_state).allow("203.0.113.9")
    namespace = shared_state.keys.namespace
    keys = [k async for k in shared_state.client.scan_iter(match=f"{namespace}:*")]
    assert len(keys) == 2
    for key in keys:
        assert session.id.encode() not in key and b"203.0.113.9" not in key
        if await shared_state.client.type(key) == b"string":
            assert await shared_state.client.get(key) == b"1"
        assert 0 < await shared_state.client.pttl(key) <= SESSION_TTL_S * 1000
