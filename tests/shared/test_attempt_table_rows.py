"""Every row of the sign-in attempt table (:mod:`sevdesk_mcp.http.web.attempt_table`) run
through both backends: a try is allowed and counted only with room under the limit, and only
the tries within the window count."""

from __future__ import annotations

import anyio
import pytest

from sevdesk_mcp.http.web.attempt_table import ALLOW, has_room
from sevdesk_mcp.http.web.attempts import AttemptBackend, MemoryTries, SignInAttempts
from sevdesk_mcp.http.web.attempts_redis import RedisTries

pytestmark = pytest.mark.anyio
LIMIT = 3
SHORT_S = 0.2


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> AttemptBackend:
    """Either backend."""
    if request.param == "memory":
        return MemoryTries()
    return RedisTries(request.getfixturevalue("shared_state"))


@pytest.mark.parametrize("counted", range(LIMIT + 2))
async def test_every_allow_row_holds_on_both_backends(
    backend: AttemptBackend, counted: int
) -> None:
    store = SignInAttempts(backend, limit=LIMIT, window_s=300)
    for _ in range(min(counted, LIMIT)):
        assert await store.allow("203.0.113.9")
    assert await store.allow("203.0.113.9") is ALLOW[has_room(min(counted, LIMIT), LIMIT)]


async def test_a_refused_try_is_not_counted_and_old_tries_no_longer_count(
    backend: AttemptBackend,
) -> None:
    store = SignInAttempts(backend, limit=LIMIT, window_s=SHORT_S)
    assert [await store.allow("203.0.113.9") for _ in range(LIMIT + 3)] == [True] * LIMIT + [
        False
    ] * 3
    await anyio.sleep(SHORT_S * 2)  # past the window: neither the counted nor the refused count
    assert [await store.allow("203.0.113.9") for _ in range(LIMIT)] == [True] * LIMIT
