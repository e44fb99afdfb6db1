"""The commit document tools as a client sees them: annotations, tier, toolset, registration."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.documents import commit as documents_commit
from tests.documents.commit_helpers import commit_app
from tests.wire import open_wire

pytestmark = pytest.mark.anyio
NAMES = {
    "sevdesk_book_payment",
    "sevdesk_cancel_invoice",
    "sevdesk_credit_note_from_invoice",
    "sevdesk_reset_document",
}


async def test_every_tool_is_a_binding_commit_tool_with_explicit_annotations() -> None:
    assert {t.name for t in documents_commit.TOOLS} == NAMES
    async with open_wire(commit_app(build_demo())) as wire:
        listed = (await wire.modern("tools/list"))["result"]["tools"]
    shown = {t["name"]: t for t in listed if t["name"] in NAMES}
    assert set(shown) == NAMES
    for tool in documents_commit.TOOLS:
        assert (tool.tier, tool.toolset) == (Tier.COMMIT, "documents")
        annotations = shown[tool.name]["annotations"]
        assert annotations == {"readOnlyHint": False, "destructiveHint": True}  # MCP defaults:
        assert tool.annotations.idempotent is False and tool.annotations.open_world is True
        assert "dryRun" in shown[tool.name]["inputSchema"]["properties"]


@pytest.mark.parametrize("allow", ["write", "write,external"])
async def test_without_the_commit_tier_they_are_not_registered(allow: str) -> None:
    async with open_wire(commit_app(build_demo(), {"SEVDESK_ALLOW": allow})) as wire:
        listed = (await wire.modern("tools/list"))["result"]["tools"]
    assert not NAMES & {t["name"] for t in listed}
