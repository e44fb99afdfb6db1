"""Configuration from the environment."""

from __future__ import annotations

import pytest

from sevdesk_mcp.config import Config, load_config
from sevdesk_mcp.config.tax import TaxSettings
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.safety.tiers import Tier


def test_the_default_is_read_only_reads() -> None:
    config = load_config({})
    assert config == Config()
    assert config.tiers == {Tier.READ}
    assert config.allows(Tier.READ) and not config.allows(Tier.WRITE)


@pytest.mark.parametrize("value", ["", "   ", "${user_config.allow}", "${}"])
def test_empty_whitespace_and_placeholders_count_as_unset(value: str) -> None:
    env = {
        name: value
        for name in (
            "SEVDESK_ALLOW",
            "SEVDESK_READ_ONLY",
            "SEVDESK_TOOLSETS",
            "SEVDESK_DRY_RUN",
            "SEVDESK_STRUCTURED_OUTPUT",
        )
    }
    assert load_config(env) == Config()


def test_allow_lists_tiers_and_always_keeps_read() -> None:
    config = load_config({"SEVDESK_ALLOW": " Write , external,"})
    assert config.tiers == {Tier.READ, Tier.WRITE, Tier.EXTERNAL}


def test_read_only_wins_over_allow() -> None:
    config = load_config({"SEVDESK_ALLOW": "read,write,commit,external", "SEVDESK_READ_ONLY": "1"})
    assert config.tiers == {Tier.READ} and config.read_only


@pytest.mark.parametrize(
    ("value", "expected"),
    [("TRUE", True), ("yes", True), ("off", False), ("0", False), ("On", True)],
)
def test_boolean_spellings(value: str, expected: bool) -> None:
    assert load_config({"SEVDESK_DRY_RUN": value}).dry_run is expected


def test_toolsets_and_structured_output() -> None:
    config = load_config({"SEVDESK_TOOLSETS": "meta, Contacts", "SEVDESK_STRUCTURED_OUTPUT": "ON"})
    assert config.toolsets == frozenset({"meta", "contacts"})
    assert config.structured_output == "on"
    assert load_config({"SEVDESK_STRUCTURED_OUTPUT": "off"}).structured_output == "off"
    assert load_config({"SEVDESK_STRUCTURED_OUTPUT": "auto"}).structured_output == "auto"


@pytest.mark.parametrize(
    ("variable", "value", "fragment"),
    [
        ("SEVDESK_ALLOW", "read,admin", "read, write, commit, external"),
        ("SEVDESK_READ_ONLY", "maybe", "1, true, yes, on"),
        ("SEVDESK_DRY_RUN", "2", "1, true, yes, on"),
        ("SEVDESK_TOOLSETS", "meta,../etc", "toolset names"),
        ("SEVDESK_TOOLSETS", ",,", "toolset names"),
        ("SEVDESK_STRUCTURED_OUTPUT", "sometimes", "auto"),
        ("SEVDESK_VAT_METHOD", "cash", "ist, soll"),
        ("SEVDESK_SMALL_BUSINESS", "perhaps", "1, true, yes, on"),
        ("SEVDESK_LEGAL_FORM", "llc", "corporation, freelancer, gbr"),
        ("SEVDESK_CHART", "skr49", "skr03, skr04"),
        ("SEVDESK_LOW_VALUE_ASSETS", "2026:sammel", "depreciate, gwg, pool"),
        ("SEVDESK_VAT_EXTENSION", "later", "1, true, yes, on"),
    ],
)
def test_bad_values_name_the_variable_and_the_allowed_values(
    variable: str, value: str, fragment: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_config({variable: value})
    assert str(info.value).startswith(f"{variable}: ")
    assert fragment in str(info.value)
    assert info.value.variable == variable
    assert value not in str(info.value) or value in ("2",)


def test_pacing_rate_is_bounded() -> None:
    assert load_config({}).rate_per_s == 10.0
    assert load_config({"SEVDESK_RATE_PER_S": "2.5"}).rate_per_s == 2.5
    for bad in ("0", "fast", "5000", "nan"):
        with pytest.raises(ConfigError, match="SEVDESK_RATE_PER_S"):
            load_config({"SEVDESK_RATE_PER_S": bad})


def test_tier_names_and_order() -> None:
    assert [str(t) for t in sorted(Tier)] == ["read", "write", "commit", "external"]
    assert Tier.parse(" Commit ") is Tier.COMMIT
    with pytest.raises(ValueError, match="nope"):
        Tier.parse("nope")


def test_tax_facts_are_unset_by_default_and_read_when_set() -> None:
    assert load_config({}).tax == TaxSettings()
    tax = load_config(
        {
            "SEVDESK_VAT_METHOD": "Ist",
            "SEVDESK_SMALL_BUSINESS": "no",
            "SEVDESK_LEGAL_FORM": "GmbH",
            "SEVDESK_CHART": "SKR04",
            "SEVDESK_LOW_VALUE_ASSETS": "gwg, 2025:pool, 2024=depreciate",
            "SEVDESK_VAT_EXTENSION": "yes",
        }
    ).tax
    assert tax == TaxSettings(
        vat_method="ist",
        small_business=False,
        legal_form="corporation",
        chart="skr04",
        low_value_assets="gwg",
        low_value_by_year={2025: "pool", 2024: "depreciate"},
        vat_extension=True,
    )
