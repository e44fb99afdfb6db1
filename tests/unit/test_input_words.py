"""Refused tool arguments say in words what is expected; the pattern stays in the schema."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Annotated

import msgspec
import pytest

from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.resources.provider import with_article
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools import schema
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.registry import parse_arguments
from sevdesk_mcp.tools.schema import PATTERN_WORDS, in_words
from tests.tool_fixtures import READ, Found


@pytest.mark.parametrize("pattern", sorted(PATTERN_WORDS))
def test_every_known_pattern_is_said_in_words(pattern: str) -> None:
    args = msgspec.defstruct("Args", [("value", Annotated[str, msgspec.Meta(pattern=pattern)])])
    with pytest.raises(msgspec.ValidationError) as info:
        msgspec.convert({"value": "\u00a7 no match \u00a7"}, args)
    said = in_words(str(info.value))
    assert pattern not in said
    assert said == f"Expected {PATTERN_WORDS[pattern]} - at `$.value`"


def test_dates_and_unknown_patterns_are_said_in_words() -> None:
    assert in_words("Invalid RFC3339 encoded date - at `$.date`") == (
        "Expected a date as YYYY-MM-DD, such as 2026-11-24 - at `$.date`"
    )
    assert "2026-11-24T14:05:00" in in_words("Invalid RFC3339 encoded datetime - at `$.at`")
    said = in_words("Expected `str` matching regex '^[xyz]+$' - at `$.code`")
    assert "regex" not in said and "[xyz]" not in said
    assert said.endswith("- at `$.code`")


class Dated(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    date_from: dt.date
    account: Annotated[str, msgspec.Meta(max_length=8, pattern="^[0-9]{4,8}$")] = "4930"


async def _dated(args: Dated, ctx: ToolContext) -> Found:
    return Found(query="", limit=1, lines=[])


DATED = define_tool(
    name="sevdesk_test_dated",
    title="Test dated",
    description="Takes a date and a booking account, for tests.",
    toolset="testing",
    tier=Tier.READ,
    annotations=READ,
    input=Dated,
    output=Found,
    handler=_dated,
)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"date_from": "24.11.2026"}, "a date as YYYY-MM-DD"),
        ({"date_from": "2026-11-24", "account": "49x"}, "a booking account of 4 to 8 digits"),
    ],
)
def test_a_refused_tool_argument_is_said_in_words(arguments: dict[str, str], words: str) -> None:
    with pytest.raises(ToolInputError) as info:
        parse_arguments(DATED, dict(arguments))
    assert words in str(info.value)
    assert not re.search(r"RFC3339|regex|\^\[", str(info.value))
    assert '"pattern": "^[0-9]{4,8}$"' in json.dumps(DATED.input_schema)  # kept in the schema


@pytest.mark.parametrize(
    ("noun", "said"),
    [("invoice", "an invoice"), ("order", "an order"), ("credit note", "a credit note")],
)
def test_resource_descriptions_have_the_right_article(noun: str, said: str) -> None:
    assert with_article(noun) == said


def _patterns(value: object) -> set[str]:
    if isinstance(value, dict):
        found = {value["pattern"]} if isinstance(value.get("pattern"), str) else set()
        return found.union(*(_patterns(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_patterns(v) for v in value))
    return set()


def test_every_pattern_of_a_shipped_tool_has_words() -> None:
    index = json.loads((Path(schema.__file__).parent / "index.json").read_text())
    used = _patterns(index)
    assert used
    assert used <= set(PATTERN_WORDS)
