"""Fixtures of the finance tests."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo


@pytest.fixture
def demo() -> FakeSevdesk:
    """The demo company, fresh for each test."""
    return build_demo()
