"""The prompt lint: every prompt rendered in many tier and toolset configurations, in both
protocol eras, names only tools that configuration's tools/list has."""

from __future__ import annotations

import itertools

import pytest

from sevdesk_mcp.tools import definitions
from tests.prompts.helpers import TOOL_NAME, WITHOUT_EINVOICE, build, surface
from tests.wire import open_wire

pytestmark = pytest.mark.anyio

TIERS = {
    "read": {},
    "write": {"SEVDESK_ALLOW": "write"},
    "commit": {"SEVDESK_ALLOW": "write,commit"},
    "all": {"SEVDESK_ALLOW": "read,write,commit,external"},
    "read-only-wins": {"SEVDESK_ALLOW": "write,commit,external", "SEVDESK_READ_ONLY": "1"},
}
TOOLSETS = {
    "default": {},
    "with-advanced": {"SEVDESK_TOOLSETS": ",".join(sorted(definitions.TOOLSETS))},
    "documents": {"SEVDESK_TOOLSETS": "meta,contacts,documents"},
    "banking-reports": {"SEVDESK_TOOLSETS": "meta,banking,reports"},
    "vouchers": {"SEVDESK_TOOLSETS": "vouchers,contacts"},
}
CONFIGS = {f"{t}/{s}": {**TIERS[t], **TOOLSETS[s]} for t, s in itertools.product(TIERS, TOOLSETS)}
assert len(CONFIGS) >= 20


@pytest.mark.parametrize("name", sorted(CONFIGS))
async def test_every_prompt_names_only_listed_tools_in_both_eras(name: str) -> None:
    async with open_wire(build(CONFIGS[name])) as wire:
        modern = await surface(wire, legacy=False)
        await wire.initialize()
        legacy = await surface(wire, legacy=True)
    assert modern == legacy  # the same plan in both eras
    tools, texts = modern
    for prompt, text in texts.items():
        named = set(TOOL_NAME.findall(text))
        assert named <= tools, (name, prompt, named - tools)


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("read/default", {"sevdesk_read_einvoice", "sevdesk_suggest_einvoice_receipt"}),
        ("write/default", {"sevdesk_read_einvoice", "sevdesk_file_einvoice"}),
    ],
)
async def test_the_einvoice_prompt_names_the_einvoice_tools_that_are_registered(
    name: str, named: set[str]
) -> None:
    async with open_wire(build(CONFIGS[name])) as wire:
        tools, texts = await surface(wire, legacy=False)
    text = texts["check_einvoice"]
    assert named <= set(TOOL_NAME.findall(text)) <= tools


async def test_without_the_einvoice_tools_the_prompt_degrades_to_needs_lines() -> None:
    async with open_wire(build({"SEVDESK_ALLOW": "write"}, WITHOUT_EINVOICE)) as wire:
        tools, texts = await surface(wire, legacy=False)
    text = texts["check_einvoice"]
    assert text.count("needs the e-invoice tools, which this server version does not") == 3
    assert set(TOOL_NAME.findall(text)) <= tools
    assert "einvoice" not in " ".join(TOOL_NAME.findall(texts["invoice_from_order"]))
