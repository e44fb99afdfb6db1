"""The official MCP Python SDK client against our server over a real stdio subprocess."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp.client.session as sdk_session
import pytest
from mcp import Client, StdioServerParameters, types

from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools import definitions
from sevdesk_mcp.tools.registry import served
from tests.integration.test_cli import clean_environment

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


def _params(module: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", module, *(["--demo"] if module == "sevdesk_mcp" else [])],
        cwd=str(ROOT),
        env={**clean_environment(), "PYTHONPATH": str(ROOT), **(env or {})},
    )


class Answers:
    def __init__(self, action: str = "accept") -> None:
        self.action = action
        self.asked: list[str] = []

    async def __call__(self, ctx: Any, params: Any) -> Any:
        self.asked.append(params.message)
        content = {"name": "Ada"} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)


@asynccontextmanager
async def client(
    module: str,
    answers: Answers | None = None,
    mode: str = "auto",
    env: dict[str, str] | None = None,
) -> AsyncIterator[Any]:
    async with Client(
        _params(module, env), mode=mode, elicitation_callback=answers, cache=None
    ) as c:
        yield c


DEMO_TOOLS = [
    t.name
    for t in definitions.ALL_TOOLS
    if t.tier is Tier.READ and t.toolset in definitions.DEFAULT_TOOLSETS
]
WITH_WRITES = [  # over stdio: no tool that needs file transfer (issue 35, finding 10)
    t.name
    for t in definitions.ALL_TOOLS
    if t.tier <= Tier.WRITE
    and t.toolset in definitions.DEFAULT_TOOLSETS
    and served(t.needs_files, "local")
]


async def test_auto_mode_speaks_2026_against_the_demo_books() -> None:
    async with client("sevdesk_mcp") as c:
        assert c.protocol_version == "2026-07-28"
        tools = await c.list_tools()
        assert [t.name for t in tools.tools] == DEMO_TOOLS
        assert all(t.annotations.read_only_hint for t in tools.tools)
        status = await c.call_tool("sevdesk_server_status", {})
        found = await c.call_tool("sevdesk_search_contacts", {"query": "Brandt"})
        contact_id = found.structured_content["contacts"][0]["id"]
        contact = await c.call_tool("sevdesk_get_contact", {"contact_id": contact_id})
    assert status.structured_content["tiers"] == ["read"]
    assert status.structured_content["protocol_version"] == "2026-07-28"
    assert contact.structured_content["addresses"]
    assert contact.is_error is not True


async def test_legacy_mode_speaks_2025_against_the_demo_books() -> None:
    async with client("sevdesk_mcp", mode="legacy", env={"SEVDESK_ALLOW": "write"}) as c:
        assert c.protocol_version == "2025-11-25"
        tools = await c.list_tools()
        status = await c.call_tool("sevdesk_server_status", {})
        info = await c.call_tool("sevdesk_account_info", {})
        bad = await c.call_tool("sevdesk_get_contact", {"contact_id": "x"})
    assert [t.name for t in tools.tools] == WITH_WRITES
    assert status.structured_content is None
    assert '"tiers":["read","write"]' in status.content[0].text
    assert "Holzwerk Sonnenberg GmbH" in info.content[0].text
    assert bad.is_error is True


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    ("action", "text"), [("accept", "Hello, Ada!"), ("decline", "greeting: decline")]
)
async def test_elicitation_is_answered_through_the_callback_in_both_eras(
    mode: str, action: str, text: str
) -> None:
    answers = Answers(action)
    async with client("tests.interop.fixture_server", answers, mode=mode) as c:
        result = await c.call_tool("greet", {})
    assert answers.asked == ["What is your name?"]
    assert result.content[0].text.startswith(text)


async def test_a_forced_2025_06_18_handshake_gets_a_legacy_elicitation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sdk_session, "LATEST_HANDSHAKE_VERSION", "2025-06-18")
    answers = Answers()
    async with client("tests.interop.fixture_server", answers, mode="legacy") as c:
        assert c.protocol_version == "2025-06-18"
        result = await c.call_tool("greet", {})
    assert result.content[0].text.startswith("Hello, Ada!")


async def test_prompts_resources_and_completion_through_the_sdk() -> None:
    async with client("tests.interop.fixture_server", Answers()) as c:
        prompt = await c.get_prompt("hello", {"who": "Bo"})
        resources = await c.list_resources()
        read = await c.read_resource("test://r/2")
    assert prompt.messages[0].content.text == "Hello Bo"
    assert len(resources.resources) == 3
    assert read.contents[0].text == "content of test://r/2"


class Approver:
    def __init__(self, approve: bool) -> None:
        self.approve = approve
        self.messages: list[str] = []

    async def __call__(self, ctx: Any, params: Any) -> Any:
        self.messages.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": self.approve})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("approve", [True, False])
async def test_a_human_approves_or_declines_a_commit_write_in_both_eras(
    mode: str, approve: bool
) -> None:
    approver = Approver(approve)
    async with client("tests.interop.write_server", approver, mode=mode) as c:  # type: ignore[arg-type]
        result = await c.call_tool("sevdesk_test_finalize_invoice", {"invoice_id": 700041})
        after = await c.call_tool("sevdesk_search_documents", {"status": "draft"})
    text = result.content[0].text
    assert len(approver.messages) == 1
    assert approver.messages[0].startswith("WARNING: sevDesk assigns the invoice number now.")
    assert ('"status":"done"' in text) is approve
    assert ('"status":"declined"' in text) is not approve
    drafts = [d["id"] for d in json.loads(after.content[0].text)["documents"]]
    assert (700041 in drafts) is not approve
