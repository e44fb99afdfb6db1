"""The settings a client without free text needs (the Claude Desktop bundle's checkboxes), the
demo switch, and refusals that say which value was wrong."""

from __future__ import annotations

import pytest

from sevdesk_mcp.config import demo_requested, load_config
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.safety.tiers import Tier


def test_an_unknown_tier_is_repeated_in_the_refusal() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({"SEVDESK_ALLOW": "read,foo"})
    assert "'foo' is not a tier" in str(info.value)
    assert "read, write, commit, external" in str(info.value)


def test_a_value_that_could_be_a_secret_is_not_repeated() -> None:
    pasted = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"
    with pytest.raises(ConfigError) as info:
        load_config({"SEVDESK_ALLOW": pasted})
    assert pasted not in str(info.value)
    assert "the value given is not a tier" in str(info.value)


@pytest.mark.parametrize(
    ("switches", "tiers"),
    [
        ({}, {"read"}),
        ({"SEVDESK_ALLOW_WRITE": "true"}, {"read", "write"}),
        (
            {"SEVDESK_ALLOW_WRITE": "true", "SEVDESK_ALLOW_COMMIT": "true"},
            {"read", "write", "commit"},
        ),
        ({"SEVDESK_ALLOW_EXTERNAL": "1", "SEVDESK_ALLOW_WRITE": "false"}, {"read", "external"}),
        ({"SEVDESK_ALLOW": "write", "SEVDESK_ALLOW_COMMIT": "yes"}, {"read", "write", "commit"}),
    ],
)
def test_tier_switches_add_their_tier(switches: dict[str, str], tiers: set[str]) -> None:
    assert {str(t) for t in load_config(switches).tiers} == tiers


def test_read_only_wins_over_the_switches_and_a_bad_switch_stops_start_up() -> None:
    config = load_config({"SEVDESK_ALLOW_COMMIT": "true", "SEVDESK_READ_ONLY": "1"})
    assert config.tiers == {Tier.READ}
    with pytest.raises(ConfigError, match="SEVDESK_ALLOW_WRITE"):
        load_config({"SEVDESK_ALLOW_WRITE": "sure"})


def test_the_browser_switch_chooses_the_approval_page() -> None:
    assert load_config({"SEVDESK_CONFIRM_BROWSER": "false"}).confirm == "elicit"
    assert load_config({"SEVDESK_CONFIRM_BROWSER": "true"}).confirm == "browser"
    both = {"SEVDESK_CONFIRM_BROWSER": "true", "SEVDESK_CONFIRM": "browser"}
    assert load_config(both).confirm == "browser"
    with pytest.raises(ConfigError, match="SEVDESK_CONFIRM_BROWSER"):
        load_config({"SEVDESK_CONFIRM_BROWSER": "true", "SEVDESK_CONFIRM": "elicit"})


def test_the_german_switch_chooses_the_language() -> None:
    assert load_config({"SEVDESK_GERMAN": "true", "LANG": "en_US.UTF-8"}).language == "de"
    assert load_config({"SEVDESK_GERMAN": "false", "LANG": "de_DE.UTF-8"}).language == "en"
    assert load_config({"SEVDESK_GERMAN": "true", "SEVDESK_LANGUAGE": "de"}).language == "de"
    with pytest.raises(ConfigError, match="SEVDESK_GERMAN"):
        load_config({"SEVDESK_GERMAN": "true", "SEVDESK_LANGUAGE": "en"})


@pytest.mark.parametrize(
    ("value", "demo"), [(None, False), ("1", True), ("true", True), ("0", False), ("", False)]
)
def test_the_demo_switch(value: str | None, demo: bool) -> None:
    assert demo_requested({} if value is None else {"SEVDESK_DEMO": value}) is demo


def test_a_bad_demo_switch_stops_start_up() -> None:
    with pytest.raises(ConfigError, match="SEVDESK_DEMO"):
        demo_requested({"SEVDESK_DEMO": "please"})
