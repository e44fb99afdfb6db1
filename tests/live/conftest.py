"""Live tests: against the real (trial) sevDesk account of ``SEVDESK_LIVE_TOKEN``.

Marked ``live`` (registered in pyproject.toml) and skipped with their reason without a token, so the default suite collects
them and ``-ra`` prints why they did not run. They run on asyncio only: each read tool is
called once against the account, not once per event loop.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """One event loop: a live account is asked once per test."""
    return "asyncio"
