"""Shared test configuration.

- Every async test runs on asyncio and on trio.
- Hypothesis never judges the machine's speed: no deadline, no speed health checks (a loaded
  CI machine must not fail a test that is correct).
- The process's one redactor learns secrets as tests build clients, codecs and canaries; each
  test starts from what it knew before the test, so no test can be masked by another's canary
  and the redactor does not grow with the length of the run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from sevdesk_mcp.safety.redact import REDACTOR

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
