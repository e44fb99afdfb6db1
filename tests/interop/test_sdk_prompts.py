"""The workflow prompts and their completion through the official MCP Python SDK client, over a
real stdio subprocess on the demo books, in both protocol eras."""

from __future__ import annotations

import pytest
from mcp import types

from tests.interop.test_sdk_stdio import client
from tests.prompts.helpers import TOOL_NAME

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_prompts_list_and_get_through_the_sdk(mode: str) -> None:
    async with client("sevdesk_mcp", mode=mode) as c:
        tools = {t.name for t in (await c.list_tools()).tools}
        listed = (await c.list_prompts()).prompts
        names = [p.name for p in listed]
        got = await c.get_prompt("chase_overdue_invoices", {"contact": "Café Kastanie GmbH"})
        vat = await c.get_prompt("prepare_vat_return", {"period": "2026-Q3"})
        ref = types.PromptReference(type="ref/prompt", name="chase_overdue_invoices")
        completed = await c.complete(ref, {"name": "contact", "value": "Brandt"})
    assert "chase_overdue_invoices" in names and "prepare_vat_return" in names
    assert "file_receipt" not in names  # needs the write tier
    vat_prompt = next(p for p in listed if p.name == "prepare_vat_return")
    assert vat_prompt.arguments and vat_prompt.arguments[0].required is True
    for result in (got, vat):
        (message,) = result.messages
        assert message.role == "user"
        assert isinstance(message.content, types.TextContent)
        assert set(TOOL_NAME.findall(message.content.text)) <= tools
    assert "⟦Café Kastanie GmbH⟧" in got.messages[0].content.text
    assert "Brandt Architekten PartG mbB" in completed.completion.values


async def test_a_bad_prompt_argument_is_an_invalid_params_error() -> None:
    async with client("sevdesk_mcp") as c:
        with pytest.raises(Exception, match="period"):
            await c.get_prompt("prepare_vat_return", {"period": "last year"})
