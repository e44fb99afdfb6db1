"""The offline lint of the tool-selection evals and of the tool descriptions; needs no model.

It loads the ``tools/list`` answer the real server writes for each tier configuration of the
tool reference (:data:`sevdesk_mcp.cli.reference.TIER_SETS`, the configurations the size test
measures), built in process without network, and checks:

- the cases file is well-formed: unique ids, at least :data:`MIN_CASES` cases, both languages,
  every toolset and every tool covered, plans that start with the first tool and need exactly
  the tiers the case states;
- every expected tool (first tool and plan) is listed in the configuration that offers the
  case's tiers (:func:`config_for`);
- no tool names a ``sevdesk_*`` tool that is not listed in the same configuration;
- no two tools share their first sentence;
- no description is longer than its share of the budget (:func:`budget_ceiling`): the room the
  40,000 bytes leave for descriptions once every name, schema and annotation is counted,
  shared among the tools.

``python -m evals.lint`` prints every finding, one a line, and exits 1 if there is any.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from sevdesk_mcp.cli.reference import TIER_SETS, TOOLS_LIST_BUDGET, answer_bytes
from sevdesk_mcp.mcp.types import MODERN_VERSION
from sevdesk_mcp.tools.catalog import DEFAULT_OFF_TOOLSETS
from sevdesk_mcp.tools.define import FileReach
from sevdesk_mcp.tools.definitions import ALL_TOOLS

CASES_PATH: Final = Path(__file__).with_name("requests.yaml")
MIN_CASES: Final = 100
LANGS: Final = ("de", "en")
MIN_LANG_SHARE: Final = 0.4  # "about half" each: neither language below 40 % of the cases
TIERS: Final = ("read", "write", "commit", "external")
READ, READ_WRITE, ALL_TIERS, LARGEST = TIER_SETS  # the four configurations, smallest first
CEILING_FACTOR: Final = 2
"""A description may take twice the average share of the room (see :func:`budget_ceiling`)."""
NAME_RE: Final = re.compile(r"\bsevdesk_[a-z0-9_]+")
ABBREVIATIONS: Final = frozenset({"e.g.", "i.e.", "z.b.", "bzw.", "etc.", "vs.", "nr.", "no."})

Tool = dict[str, Any]
Listings = Mapping[str, Sequence[Tool]]
"""Configuration name (a key of ``TIER_SETS``) to the tools its ``tools/list`` answer lists."""


class CaseFileError(Exception):
    """The cases file cannot be read as a list of cases."""


@dataclass(frozen=True, order=True)
class Finding:
    """One thing the lint found wrong: which check, in which configuration, about what."""

    check: str
    config: str
    subject: str
    message: str

    @property
    def key(self) -> tuple[str, str, str]:
        """:returns: what identifies the finding independently of its wording."""
        return self.check, self.config, self.subject

    def __str__(self) -> str:
        where = f" [{self.config}]" if self.config else ""
        return f"{self.check}{where} {self.subject}: {self.message}"


def load_cases(path: Path = CASES_PATH) -> list[dict[str, Any]]:
    """:returns: the cases of the cases file.

    :raises CaseFileError: if the file cannot be read or holds no list under ``cases``.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CaseFileError(f"cannot read {path.name}: {exc}; fix the file's YAML") from exc
    cases = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise CaseFileError(f"{path.name} holds no list of cases under 'cases:'; add one")
    return cases


def config_env(name: str) -> tuple[dict[str, str], FileReach]:
    """:returns: the environment and file reach of the configuration ``name``, as the tool
    reference builds it (every default toolset; all of them in the largest)."""
    allow, all_toolsets, files = TIER_SETS[name]
    every = ",".join(sorted({t.toolset for t in ALL_TOOLS}))
    env = {"SEVDESK_ALLOW": allow, **({"SEVDESK_TOOLSETS": every} if all_toolsets else {})}
    return env, files


def load_listings() -> dict[str, list[Tool]]:
    """:returns: the tools of the real server's ``tools/list`` answer (2026-07-28 era) for
    each configuration, built in process; nothing reaches the network."""
    listings: dict[str, list[Tool]] = {}
    for name in TIER_SETS:
        env, files = config_env(name)
        _, response = answer_bytes(ALL_TOOLS, env, files, MODERN_VERSION)
        listings[name] = response["result"]["tools"]
    return listings


def config_for(case: Mapping[str, Any]) -> str:
    """:returns: the smallest configuration that offers what ``case`` needs: its tiers, its
    toolset when that is off by default, file transfer when it says ``files: transfer``."""
    tiers = set(_strings(case.get("tiers")))
    if case.get("toolset") in DEFAULT_OFF_TOOLSETS or case.get("files") == "transfer":
        return LARGEST
    if tiers & {"commit", "external"}:
        return ALL_TIERS
    return READ_WRITE if "write" in tiers else READ


def first_tools(case: Mapping[str, Any]) -> list[str]:
    """:returns: the acceptable first tools of ``case`` (none when no tool does it)."""
    first = case.get("first_tool")
    return [first] if isinstance(first, str) else _strings(first)


def expected_tools(case: Mapping[str, Any]) -> list[str]:
    """:returns: every tool ``case`` expects: its first tools, then its plan."""
    return [*first_tools(case), *_strings(case.get("plan"))]


def lint_all(cases: Sequence[Mapping[str, Any]], listings: Listings) -> list[Finding]:
    """:returns: the findings of every check, sorted."""
    return sorted(
        [
            *check_cases(cases),
            *check_expected_tools(cases, listings),
            *check_names(listings),
            *check_first_sentences(listings),
            *check_budget(listings[LARGEST]),
        ]
    )


# --- the cases file ---------------------------------------------------------------------------


def check_cases(cases: Sequence[Mapping[str, Any]]) -> list[Finding]:
    """:returns: what is wrong with the cases file as a whole and with each case."""
    findings = _check_collection(cases)
    for index, case in enumerate(cases):
        subject = str(case.get("id") or f"case #{index + 1}")
        findings += [Finding("cases", "", subject, m) for m in case_problems(case)]
    return findings


def _check_collection(cases: Sequence[Mapping[str, Any]]) -> list[Finding]:
    problems: list[str] = []
    if len(cases) < MIN_CASES:
        problems.append(f"{len(cases)} cases, at least {MIN_CASES} needed; add cases")
    ids = Counter(str(c.get("id")) for c in cases)
    problems += [f"id {i} is used {n} times; make ids unique" for i, n in ids.items() if n > 1]
    langs = Counter(str(c.get("lang")) for c in cases)
    problems += [
        f"{langs[lang]} cases in {lang!r}, fewer than {MIN_LANG_SHARE:.0%}; add {lang} cases"
        for lang in LANGS
        if langs[lang] < MIN_LANG_SHARE * len(cases)
    ]
    covered = {str(c.get("toolset")) for c in cases}
    toolsets = sorted({t.toolset for t in ALL_TOOLS} - covered)
    problems += [f"no case for the toolset {name}; add one" for name in toolsets]
    used = {name for c in cases for name in expected_tools(c)}
    tools = [t.name for t in ALL_TOOLS if t.name not in used]
    problems += [f"no case expects {name}; add one" for name in tools]
    return [Finding("cases", "", "requests.yaml", p) for p in problems]


def case_problems(case: Mapping[str, Any]) -> list[str]:
    """:returns: what is wrong with one case, each with its fix."""
    problems = _field_problems(case)
    if problems:
        return problems
    firsts, plan = first_tools(case), _strings(case["plan"])
    if not firsts:
        if plan or not case.get("why"):
            problems.append("first_tool null needs an empty plan and a 'why'; add or clear")
        return problems
    if not plan or plan[0] not in firsts:
        problems.append(f"the plan must start with a first tool ({', '.join(firsts)}); fix it")
    tiers = _tiers_of(plan)
    if tiers != set(case["tiers"]):
        problems.append(f"the plan needs tiers {sorted(tiers)}, not {case['tiers']}; fix tiers")
    toolsets = {_toolset_of(name) for name in firsts}
    if case["toolset"] not in toolsets:
        problems.append(f"toolset {case['toolset']!r} is not that of a first tool; fix it")
    return problems


def _field_problems(case: Mapping[str, Any]) -> list[str]:
    problems = [
        f"{key} must be a non-empty string; set it"
        for key in ("id", "request", "toolset")
        if not isinstance(case.get(key), str) or not case.get(key)
    ]
    if case.get("lang") not in LANGS:
        problems.append(f"lang must be one of {', '.join(LANGS)}; set it")
    first = case.get("first_tool", "")
    if not (first is None or isinstance(first, str) or _is_names(first, nonempty=True)):
        problems.append("first_tool must be a name, a list of names or null; fix it")
    if not _is_names(case.get("plan"), nonempty=False):
        problems.append("plan must be a list of tool names; fix it")
    tiers = case.get("tiers")
    if not _is_names(tiers, nonempty=True) or not set(_strings(tiers)) <= set(TIERS):
        problems.append(f"tiers must be a non-empty list of {', '.join(TIERS)}; fix it")
    if case.get("toolset") not in {t.toolset for t in ALL_TOOLS}:
        problems.append(f"toolset {case.get('toolset')!r} does not exist; use a real one")
    return problems


def _strings(value: object) -> list[str]:
    """:returns: the strings of ``value`` if it is a list, else none."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _is_names(value: object, *, nonempty: bool) -> bool:
    if not isinstance(value, list) or (nonempty and not value):
        return False
    return all(isinstance(v, str) for v in value)


def _tiers_of(names: Iterable[str]) -> set[str]:
    tiers = {t.name: str(t.tier) for t in ALL_TOOLS}
    return {tiers[name] for name in names if name in tiers}


def _toolset_of(name: str) -> str | None:
    return next((t.toolset for t in ALL_TOOLS if t.name == name), None)


def check_expected_tools(cases: Sequence[Mapping[str, Any]], listings: Listings) -> list[Finding]:
    """:returns: each expected tool that the configuration offering the case's tiers lacks."""
    findings = []
    for case in cases:
        config = config_for(case)
        listed = {t["name"] for t in listings[config]}
        missing = sorted(set(expected_tools(case)) - listed)
        findings += [
            Finding(
                "expected_tool",
                config,
                str(case.get("id")),
                f"expects {name}, which this configuration does not list; "
                "fix the case's tool name or tiers",
            )
            for name in missing
        ]
    return findings


# --- the tool descriptions ----------------------------------------------------------------------


def named_tools(tool: Tool) -> set[str]:
    """:returns: the ``sevdesk_*`` names the tool's description and input schema mention."""
    text = tool.get("description", "") + json.dumps(tool.get("inputSchema", {}))
    return set(NAME_RE.findall(text)) - {tool["name"]}


def check_names(listings: Listings) -> list[Finding]:
    """:returns: each tool that names a tool not listed in the same configuration."""
    findings = []
    for config, tools in listings.items():
        listed = {t["name"] for t in tools}
        for tool in tools:
            findings += [
                Finding(
                    "dangling_name",
                    config,
                    f"{tool['name']} -> {name}",
                    f"the description names {name}, not listed here; "
                    "drop the name or list the tool in this configuration too",
                )
                for name in sorted(named_tools(tool) - listed)
            ]
    return findings


def first_sentence(text: str) -> str:
    """:returns: the first sentence of ``text``, up to a full stop, ``!`` or ``?`` that ends a
    word other than an abbreviation (e.g., z. B.) and is followed by a space or the end."""
    for match in re.finditer(r"[.!?](?=\s|$)", text):
        word = text[: match.end()].rsplit(maxsplit=1)[-1].lstrip("(").casefold()
        if word not in ABBREVIATIONS:
            return text[: match.end()].strip()
    return text.strip()


def check_first_sentences(listings: Listings) -> list[Finding]:
    """:returns: each pair of tools that share their first sentence (any case and spacing)."""
    findings: set[Finding] = set()
    for config, tools in listings.items():
        seen: dict[str, str] = {}
        for tool in tools:
            sentence = " ".join(first_sentence(tool.get("description", "")).casefold().split())
            if sentence in seen:
                subject = f"{seen[sentence]} = {tool['name']}"
                message = f"both begin {sentence!r}; make each say what that tool alone does"
                findings.add(Finding("first_sentence", config, subject, message))
            seen.setdefault(sentence, tool["name"])
    return sorted(findings)


def tool_bytes(tool: Tool) -> int:
    """:returns: the bytes of the tool object as the server sends it (compact JSON, UTF-8)."""
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False).encode())


def description_bytes(tool: Tool) -> int:
    """:returns: the bytes the description takes in the tool object (the JSON string)."""
    return len(json.dumps(tool.get("description", ""), ensure_ascii=False).encode())


def budget_ceiling(tools: Sequence[Tool], budget: int = TOOLS_LIST_BUDGET) -> int:
    """:returns: the most bytes one description may take. The room for descriptions is the
    budget of the whole answer (for the configuration that lists every tool) less everything
    else the tools take (names, schemas, annotations); divided by the tools it is the average
    share, and a description may take :data:`CEILING_FACTOR` times it, since the one sentence
    that decides between two tools is longer for some than for others. When the schemas grow,
    the room, and so the ceiling, shrinks."""
    rest = sum(tool_bytes(tool) - description_bytes(tool) for tool in tools)
    return CEILING_FACTOR * max(0, budget - rest) // len(tools)


def check_budget(tools: Sequence[Tool], budget: int = TOOLS_LIST_BUDGET) -> list[Finding]:
    """:returns: each tool whose description is longer than :func:`budget_ceiling`, with its
    size and by how much."""
    ceiling = budget_ceiling(tools, budget)
    return [
        Finding(
            "budget",
            LARGEST,
            tool["name"],
            f"description {size:,} bytes, {size - ceiling:,} over the ceiling of {ceiling:,} "
            f"({CEILING_FACTOR} x the room the {budget:,} bytes leave for descriptions / "
            f"{len(tools)} tools); keep the one sentence that decides the choice",
        )
        for tool in tools
        if (size := description_bytes(tool)) > ceiling
    ]


def main() -> int:
    """Print every finding, one a line; :returns: 1 if there is any, else 0."""
    try:
        cases = load_cases()
    except CaseFileError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    listings = load_listings()
    findings = lint_all(cases, listings)
    sys.stdout.writelines(f"{f}\n" for f in findings)
    counts = ", ".join(f"{name}: {len(tools)}" for name, tools in listings.items())
    sys.stdout.write(f"{len(findings)} findings; {len(cases)} cases; tools per config {counts}\n")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
