"""Fixtures of the fake sevDesk tests: an empty account and the demo company."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk, build_demo_with_facts
from tests.fake.helpers import TOKEN


@pytest.fixture
def fake() -> FakeSevdesk:
    """An empty account: only reference data and the owner."""
    return FakeSevdesk(token=TOKEN, version="2.0")


@pytest.fixture
def demo_pair() -> tuple[FakeSevdesk, DemoFacts]:
    """The demo company and its key figures, fresh for each test."""
    return build_demo_with_facts()


@pytest.fixture
def demo(demo_pair: tuple[FakeSevdesk, DemoFacts]) -> FakeSevdesk:
    """The demo company."""
    return demo_pair[0]


@pytest.fixture
def facts(demo_pair: tuple[FakeSevdesk, DemoFacts]) -> DemoFacts:
    """The demo company's key figures."""
    return demo_pair[1]
