"""Redis stopped mid-run (issue 25): every instance refuses what needs state with a clear error
and answers ``/healthz`` with 503, nothing is executed twice, nothing falls back to state of its
own, and service resumes when Redis is back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

from tests.http.helpers import HANG_GUARD_S
from tests.http.process import HttpProcess
from tests.redis_server import RedisProcess
from tests.security.test_approval_binding import FINALIZE, FINALIZE_DRAFT
from tests.shared.instances import answer, call, demo_books, instances
from tests.shared.test_instances import FINALIZED

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def own_redis() -> AsyncIterator[RedisProcess]:
    server = RedisProcess().start()
    try:
        yield server
    finally:
        server.stop()


async def _health(server: HttpProcess) -> int:
    async with httpx.AsyncClient(timeout=HANG_GUARD_S, trust_env=False) as client:
        response = await client.get(server.url.removesuffix("/mcp") + "/healthz")
    return response.status_code


async def _back_in_rotation(*servers: HttpProcess) -> list[int]:
    """:returns: each server's ``/healthz`` once all are 200 again: 503 until each one's answer
    routing has subscribed again (issue 35, finding 5), a hang guard around the wait."""
    with anyio.fail_after(HANG_GUARD_S):
        while True:
            statuses = [await _health(server) for server in servers]
            if statuses == [200] * len(servers):
                return statuses
            await anyio.sleep(0.1)


def _error_text(message: dict[str, Any]) -> str:
    if "error" in message:
        return str(message["error"]["message"])
    assert message["result"].get("isError") is True, message
    return str(message["result"]["content"][0]["text"])


async def test_redis_stopped_mid_run_refuses_clearly_and_recovers() -> None:
    async with own_redis() as redis:
        with demo_books() as books:
            async with instances(books, redis.url, count=2) as (one, two):
                assert [await _health(one), await _health(two)] == [200, 200]
                asked = await call(one, FINALIZE, FINALIZE_DRAFT)
                redis.stop()
                refused = await call(two, FINALIZE, FINALIZE_DRAFT, **answer(asked))
                fresh = await call(one, FINALIZE, FINALIZE_DRAFT)
                listed = await call(two, "sevdesk_search_contacts", {"query": "a"})
                down = [await _health(one), await _health(two)]
                writes_while_down = list(books.writes())
                redis.start()  # empty: nothing was persisted
                up = await _back_in_rotation(one, two)
                replayed = await call(one, FINALIZE, FINALIZE_DRAFT, **answer(asked))
                again = await call(two, FINALIZE, FINALIZE_DRAFT)
                done = await call(one, FINALIZE, FINALIZE_DRAFT, **answer(again))
    assert "SEVDESK_HTTP_STATE_URL" in _error_text(refused)
    assert "SEVDESK_HTTP_STATE_URL" in _error_text(fresh)
    assert listed["result"].get("isError") is not True, listed  # a read needs no shared state
    assert down == [503, 503] and up == [200, 200]
    assert writes_while_down == []
    assert _error_text(replayed)  # the nonce died with Redis' data: asked again, not executed
    assert done["result"].get("isError") is not True, done
    assert books.writes().count(FINALIZED) == 1
