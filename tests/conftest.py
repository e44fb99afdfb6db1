"""Shared test configuration.

- Every async test runs on asyncio and on trio.
- Hypothesis never judges the machine's speed: no deadline, no speed health checks (a loaded
  CI machine must not fail a test that is correct).
- The process's one redactor learns secrets as tests build clients, codecs and canaries; each
  test starts from what it knew before the test, so no test can be masked by another's canary
  and the redactor does not grow with the length of the run.
- Every write request the real client sends to the fake is an entry of the endpoint table
  (``tests/endpoint_witness.py``).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from sevdesk_mcp.safety.redact import REDACTOR

if TYPE_CHECKING:
    from sevdesk_mcp.shared.redis import SharedState

pytest_plugins = ["tests.endpoint_witness"]  # every write request is in the endpoint table

settings.register_profile(
    "machine-independent",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("machine-independent")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Run each async test on both backends anyio supports."""
    return str(request.param)


@pytest.fixture(autouse=True)
def _redactor_per_test() -> Iterator[None]:
    known = REDACTOR._rules  # the harness resets the process-wide registry
    yield
    REDACTOR._rules = known


@pytest.fixture
def redis_url() -> str:
    """The URL of a real Redis server (see ``tests/redis_server.py``); skips without one."""
    from tests.redis_server import redis_url as url

    return url()


@pytest.fixture
async def shared_state(redis_url: str) -> AsyncIterator[SharedState]:
    """A shared state on the test Redis under a namespace of its own (asyncio only: the
    ``redis`` client is asyncio's); its keys are deleted afterwards."""
    from sevdesk_mcp.shared.redis import open_state

    state = open_state(redis_url, ["test-secret-" + "x" * 32], namespace=f"t{uuid.uuid4().hex}")
    try:
        yield state
    finally:
        keys = [k async for k in state.client.scan_iter(match=f"{state.keys.namespace}:*")]
        if keys:
            await state.client.delete(*keys)
        await state.aclose()


LIVE_REASON = "live test: run `pytest -m live` with {needs} set"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Opt-in by ``-m live`` only: without it every ``live`` test is collected and skipped with
    the reason (``-ra`` prints it), whatever the environment holds."""
    if "live" in (config.getoption("markexpr", "") or ""):
        return
    for item in items:
        marker = item.get_closest_marker("live")
        if marker is not None:
            needs = marker.kwargs.get("needs", "SEVDESK_LIVE_TOKEN")
            reason = LIVE_REASON.format(needs=needs)  # first, before the tests' own skipifs
            item.add_marker(pytest.mark.skipif(True, reason=reason), append=False)
