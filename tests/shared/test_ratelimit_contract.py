"""Rate limits per client: one contract for the buckets of this process and the shared ones,
then what only the shared buckets do (one budget across instances, expiring keys, refusal when
Redis is gone)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import anyio
import pytest

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.ratelimit import MemoryRateLimits, RateLimits
from sevdesk_mcp.http.ratelimit_shared import RedisRateLimits
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.redis_server import free_port

pytestmark = pytest.mark.anyio
SECRETS = ["test-secret-" + "x" * 32]
Make = Callable[[Limits], RateLimits]


@pytest.fixture(params=["memory", "redis"])
def make(request: pytest.FixtureRequest) -> Make:
    """Builds the buckets under test: this process's, or the shared state's."""
    if request.param == "memory":
        return MemoryRateLimits
    state: SharedState = request.getfixturevalue("shared_state")
    return lambda limits: RedisRateLimits(state, limits)


@pytest.fixture
async def other_instance(shared_state: SharedState, redis_url: str) -> AsyncIterator[SharedState]:
    """A second instance: its own Redis client on the same namespace."""
    state = open_state(redis_url, SECRETS, namespace=shared_state.keys.namespace)
    yield state
    await state.aclose()


async def test_a_bucket_lets_its_burst_through_then_says_how_long_to_wait(make: Make) -> None:
    limits = make(Limits(rate_per_s=1 / 600, rate_burst=2))  # a token per 10 min: none mid-test
    started = time.monotonic()
    assert [await limits.retry_after_s("a"), await limits.retry_after_s("a")] == [None, None]
    third = await limits.retry_after_s("a")
    fourth = await limits.retry_after_s("a")
    took = time.monotonic() - started
    # a token's 600 s, less what came back meanwhile (a slow machine waits less, never more)
    assert third is not None and 600 - took <= third <= 600, third
    assert fourth is not None and 600 - took <= fourth <= third, fourth  # a refusal takes none


async def test_each_client_key_has_its_own_bucket(make: Make) -> None:
    limits = make(Limits(rate_per_s=0.001, rate_burst=1))
    assert await limits.retry_after_s("203.0.113.7") is None
    assert await limits.retry_after_s("203.0.113.7") is not None
    assert await limits.retry_after_s("2001:db8:1:2::/64") is None


async def _takes(limits: RateLimits, count: int) -> tuple[list[int | None], float]:
    """:returns: the answers of ``count`` takes in a row, and the seconds they took."""
    started = time.monotonic()
    answers = [await limits.retry_after_s("a") for _ in range(count)]
    return answers, time.monotonic() - started


async def test_an_empty_bucket_refills_at_its_rate(make: Make) -> None:
    limits = make(Limits(rate_per_s=2, rate_burst=1))
    # counted, not timed: a bucket of one admits the first take, then at most the 2 tokens a
    # second it regains meanwhile (a slow machine regains more), and says whole seconds
    answers, took = await _takes(limits, 4)
    assert answers[0] is None and set(answers) <= {None, 1}, answers
    assert answers.count(None) <= 1 + 2 * took, (answers, took)
    await anyio.sleep(1.2)  # two tokens' worth (each 500 ms); a slow machine sleeps longer
    answers, took = await _takes(limits, 4)
    assert answers[0] is None, answers  # refilled
    assert answers.count(None) <= 1 + 2 * took, (answers, took)  # it held one, not two


async def test_two_instances_share_one_clients_bucket(
    shared_state: SharedState, other_instance: SharedState
) -> None:
    limits = Limits(rate_per_s=0.001, rate_burst=3)
    first, second = RedisRateLimits(shared_state, limits), RedisRateLimits(other_instance, limits)
    answers = [await (first, second)[n % 2].retry_after_s("203.0.113.7") for n in range(4)]
    assert answers[:3] == [None, None, None]
    assert answers[3] is not None
    assert await second.retry_after_s("203.0.113.8") is None


async def test_two_limiters_do_not_share_buckets(shared_state: SharedState) -> None:
    limits = Limits(rate_per_s=0.001, rate_burst=1)
    clients, register = (
        RedisRateLimits(shared_state, limits),
        RedisRateLimits(shared_state, limits, limiter="register"),
    )
    assert await clients.retry_after_s("a") is None
    assert await register.retry_after_s("a") is None


async def test_bucket_keys_expire_and_hold_no_address(shared_state: SharedState) -> None:
    limits = RedisRateLimits(shared_state, Limits(rate_per_s=2, rate_burst=4))
    await limits.retry_after_s("203.0.113.7")
    keys = [
        k async for k in shared_state.client.scan_iter(match=f"{shared_state.keys.namespace}:*")
    ]
    assert keys == [limits.key("203.0.113.7").encode()]
    assert b"203.0.113.7" not in keys[0]
    ttl_ms = await shared_state.client.pttl(keys[0])
    assert 0 < ttl_ms <= 3000  # full again after burst / rate = 2 s, and one more


async def test_an_unreachable_state_falls_back_to_this_process_buckets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    state = open_state(f"redis://127.0.0.1:{free_port()}/0", SECRETS)
    limits = RedisRateLimits(state, Limits(rate_per_s=1, rate_burst=2))
    try:
        taken = [await limits.retry_after_s("a") for _ in range(3)]
    finally:
        await state.aclose()
    assert taken == [None, None, 1]  # limited all the same, by this process's bucket
    warnings = [r.getMessage() for r in caplog.records if r.name == "sevdesk_mcp.shared"]
    assert len(warnings) == 1 and "until Redis is back" in warnings[0]  # once per outage
