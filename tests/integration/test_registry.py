"""The registry wrapper, driven through the real dispatcher: selection, validation, errors."""

from __future__ import annotations

import json

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.server import SERVER_INFO, ServerFactory
from sevdesk_mcp.tools import definitions
from sevdesk_mcp.tools.registry import Registry, served
from tests.tool_fixtures import FINALIZE, TEST_TOOLS
from tests.wire import FORM, Wire, open_wire

pytestmark = pytest.mark.anyio

CATALOG = (*definitions.ALL_TOOLS, *TEST_TOOLS)


def build(env: dict[str, str] | None = None) -> McpApp:
    config = load_config(env or {})
    return ServerFactory(config, catalog_tools=CATALOG).build(AccountContext(config=config))


async def names(wire: Wire) -> list[str]:
    return [t["name"] for t in (await wire.modern("tools/list"))["result"]["tools"]]


DEFAULT_ON = [  # over stdio: local folders serve every file need but file transfer's
    t
    for t in definitions.ALL_TOOLS
    if t.toolset in definitions.DEFAULT_TOOLSETS and served(t.needs_files, "local")
]
PRODUCT = [t.name for t in DEFAULT_ON if t.tier is Tier.READ]
PRODUCT_WITH_WRITES = [t.name for t in DEFAULT_ON if t.tier <= Tier.WRITE]
PRODUCT_BINDING = [t.name for t in DEFAULT_ON if t.tier is not Tier.WRITE]
LOOKUP, DRAFT, FINALIZE_, SEND = (t.name for t in TEST_TOOLS)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, [*PRODUCT, LOOKUP]),
        ({"SEVDESK_ALLOW": "write"}, [*PRODUCT_WITH_WRITES, LOOKUP, DRAFT]),
        ({"SEVDESK_ALLOW": "commit,external"}, [*PRODUCT_BINDING, LOOKUP, FINALIZE_, SEND]),
        (
            {"SEVDESK_ALLOW": "write,commit,external", "SEVDESK_READ_ONLY": "yes"},
            [*PRODUCT, LOOKUP],
        ),
        (
            {"SEVDESK_ALLOW": "write,commit,external", "SEVDESK_TOOLSETS": "testing"},
            [LOOKUP, DRAFT, FINALIZE_],
        ),
    ],
)
async def test_registration_selects_by_tier_and_toolset(env: dict, expected: list[str]) -> None:
    async with open_wire(build(env)) as wire:
        assert await names(wire) == expected


def test_an_unknown_toolset_stops_start_up_naming_the_known_ones() -> None:
    with pytest.raises(
        ConfigError,
        match="unknown toolset 'contacs'; known toolsets: advanced, banking, contacts, documents,",
    ):
        ServerFactory(load_config({"SEVDESK_TOOLSETS": "contacs"}))


async def test_every_call_rechecks_the_tier() -> None:
    # Registered while commit was allowed; this account's configuration no longer allows it.
    safety = SafetyRuntime(AuditLog(None))
    registry = Registry((FINALIZE,), AccountContext(config=load_config({})), safety)
    app = McpApp(info=SERVER_INFO, codec=RequestStateCodec(), tools=registry)
    async with open_wire(app) as wire:
        answer = await wire.modern("tools/call", {"name": "sevdesk_test_finalize"})
    result = answer["result"]
    assert result["isError"] is True
    assert "needs the commit tier" in result["content"][0]["text"]
    assert "SEVDESK_ALLOW" in result["content"][0]["text"]


async def test_unregistered_tools_are_unknown() -> None:
    async with open_wire(build()) as wire:
        answer = await wire.modern("tools/call", {"name": "sevdesk_test_finalize"})
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"].startswith("Unknown tool: sevdesk_test_finalize; ")


async def test_a_tool_of_a_tier_that_is_off_is_unknown_and_says_what_turns_it_on() -> None:
    config = load_config({})  # read-only
    app = ServerFactory(config).build(AccountContext(config=config))
    async with open_wire(app) as wire:
        off = await wire.modern("tools/call", {"name": "sevdesk_finalize_document"})
        made_up = await wire.modern("tools/call", {"name": "sevdesk_make_it_so"})
    assert off["error"]["code"] == -32602
    assert off["error"]["message"].startswith("Unknown tool: sevdesk_finalize_document; ")
    assert "its tier commit is off" in off["error"]["message"]
    assert "SEVDESK_ALLOW" in off["error"]["message"]
    assert made_up["error"] == {"code": -32602, "message": "Unknown tool: sevdesk_make_it_so"}


async def _call(arguments: dict, env: dict | None = None) -> dict:
    async with open_wire(build(env)) as wire:
        answer = await wire.modern(
            "tools/call", {"name": "sevdesk_test_lookup", "arguments": arguments}
        )
    result: dict = answer["result"]
    return result


async def test_valid_arguments_give_text_and_complete_structured_content_on_2026() -> None:
    result = await _call({"query": "x", "limit": 2, "kind": "b", "amount": "12.30"})
    data = {"query": "x", "limit": 2, "lines": [{"label": "b", "amount": "12.30"}], "note": ""}
    assert json.loads(result["content"][0]["text"]) == data
    assert result["structuredContent"] == data
    assert "isError" not in result


async def test_structured_output_follows_the_era_and_the_setting() -> None:
    async def legacy(env: dict) -> tuple[dict, dict]:
        async with open_wire(build(env)) as wire:
            await wire.initialize()
            listed = (await wire.request("tools/list"))["result"]["tools"]
            call = await wire.request(
                "tools/call", {"name": "sevdesk_test_lookup", "arguments": {"query": "q"}}
            )
        return {t["name"]: t for t in listed}, call["result"]

    tools, result = await legacy({})
    assert "outputSchema" not in tools["sevdesk_test_lookup"]
    assert "structuredContent" not in result
    tools, result = await legacy({"SEVDESK_STRUCTURED_OUTPUT": "on"})
    assert "outputSchema" not in tools["sevdesk_test_lookup"]  # listed only when asked
    assert result["structuredContent"]["query"] == "q"
    asked = {"SEVDESK_STRUCTURED_OUTPUT": "on", "SEVDESK_OUTPUT_SCHEMAS": "on"}
    tools, result = await legacy(asked)
    assert tools["sevdesk_test_lookup"]["outputSchema"]["type"] == "object"
    assert result["structuredContent"]["query"] == "q"
    off = await _call({"query": "q"}, {"SEVDESK_STRUCTURED_OUTPUT": "off"})
    assert "structuredContent" not in off


@pytest.mark.threat("J07")
@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (
            {"query": "x", "bogus": 1, "other": 2},
            "Unknown argument(s) for sevdesk_test_lookup: "
            "bogus, other. It accepts: query, limit, kind",
        ),
        ({}, "missing required field `query`"),
        ({"query": 5}, "Expected `str`, got `int` - at `$.query`"),
        ({"query": "x" * 10_000}, "length <= 20"),
        ({"query": "x", "limit": 51}, "<= 50"),
        ({"query": "x", "limit": True}, "Expected `int`"),
        ({"query": "x", "kind": "c"}, "Invalid enum value 'c'"),
        ({"query": "x", "amount": "1,5"}, "amount must be a decimal number"),
        ({"query": "x", "tags": ["a", "b", "c", "d"]}, "length <= 3"),
    ],
)
async def test_bad_arguments_are_tool_errors_naming_the_field(
    arguments: dict, fragment: str
) -> None:
    result = await _call(arguments)
    assert result["isError"] is True
    assert fragment in result["content"][0]["text"]


async def test_null_and_empty_optional_arguments_count_as_omitted() -> None:
    result = await _call({"query": "x", "amount": "null", "kind": None, "limit": ""})
    assert result["structuredContent"]["limit"] == 10


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ("fail", "The lookup failed; try another query."),
        ("crash", "Internal error in sevdesk_test_lookup (reference "),
        ("badout", "Internal error in sevdesk_test_lookup (reference "),
        ("wrongtype", "Internal error in sevdesk_test_lookup (reference "),
    ],
)
async def test_handler_failures_become_error_results_without_internals(
    query: str, fragment: str, caplog: pytest.LogCaptureFixture
) -> None:
    result = await _call({"query": query})
    text = result["content"][0]["text"]
    assert result["isError"] is True and fragment in text
    assert "secret" not in text
    if "reference" in fragment:
        assert text.split("reference ")[1][:8] in caplog.text


async def test_a_handler_may_ask_for_input() -> None:
    async with open_wire(build({"SEVDESK_ALLOW": "write"})) as wire:
        answer = await wire.modern("tools/call", {"name": "sevdesk_test_draft"}, caps=FORM)
    assert answer["result"]["resultType"] == "input_required"
