"""Every read tool's text content stays within its budget on the demo books (issue 39), and
the budget table of docs/tools.md is the one checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from sevdesk_mcp.mcp.types import MODERN_VERSION
from sevdesk_mcp.tools.budgets import RESULT_BUDGETS
from tests.results.sizes import text_sizes

pytestmark = pytest.mark.anyio
DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


async def test_every_read_tool_has_a_budget_and_keeps_it() -> None:
    sizes = await text_sizes()
    assert set(sizes) == set(RESULT_BUDGETS)
    over = {n: (s, RESULT_BUDGETS[n][0]) for n, s in sizes.items() if s > RESULT_BUDGETS[n][0]}
    assert not over, over


@pytest.mark.parametrize("version", ["2025-06-18", MODERN_VERSION])
async def test_the_budgets_hold_in_other_protocol_versions(version: str) -> None:
    sizes = await text_sizes(version)
    assert set(sizes) == set(RESULT_BUDGETS)
    assert all(size <= RESULT_BUDGETS[name][0] for name, size in sizes.items())


def test_the_issue_s_numbers() -> None:
    # open items for the 11 open invoices of the demo books within 2.5 KB
    assert RESULT_BUDGETS["sevdesk_open_items"][0] <= 2_500
    assert RESULT_BUDGETS["sevdesk_server_status"][0] < 1_686


def test_docs_state_the_budgets() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name, (budget, measured) in RESULT_BUDGETS.items():
        assert f"| `{name}` | {budget:,} | {measured:,} |" in text
    assert "`714.00 EUR`" in text
