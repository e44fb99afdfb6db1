"""The eval runner: which tools a model picks when it sees only the server's ``tools/list``.

Each case's request goes to the Anthropic Messages API with the tools of the configuration
that offers the case's tiers (:func:`evals.lint.config_for`), converted to the API's tool
format, and the short instruction :data:`SYSTEM`. The first ``tool_use`` is the first tool.
The plan is what the model calls when the conversation goes on: every ``tool_use`` is answered
with the same stub result (:data:`STUB`, nothing is executed), up to ``--max-turns`` replies,
and the tools called, in order, without repeats, are the plan. Scores per case: the first tool
is right or not (with ``first_tool: null`` right only if no tool is called); the plan overlap is
the longest common subsequence of the expected and the called plan over the longer of the two
(1.0 for both empty). They are averaged over all cases, per language and per toolset.

``python -m evals.run`` needs ``ANTHROPIC_API_KEY``; without it it prints one line and exits 0.
It writes a JSON report (``--out``) and prints a short table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import httpx

from evals import lint

API_URL: Final = "https://api.anthropic.com/v1/messages"
API_VERSION: Final = "2023-06-01"
DEFAULT_MODEL: Final = "claude-sonnet-5-5"
"""Claude Sonnet 5.5, the current Sonnet model in Anthropic's model overview (December 2026)."""
DEFAULT_TURNS: Final = 6
MAX_TOKENS: Final = 2048
RETRIES: Final = 4
RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 529})
SKIPPED: Final = "skipped: ANTHROPIC_API_KEY is not set"
SYSTEM: Final = (
    "You work for the user of a sevDesk account through the tools offered. Do what the request "
    "asks by calling the tools a careful assistant would call, in order; do not ask questions "
    "back. If no tool can do it, say so without calling a tool."
)
STUB: Final = (
    "Not executed: this is an evaluation of tool choice. Assume the call succeeded and go on "
    "with the next tool you would call; answer without a tool when you are done."
)

Tool = dict[str, Any]
Sleep = Callable[[float], None]


class EvalError(Exception):
    """The Messages API could not be reached or refused a request."""


def to_anthropic_tools(tools: Sequence[Mapping[str, Any]]) -> list[Tool]:
    """:returns: MCP ``Tool`` objects as the Messages API takes them: name, description and
    the input schema as ``input_schema`` (annotations have no place there)."""
    return [
        {"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]}
        for t in tools
    ]


class Messages:
    """The Messages API, one request at a time, over an ``httpx`` client."""

    def __init__(
        self, client: httpx.Client, key: str, model: str, sleep: Sleep = time.sleep
    ) -> None:
        self._client, self._model, self._sleep = client, model, sleep
        self._headers = {"x-api-key": key, "anthropic-version": API_VERSION}

    def create(self, messages: list[dict[str, Any]], tools: list[Tool]) -> dict[str, Any]:
        """:returns: the model's reply to ``messages`` with ``tools`` offered.

        :raises EvalError: if the API cannot be reached, keeps asking to wait, or refuses.
        """
        body = {
            "model": self._model,
            "max_tokens": MAX_TOKENS,
            "system": SYSTEM,
            "tools": tools,
            "messages": messages,
        }
        for attempt in range(RETRIES + 1):
            try:
                response = self._client.post(API_URL, json=body, headers=self._headers)
            except httpx.HTTPError as exc:
                raise EvalError(
                    f"cannot reach the Messages API ({exc}); check the network"
                ) from exc
            if response.status_code not in RETRY_STATUSES or attempt == RETRIES:
                break
            self._sleep(_wait(response, attempt))
        if response.status_code != 200:
            raise EvalError(
                f"the Messages API answered {response.status_code}: {_error_text(response)}; "
                "check ANTHROPIC_API_KEY and --model"
            )
        reply: dict[str, Any] = response.json()
        return reply


def _wait(response: httpx.Response, attempt: int) -> float:
    """:returns: the seconds to wait before asking again: ``retry-after`` or a back-off."""
    try:
        return min(float(response.headers.get("retry-after", "")), 60.0)
    except ValueError:
        return float(2**attempt)


def _error_text(response: httpx.Response) -> str:
    try:
        error = response.json().get("error", {})
        return str(error.get("message") or error.get("type") or "no message")
    except (ValueError, AttributeError):
        return response.text[:200].replace("\n", " ") or "no message"


@dataclass(frozen=True)
class Outcome:
    """What the model called for one case, in order, and why it stopped."""

    calls: list[str]
    stop_reason: str

    @property
    def first(self) -> str | None:
        """:returns: the first tool called, if any."""
        return self.calls[0] if self.calls else None


def run_case(api: Messages, case: Mapping[str, Any], tools: list[Tool], turns: int) -> Outcome:
    """:returns: the tools the model calls for ``case`` in up to ``turns`` replies, each call
    answered with :data:`STUB`.

    :raises EvalError: if the API refuses a request.
    """
    messages: list[dict[str, Any]] = [{"role": "user", "content": str(case["request"])}]
    calls: list[str] = []
    stop = "max_turns"
    for _ in range(turns):
        reply = api.create(messages, tools)
        uses = [b for b in reply.get("content", []) if b.get("type") == "tool_use"]
        calls += [str(u["name"]) for u in uses]
        if not uses:
            stop = str(reply.get("stop_reason"))
            break
        results = [{"type": "tool_result", "tool_use_id": u["id"], "content": STUB} for u in uses]
        messages += [
            {"role": "assistant", "content": reply["content"]},
            {"role": "user", "content": results},
        ]
    return Outcome(calls, stop)


# --- scoring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """One case's result."""

    id: str
    lang: str
    toolset: str
    config: str
    expected_first: list[str]
    expected_plan: list[str]
    calls: list[str]
    first_ok: bool
    plan_overlap: float


def unique(names: Sequence[str]) -> list[str]:
    """:returns: ``names`` in order, each once."""
    return list(dict.fromkeys(names))


def common_subsequence(a: Sequence[str], b: Sequence[str]) -> int:
    """:returns: the length of the longest common subsequence of ``a`` and ``b``."""
    row = [0] * (len(b) + 1)
    for x in a:
        previous = 0
        for j, y in enumerate(b, start=1):
            previous, row[j] = row[j], previous + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def plan_overlap(expected: Sequence[str], calls: Sequence[str]) -> float:
    """:returns: the order-aware overlap of the expected plan and the tools called, 0 to 1."""
    called = unique(calls)
    longer = max(len(expected), len(called))
    return 1.0 if not longer else round(common_subsequence(expected, called) / longer, 4)


def score(case: Mapping[str, Any], outcome: Outcome) -> Score:
    """:returns: how ``outcome`` compares with what ``case`` expects."""
    firsts = lint.first_tools(case)
    ok = outcome.first in firsts if firsts else outcome.first is None
    plan = [str(t) for t in case.get("plan") or ()]
    return Score(
        id=str(case["id"]),
        lang=str(case["lang"]),
        toolset=str(case["toolset"]),
        config=lint.config_for(case),
        expected_first=firsts,
        expected_plan=plan,
        calls=outcome.calls,
        first_ok=ok,
        plan_overlap=plan_overlap(plan, outcome.calls),
    )


def _group(scores: Sequence[Score]) -> dict[str, float | int]:
    n = len(scores)
    return {
        "cases": n,
        "first_tool": round(sum(s.first_ok for s in scores) / n, 4),
        "plan_overlap": round(sum(s.plan_overlap for s in scores) / n, 4),
    }


def summarize(scores: Sequence[Score]) -> dict[str, dict[str, dict[str, float | int]]]:
    """:returns: the mean scores over all cases, per language and per toolset."""
    summary: dict[str, dict[str, dict[str, float | int]]] = {"all": {"all": _group(scores)}}
    for field in ("lang", "toolset"):
        keys = sorted({getattr(s, field) for s in scores})
        summary[field] = {k: _group([s for s in scores if getattr(s, field) == k]) for k in keys}
    return summary


def table(summary: Mapping[str, Mapping[str, Mapping[str, float | int]]]) -> str:
    """:returns: the summary as a Markdown table."""
    rows = ["| group | cases | first tool | plan overlap |", "|---|---:|---:|---:|"]
    for field, groups in summary.items():
        for name, g in groups.items():
            label = "all" if field == "all" else f"{field} {name}"
            rows.append(
                f"| {label} | {g['cases']} | {g['first_tool']:.0%} | {g['plan_overlap']:.2f} |"
            )
    return "\n".join(rows) + "\n"


# --- the command --------------------------------------------------------------------------------


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """:returns: the command's options."""
    parser = argparse.ArgumentParser(prog="python -m evals.run", description=__doc__)
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"default {DEFAULT_MODEL}")
    parser.add_argument("--cases", type=Path, default=lint.CASES_PATH, help="the cases file")
    parser.add_argument("--ids", default="", help="only these case ids, comma-separated")
    parser.add_argument("--limit", type=int, default=0, help="only the first N cases")
    parser.add_argument("--max-turns", type=int, default=DEFAULT_TURNS, help="replies per case")
    parser.add_argument("--out", type=Path, default=Path("eval-report.json"), help="JSON report")
    return parser.parse_args(argv)


def select(cases: list[dict[str, Any]], ids: str, limit: int) -> list[dict[str, Any]]:
    """:returns: the cases named by ``ids`` (all if empty), at most ``limit`` (all if 0).

    :raises EvalError: if an id names no case.
    """
    wanted = [i for i in ids.split(",") if i]
    unknown = sorted(set(wanted) - {str(c["id"]) for c in cases})
    if unknown:
        raise EvalError(f"no case has the id {', '.join(unknown)}; see evals/requests.yaml")
    chosen = [c for c in cases if not wanted or c["id"] in wanted]
    return chosen[:limit] if limit > 0 else chosen


def evaluate(
    args: argparse.Namespace, key: str, transport: httpx.BaseTransport | None, sleep: Sleep
) -> dict[str, Any]:
    """:returns: the report of the chosen cases.

    :raises EvalError: if the API refuses a request or an id names no case.
    :raises CaseFileError: if the cases file cannot be read.
    """
    cases = select(lint.load_cases(args.cases), args.ids, args.limit)
    offered = {name: to_anthropic_tools(t) for name, t in lint.load_listings().items()}
    with httpx.Client(transport=transport, timeout=120.0) as client:
        api = Messages(client, key, args.model, sleep)
        scores = [
            score(c, run_case(api, c, offered[lint.config_for(c)], args.max_turns)) for c in cases
        ]
    return {
        "model": args.model,
        "max_turns": args.max_turns,
        "summary": summarize(scores),
        "cases": [asdict(s) for s in scores],
    }


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] = os.environ,
    transport: httpx.BaseTransport | None = None,
    sleep: Sleep = time.sleep,
) -> int:
    """Run the evals; :returns: 0 when done or skipped, 1 if they could not run."""
    args = parse(argv)
    key = environ.get("ANTHROPIC_API_KEY", "")
    if not key:
        sys.stdout.write(f"{SKIPPED}\n")
        return 0
    try:
        report = evaluate(args, key, transport, sleep)
    except (EvalError, lint.CaseFileError) as exc:
        sys.stderr.write(f"evals: {exc}\n")
        return 1
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.stdout.write(table(report["summary"]))
    sys.stdout.write(f"model {args.model}; report written to {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
