"""The size of the whole ``tools/list`` answer per tier configuration, in both eras (ADR 0007).

Bytes of the JSON-RPC response exactly as the stdio server writes it (one compact line, without
its newline), built by the real server from its index: nothing is subtracted, every tool that
exists counts. The budget, :data:`BUDGET` bytes, holds for the largest configuration, all tiers
with every toolset on (``advanced`` included) where files can be transferred (HTTP in OAuth
mode, so every tool is listed), in the 2026-07-28 era, which adds output schemas;
every smaller configuration and the 2025 era are measured too and must fit it as well. A
failure names the total and the largest tools, the place to find the bytes. No timing is
asserted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sevdesk_mcp.cli.reference import ERAS, TOOLS_LIST_BUDGET, answer_bytes
from sevdesk_mcp.tools.catalog import DEFAULT_OFF_TOOLSETS
from sevdesk_mcp.tools.define import FileReach
from sevdesk_mcp.tools.definitions import ALL_TOOLS

BUDGET = TOOLS_LIST_BUDGET  # 40,000 bytes, stated in docs/tools.md
ALL_TIERS = "read,write,commit,external"
ALL_TOOLSETS = ",".join(sorted({t.toolset for t in ALL_TOOLS}))
CONFIGS: dict[str, tuple[dict[str, str], FileReach]] = {
    "read": ({}, "local"),
    "read+write": ({"SEVDESK_ALLOW": "write"}, "local"),
    "all tiers": ({"SEVDESK_ALLOW": ALL_TIERS}, "local"),
    "all tiers, all toolsets": (
        {"SEVDESK_ALLOW": ALL_TIERS, "SEVDESK_TOOLSETS": ALL_TOOLSETS},
        "transfer",
    ),
}
LARGEST = CONFIGS["all tiers, all toolsets"]
MODERN, LEGACY = ERAS


def answer(setup: tuple[dict[str, str], FileReach], era: str) -> tuple[int, dict[str, Any]]:
    """:returns: the bytes of the ``tools/list`` response as the server writes it, and it."""
    env, files = setup
    return answer_bytes(ALL_TOOLS, env, files, era)


def tool_bytes(tool: dict[str, Any]) -> int:
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False).encode())


def largest(tools: list[dict[str, Any]], n: int = 5) -> str:
    sizes = sorted(((tool_bytes(t), t["name"]) for t in tools), reverse=True)[:n]
    return ", ".join(f"{name} {size:,}" for size, name in sizes)


def test_all_toolsets_means_every_toolset_of_the_catalog() -> None:
    assert set(DEFAULT_OFF_TOOLSETS) <= set(ALL_TOOLSETS.split(","))


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_whole_answer_fits_the_budget(name: str, era: str) -> None:
    size, response = answer(CONFIGS[name], era)
    tools = response["result"]["tools"]
    assert "nextCursor" not in response["result"], "one page holds every tool"
    assert size <= BUDGET, (
        f"{name}, {era}: {size:,} bytes for {len(tools)} tools > {BUDGET:,}; "
        f"largest: {largest(tools)}"
    )


@pytest.mark.parametrize("era", ERAS)
def test_more_tiers_and_toolsets_mean_a_larger_answer(era: str) -> None:
    measured = [answer(setup, era) for setup in CONFIGS.values()]
    sizes = [size for size, _ in measured]
    counts = [len(response["result"]["tools"]) for _, response in measured]
    assert sizes == sorted(sizes) and counts == sorted(counts)
    assert counts[-1] == len(ALL_TOOLS)


def test_the_2025_era_carries_no_output_schema_and_is_smaller() -> None:
    modern, modern_answer = answer(LARGEST, MODERN)
    legacy, legacy_answer = answer(LARGEST, LEGACY)
    assert not any("outputSchema" in t for t in legacy_answer["result"]["tools"])
    assert [t["name"] for t in legacy_answer["result"]["tools"]] == [
        t["name"] for t in modern_answer["result"]["tools"]
    ]
    assert legacy < modern


def test_output_schemas_are_plain() -> None:
    _, response = answer(LARGEST, MODERN)
    tools = response["result"]["tools"]
    schemas = [t["outputSchema"] for t in tools if "outputSchema" in t]
    for schema in schemas:
        assert schema["type"] == "object" and schema["properties"]
        for prop in schema["properties"].values():
            assert set(prop) == {"type"}, prop  # names and JSON types only (ADR 0007)
    text = json.dumps(schemas)
    assert '"null"' not in text and "$ref" not in text and "anyOf" not in text


def test_the_listed_schemas_leave_out_only_what_the_server_enforces_alone() -> None:
    """Lengths, the decimal pattern, id floors and high caps are enforced on every call, not
    listed; enums, required fields, formats and small bounds are listed."""
    _, response = answer(LARGEST, MODERN)
    text = json.dumps(response)
    assert '"maxLength"' not in text and "[0-9]+" not in text
    draft = next(
        t for t in response["result"]["tools"] if t["name"] == "sevdesk_create_document_draft"
    )
    schema = draft["inputSchema"]
    assert schema["properties"]["kind"]["enum"] == ["credit_note", "invoice", "order"]
    assert schema["properties"]["date"]["format"] == "date"
    assert schema["properties"]["payment_days"] == {
        "type": "integer",
        "minimum": 0,
        "maximum": 365,
        "description": "Invoices: days to pay",
    }
    assert "kind" in schema["required"] and "outputSchema" not in draft


def test_the_listed_annotations_are_the_declared_ones() -> None:
    _, response = answer(LARGEST, MODERN)
    declared = {t.name: t.annotations for t in ALL_TOOLS}
    for tool in response["result"]["tools"]:
        hints, wanted = tool["annotations"], declared[tool["name"]]
        assert hints["readOnlyHint"] is wanted.read_only, tool["name"]
        if wanted.read_only:
            assert "destructiveHint" not in hints and "idempotentHint" not in hints
        else:
            assert hints["destructiveHint"] is wanted.destructive, tool["name"]
            assert hints.get("idempotentHint", False) is wanted.idempotent, tool["name"]
        assert hints.get("openWorldHint", True) is wanted.open_world, tool["name"]
        # no title, in the Tool or its annotations: clients show the name (ADR 0007)
        assert "title" not in tool and "title" not in hints


def test_output_schemas_are_listed_only_when_asked() -> None:
    """ADR 0007: results carry ``structuredContent`` either way; ``SEVDESK_OUTPUT_SCHEMAS=on``
    lists each read tool's output schema for clients that check it (then over the budget)."""
    env, files = LARGEST
    _, plain = answer_bytes(ALL_TOOLS, env, files, MODERN)
    size, asked = answer_bytes(ALL_TOOLS, {**env, "SEVDESK_OUTPUT_SCHEMAS": "on"}, files, MODERN)
    listed = {t["name"] for t in asked["result"]["tools"] if "outputSchema" in t}
    assert not any("outputSchema" in t for t in plain["result"]["tools"])
    assert "sevdesk_open_items" in listed and "sevdesk_finalize_document" not in listed
    assert size > BUDGET  # stated in docs/tools.md
    _, legacy = answer_bytes(ALL_TOOLS, {**env, "SEVDESK_OUTPUT_SCHEMAS": "on"}, files, LEGACY)
    assert not any("outputSchema" in t for t in legacy["result"]["tools"])
