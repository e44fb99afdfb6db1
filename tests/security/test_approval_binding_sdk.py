"""Approval binding over the real stdio transport with the official SDK client, both eras
(issue 12, finding 1; threat F01): the record changes while the human looks at the form."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import types

from tests.interop.test_sdk_stdio import client
from tests.security.test_approval_binding import FINALIZE, FINALIZE_DRAFT, SAME_GROSS
from tests.writes.helpers import DRAFT_ID

pytestmark = [pytest.mark.anyio, pytest.mark.threat("F01")]
WRITE_AND_COMMIT = {"SEVDESK_ALLOW": "write,commit"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


class ChangeThenApprove:
    """Approves every form; before answering the first, changes the draft with the write tier."""

    def __init__(self) -> None:
        self.client: Any = None
        self.messages: list[str] = []

    async def __call__(self, ctx: Any, params: Any) -> Any:
        self.messages.append(params.message)
        if len(self.messages) == 1:
            updated = await self.client.call_tool("sevdesk_update_document_draft", SAME_GROSS)
            assert '"status":"done"' in updated.content[0].text, updated
        return types.ElicitResult(action="accept", content={"approve": True})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_is_asked_again_after_the_draft_changed(mode: str) -> None:
    human = ChangeThenApprove()
    async with client("sevdesk_mcp", human, mode=mode, env=WRITE_AND_COMMIT) as c:  # type: ignore[arg-type]
        human.client = c
        result = await c.call_tool(FINALIZE, FINALIZE_DRAFT)
        document = await c.call_tool(
            "sevdesk_get_document", {"kind": "invoice", "document_id": DRAFT_ID}
        )
    assert len(human.messages) == 2, human.messages
    assert human.messages[1].startswith("The records changed since you were asked (")
    assert "Pauschale" in human.messages[1] and "Pauschale" not in human.messages[0]
    assert '"status":"done"' in result.content[0].text  # the second approval saw the change
    finalized = json.loads(document.content[0].text)
    assert [p["name"] for p in finalized["positions"]] == ["⟦Pauschale⟧"]
