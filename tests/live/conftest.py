"""Live tests: against the real (trial) sevDesk account of ``SEVDESK_LIVE_TOKEN``.

Marked ``live`` (registered in pyproject.toml): without ``pytest -m live`` they are collected
and skipped with the reason (the hook in ``tests/conftest.py``), and with it still skipped
without a token, so ``-ra`` always prints why they did not run. They run on asyncio only: each read tool is
called once against the account, not once per event loop.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """One event loop: a live account is asked once per test."""
    return "asyncio"
