"""Every row of the token bucket table (:mod:`sevdesk_mcp.http.ratelimit_table`) run through
both backends: a new bucket is full, a request takes a token while one is left and is told the
table's wait otherwise, and the bucket refills; the Redis script is handed its parameters from
the table and keeps a bucket no longer than the table says."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.ratelimit import MemoryRateLimits, RateLimits
from sevdesk_mcp.http.ratelimit_shared import RedisRateLimits
from sevdesk_mcp.http.ratelimit_table import TAKE, keep_ms, refill, take, wait_s
from sevdesk_mcp.shared.redis import SharedState

pytestmark = pytest.mark.anyio
SLOW = Limits(rate_per_s=0.01, rate_burst=3)  # no token comes back while the test runs
FAST = Limits(rate_per_s=20, rate_burst=2)


@pytest.fixture(params=["memory", "redis"])
def limiter(request: pytest.FixtureRequest) -> Callable[[Limits], RateLimits]:
    """Either backend, for given limits."""
    if request.param == "memory":
        return MemoryRateLimits
    state: SharedState = request.getfixturevalue("shared_state")
    return lambda limits: RedisRateLimits(state, limits)


async def test_a_new_bucket_is_full_and_every_take_row_holds(
    limiter: Callable[[Limits], RateLimits],
) -> None:
    limits = limiter(SLOW)
    tokens = float(SLOW.rate_burst)
    for _ in range(SLOW.rate_burst + 2):
        tokens, expected = take(tokens, SLOW.rate_per_s)
        assert await limits.retry_after_s("203.0.113.9") == expected
    assert expected == wait_s(0.0, SLOW.rate_per_s) == 100 and not TAKE[False]
    assert await limits.retry_after_s("203.0.113.10") is None  # another client: full


async def test_the_refill_row_holds_on_both_backends(
    limiter: Callable[[Limits], RateLimits],
) -> None:
    limits = limiter(FAST)
    assert [await limits.retry_after_s("c") for _ in range(3)] == [None, None, 1]
    await anyio.sleep(0.15)  # 3 tokens' worth, capped at the burst
    assert refill(0.0, 0.15, FAST.rate_per_s, FAST.rate_burst) == FAST.rate_burst
    assert [await limits.retry_after_s("c") for _ in range(3)] == [None, None, 1]


async def test_the_shared_bucket_is_kept_as_long_as_the_table_says(
    shared_state: SharedState,
) -> None:
    limits = RedisRateLimits(shared_state, SLOW)
    await limits.retry_after_s("203.0.113.9")
    pttl = await shared_state.client.pttl(limits.key("203.0.113.9"))
    assert keep_ms(SLOW) - 1000 < pttl <= keep_ms(SLOW)
