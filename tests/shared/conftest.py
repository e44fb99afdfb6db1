"""The shared state's tests run on asyncio only: the ``redis`` package's client is asyncio's
(the server runs on asyncio; ``sevdesk_mcp.shared.redis``)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """asyncio, the one backend the ``redis`` client supports."""
    return "asyncio"
