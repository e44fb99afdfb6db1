"""Where the write tools appear: only with the write tier, never in read-only mode."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.tools.define import WRITE_ENVELOPE_SCHEMA
from tests.demo_account import demo_app
from tests.wire import open_wire
from tests.writes.tool_helpers import WRITE, WRITE_TOOLS, call, error_text, write_app

pytestmark = pytest.mark.anyio


async def listed(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    async with open_wire(demo_app(env)) as wire:
        tools = (await wire.modern("tools/list"))["result"]["tools"]
    return {t["name"]: t for t in tools}


@pytest.mark.parametrize(
    "env",
    [{}, {"SEVDESK_READ_ONLY": "1"}, {**WRITE, "SEVDESK_READ_ONLY": "1"}],
    ids=["default", "read-only", "write-but-read-only"],
)
async def test_the_write_tools_are_absent_without_the_write_tier(env: dict[str, str]) -> None:
    names = await listed(env)
    assert "sevdesk_search_contacts" in names and "sevdesk_search_parts" in names
    assert not set(WRITE_TOOLS) & set(names)


async def test_the_write_tools_are_listed_with_the_write_tier() -> None:
    names = await listed(WRITE)
    for name in WRITE_TOOLS:
        tool = names[name]
        assert tool["annotations"] == {"readOnlyHint": False, "destructiveHint": False}
        assert tool["inputSchema"]["properties"]["dryRun"] == {"type": "boolean"}
        assert "outputSchema" not in tool  # the shared write envelope, said once (ADR 0007)


async def test_dry_runs_and_the_write_envelope_are_explained_once_in_the_instructions() -> None:
    text = write_app(build_demo()).instructions or ""
    assert "Write tools change sevDesk" in text
    assert "dryRun=true only previews: nothing changes, nobody is asked" in text
    assert "status (done, dry_run, approval_pending, declined)" in text


async def test_dry_run_mode_previews_without_the_argument_and_sends_nothing() -> None:
    fake = build_demo()
    app = write_app(fake, {"SEVDESK_DRY_RUN": "1"})
    data = (await call(app, "sevdesk_update_part", part_id=610001, name="X"))["structuredContent"]
    assert data["status"] == "dry_run"
    assert [r for r in fake.requests if r.method != "GET"] == []


async def test_hidden_characters_are_refused_before_any_request() -> None:
    fake = build_demo()
    arguments = {"kind": "organisation", "category": "customer", "name": "Neu\u202eGmbH"}
    result = await call(write_app(fake), "sevdesk_create_contact", **arguments)
    assert "U+202E" in error_text(result)
    assert fake.requests == []


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("sevdesk_create_contact", {"kind": "person", "category": "prospect", "family_name": "Ost"}),
    ("sevdesk_update_contact", {"contact_id": 410003, "tax_number": "12/345/67890"}),
    (
        "sevdesk_create_part",
        {"name": "Hocker", "part_number": "H-1", "tax_rate": 7, "net_price": "99.99"},
    ),
    ("sevdesk_update_part", {"part_id": 610002, "stock": "0.5"}),
]


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "done"])
async def test_every_write_result_matches_the_output_schema(dry_run: bool) -> None:
    fake = build_demo()
    app = write_app(fake)
    async with open_wire(app) as wire:
        tools = {t["name"]: t for t in (await wire.modern("tools/list"))["result"]["tools"]}
    for name, arguments in CALLS:
        data = (await call(app, name, **arguments, dryRun=dry_run))["structuredContent"]
        assert data["status"] == ("dry_run" if dry_run else "done")
        assert "outputSchema" not in tools[name]  # listed once as WRITE_ENVELOPE_SCHEMA
        jsonschema.validate(data, WRITE_ENVELOPE_SCHEMA)
    assert len([r for r in fake.requests if r.method != "GET"]) == (0 if dry_run else 4)
