"""The offline eval lint (``evals/lint.py``), in the normal suite: run on the shipped cases and
the real server's ``tools/list`` answers, and each check shown to fail on a planted mistake in
an in-memory copy.

The shipped cases and tools must give no finding at all.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from evals import lint
from evals.lint import ALL_TIERS, LARGEST, READ, READ_WRITE, Finding
from sevdesk_mcp.tools.definitions import ALL_TOOLS


@pytest.fixture(scope="module")
def listings() -> dict[str, list[dict[str, Any]]]:
    return lint.load_listings()


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    return lint.load_cases()


@pytest.fixture(scope="module")
def findings(
    cases: list[dict[str, Any]], listings: dict[str, list[dict[str, Any]]]
) -> list[Finding]:
    return lint.lint_all(cases, listings)


def checks(found: list[Finding]) -> set[str]:
    return {f.check for f in found}


# --- the shipped cases and tools ----------------------------------------------------------------


def test_the_lint_finds_nothing(findings: list[Finding]) -> None:
    assert not findings, "\n".join(str(f) for f in findings)


def test_the_cases_file_is_well_formed(cases: list[dict[str, Any]]) -> None:
    assert not lint.check_cases(cases)
    assert len(cases) >= lint.MIN_CASES
    assert {c["lang"] for c in cases} == set(lint.LANGS)
    assert any(c["first_tool"] is None for c in cases)


def test_the_configurations_are_those_of_the_size_test(
    listings: dict[str, list[dict[str, Any]]],
) -> None:
    counts = [len(tools) for tools in listings.values()]
    assert list(listings) == [READ, READ_WRITE, ALL_TIERS, LARGEST]
    assert counts == sorted(counts) and counts[-1] == len(ALL_TOOLS)


def test_a_case_is_checked_in_the_configuration_of_its_tiers() -> None:
    assert lint.config_for({"tiers": ["read"], "toolset": "reports"}) == READ
    assert lint.config_for({"tiers": ["read", "write"], "toolset": "contacts"}) == READ_WRITE
    assert lint.config_for({"tiers": ["read", "external"], "toolset": "documents"}) == ALL_TIERS
    assert lint.config_for({"tiers": ["read"], "toolset": "advanced"}) == LARGEST
    assert lint.config_for({"tiers": ["write"], "toolset": "vouchers", "files": "transfer"}) == (
        LARGEST
    )


def test_the_ceiling_is_twice_the_average_room_left_for_descriptions() -> None:
    tools = [  # each object without its description is 100 bytes; 2 descriptions of 10 bytes
        {"name": "a" * 57, "description": "x" * 8, "inputSchema": {}},
        {"name": "b" * 57, "description": "y" * 8, "inputSchema": {}},
    ]
    assert [lint.tool_bytes(t) - lint.description_bytes(t) for t in tools] == [100, 100]
    assert lint.budget_ceiling(tools, 300) == 2 * (300 - 200) // 2
    assert lint.budget_ceiling(tools, 150) == 0  # schemas over the budget leave no room


def test_the_first_sentence_ends_at_a_full_stop_not_an_abbreviation() -> None:
    text = "Reads a path no tool covers with a GET (e.g. /Tag). Writes are refused."
    assert lint.first_sentence(text) == "Reads a path no tool covers with a GET (e.g. /Tag)."
    assert lint.first_sentence("Sagt z.B. was. Und mehr.") == "Sagt z.B. was."
    assert lint.first_sentence("No full stop at all") == "No full stop at all"
    assert lint.first_sentence("Version 2.0 counts. Next.") == "Version 2.0 counts."


# --- each check fails on a planted mistake ----------------------------------------------------


def test_planted_duplicate_id_is_found(cases: list[dict[str, Any]]) -> None:
    planted = copy.deepcopy(cases)
    planted[1]["id"] = planted[0]["id"]
    assert any("is used 2 times" in f.message for f in lint.check_cases(planted))


def test_too_few_cases_are_found(cases: list[dict[str, Any]]) -> None:
    found = lint.check_cases(copy.deepcopy(cases[:99]))
    assert any("at least 100" in f.message for f in found)


def test_a_missing_language_is_found(cases: list[dict[str, Any]]) -> None:
    planted = [c for c in copy.deepcopy(cases) if c["lang"] == "de"]
    assert any("in 'en'" in f.message for f in lint.check_cases(planted))


def test_an_uncovered_toolset_and_tool_are_found(cases: list[dict[str, Any]]) -> None:
    planted = [c for c in copy.deepcopy(cases) if c["toolset"] != "parts"]
    messages = [f.message for f in lint.check_cases(planted)]
    assert "no case for the toolset parts; add one" in messages
    assert "no case expects sevdesk_create_part; add one" in messages


@pytest.mark.parametrize(
    ("change", "wanted"),
    [
        ({"lang": "fr"}, "lang must be one of"),
        ({"plan": "sevdesk_open_items"}, "plan must be a list"),
        ({"first_tool": 7}, "first_tool must be"),
        ({"tiers": ["admin"]}, "tiers must be"),
        ({"toolset": "payroll"}, "does not exist"),
        ({"request": ""}, "request must be"),
        ({"plan": ["sevdesk_cash_position"]}, "must start with a first tool"),
        ({"tiers": ["read", "write"]}, "the plan needs tiers ['read']"),
        ({"toolset": "banking"}, "is not that of a first tool"),
        ({"first_tool": None}, "first_tool null needs an empty plan"),
    ],
)
def test_a_planted_mistake_in_a_case_is_found(
    cases: list[dict[str, Any]], change: dict[str, Any], wanted: str
) -> None:
    case = copy.deepcopy(next(c for c in cases if c["id"] == "de-open-items-aging"))
    assert not lint.case_problems(case)
    case.update(change)
    assert any(wanted in p for p in lint.case_problems(case)), lint.case_problems(case)


def test_a_null_case_needs_its_why(cases: list[dict[str, Any]]) -> None:
    case = copy.deepcopy(next(c for c in cases if c["first_tool"] is None))
    assert not lint.case_problems(case)
    del case["why"]
    assert lint.case_problems(case)


def test_an_expected_tool_that_does_not_exist_is_found(
    cases: list[dict[str, Any]], listings: dict[str, list[dict[str, Any]]]
) -> None:
    assert not lint.check_expected_tools(cases, listings)
    planted = copy.deepcopy(cases)
    planted[0]["plan"].append("sevdesk_close_the_month")
    found = lint.check_expected_tools(planted, listings)
    assert [(f.subject, "sevdesk_close_the_month" in f.message) for f in found] == [
        (planted[0]["id"], True)
    ]


def test_an_expected_tool_above_the_cases_tiers_is_found(
    cases: list[dict[str, Any]], listings: dict[str, list[dict[str, Any]]]
) -> None:
    planted = copy.deepcopy(next(c for c in cases if c["id"] == "de-cancel-invoice"))
    planted["tiers"] = ["read"]  # sevdesk_cancel_invoice is commit: not in the read list
    found = lint.check_expected_tools([planted], listings)
    assert [(f.config, "sevdesk_cancel_invoice" in f.message) for f in found] == [(READ, True)]


def test_a_description_naming_a_missing_tool_is_found(
    listings: dict[str, list[dict[str, Any]]],
) -> None:
    planted = copy.deepcopy(dict(listings))
    assert not lint.check_names({ALL_TIERS: planted[ALL_TIERS]})
    tool = planted[ALL_TIERS][0]
    tool["description"] += " Then call sevdesk_frobnicate."
    found = lint.check_names({ALL_TIERS: planted[ALL_TIERS]})
    assert [f.subject for f in found] == [f"{tool['name']} -> sevdesk_frobnicate"]


def test_a_schema_naming_a_missing_tool_is_found(
    listings: dict[str, list[dict[str, Any]]],
) -> None:
    tools = copy.deepcopy(listings[ALL_TIERS])
    tool = next(t for t in tools if t["inputSchema"]["properties"])
    field = next(iter(tool["inputSchema"]["properties"].values()))
    field["description"] = "from sevdesk_api_get"  # listed only with the advanced toolset
    assert [f.subject for f in lint.check_names({ALL_TIERS: tools})] == [
        f"{tool['name']} -> sevdesk_api_get"
    ]


def test_a_shared_first_sentence_is_found(listings: dict[str, list[dict[str, Any]]]) -> None:
    tools = copy.deepcopy(listings[LARGEST])
    assert not lint.check_first_sentences({LARGEST: tools})
    first, second = tools[3], tools[7]
    second["description"] = (
        lint.first_sentence(first["description"]).upper() + "  Something else entirely."
    )
    found = lint.check_first_sentences({LARGEST: tools})
    assert [f.subject for f in found] == [f"{first['name']} = {second['name']}"]


def test_an_overlong_description_is_found(listings: dict[str, list[dict[str, Any]]]) -> None:
    tools = copy.deepcopy(listings[LARGEST])
    assert not lint.check_budget(tools)
    small = min(tools, key=lint.description_bytes)
    ceiling = lint.budget_ceiling(tools)
    small["description"] += "x" * (ceiling - lint.description_bytes(small) + 1)
    found = {f.subject: f.message for f in lint.check_budget(tools)}
    assert list(found) == [small["name"]]
    assert found[small["name"]].startswith(f"description {ceiling + 1:,} bytes, 1 over")


def test_growing_schemas_lower_the_ceiling(listings: dict[str, list[dict[str, Any]]]) -> None:
    tools = copy.deepcopy(listings[LARGEST])
    before = lint.budget_ceiling(tools)
    tools[0]["inputSchema"]["description"] = "z" * 5000
    assert lint.budget_ceiling(tools) < before


def test_the_lint_command_prints_the_findings(capsys: pytest.CaptureFixture[str]) -> None:
    assert lint.main() == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [out[-1]] and out[-1].startswith("0 findings; ")


def test_an_unreadable_cases_file_is_one_line(tmp_path: Any) -> None:
    bad = tmp_path / "requests.yaml"
    bad.write_text("cases: [unclosed\n", encoding="utf-8")
    with pytest.raises(lint.CaseFileError, match="fix the file's YAML"):
        lint.load_cases(bad)
    bad.write_text("- id: x\n", encoding="utf-8")
    with pytest.raises(lint.CaseFileError, match="no list of cases"):
        lint.load_cases(bad)
