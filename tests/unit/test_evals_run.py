"""The eval runner (``evals/run.py``) offline: the conversion of ``tools/list`` to the Messages
API's tool format, the conversation with stubbed tool results and the scoring, against a fake
model behind ``httpx.MockTransport`` (nothing leaves the process). One smoke eval of five cases
talks to the real API; it is collected always and skipped without ``ANTHROPIC_API_KEY``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from evals import lint, run

SMOKE_IDS = (
    "de-find-invoice,en-file-receipt,de-ustva-month,en-reconcile-suggest,de-none-archive-contact"
)


class FakeModel:
    """Answers each request with the next tool of its script (by the user's request), then
    with text; records every request body and its headers."""

    def __init__(self, scripts: dict[str, list[str]]) -> None:
        self.scripts = scripts
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[httpx.Headers] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        self.headers.append(request.headers)
        script = self.scripts.get(body["messages"][0]["content"], [])
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        if turn < len(script):
            content = [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": f"toolu_{turn}", "name": script[turn], "input": {}},
            ]
            return httpx.Response(200, json={"content": content, "stop_reason": "tool_use"})
        text = [{"type": "text", "text": "Done."}]
        return httpx.Response(200, json={"content": text, "stop_reason": "end_turn"})


def messages(model: FakeModel) -> run.Messages:
    return run.Messages(httpx.Client(transport=httpx.MockTransport(model)), "test-key", "m-1")


@pytest.fixture(scope="module")
def listings() -> dict[str, list[dict[str, Any]]]:
    return lint.load_listings()


@pytest.fixture(scope="module")
def cases() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in lint.load_cases()}


def test_tools_are_converted_to_the_messages_api_format(
    listings: dict[str, list[dict[str, Any]]],
) -> None:
    tools = listings[lint.LARGEST]
    converted = run.to_anthropic_tools(tools)
    assert [t["name"] for t in converted] == [t["name"] for t in tools]
    for mcp_tool, tool in zip(tools, converted, strict=True):
        assert set(tool) == {"name", "description", "input_schema"}
        assert tool["input_schema"] == mcp_tool["inputSchema"]
        assert tool["description"] == mcp_tool["description"]


def test_the_conversation_goes_on_with_stubbed_results(cases: dict[str, dict[str, Any]]) -> None:
    case = cases["de-cancel-invoice"]
    plan = ["sevdesk_search_documents", "sevdesk_cancel_invoice"]
    model = FakeModel({case["request"]: plan})
    tools = [{"name": "sevdesk_search_documents", "description": "d", "input_schema": {}}]
    outcome = run.run_case(messages(model), case, tools, turns=6)
    assert outcome == run.Outcome(plan, "end_turn") and outcome.first == plan[0]
    assert len(model.bodies) == 3  # two tool calls, then the answer
    first, last = model.bodies[0], model.bodies[-1]
    assert first["model"] == "m-1" and first["system"] == run.SYSTEM
    assert first["tools"] == tools and "tool_choice" not in first
    assert model.headers[0]["x-api-key"] == "test-key"
    assert model.headers[0]["anthropic-version"] == run.API_VERSION
    assert [m["role"] for m in last["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert last["messages"][1]["content"][1]["name"] == plan[0]  # the reply sent back whole
    result = last["messages"][4]["content"]
    assert result == [{"type": "tool_result", "tool_use_id": "toolu_1", "content": run.STUB}]


def test_the_conversation_stops_after_max_turns(cases: dict[str, dict[str, Any]]) -> None:
    case = cases["de-find-invoice"]
    model = FakeModel({case["request"]: ["sevdesk_search_documents"] * 10})
    outcome = run.run_case(messages(model), case, [], turns=3)
    assert outcome.stop_reason == "max_turns" and len(outcome.calls) == 3
    assert len(model.bodies) == 3


@pytest.mark.parametrize(
    ("expected", "calls", "overlap"),
    [
        (["a", "b"], ["a", "b"], 1.0),
        (["a", "b"], ["a", "a", "b"], 1.0),  # a repeated call is one step
        (["a", "b"], ["b", "a"], 0.5),  # order counts
        (["a", "b"], ["a", "c", "b", "d"], 0.5),  # extra tools count against it
        (["a", "b", "c", "d"], ["a"], 0.25),
        (["a"], [], 0.0),
        ([], [], 1.0),
        ([], ["a"], 0.0),
    ],
)
def test_the_plan_overlap(expected: list[str], calls: list[str], overlap: float) -> None:
    assert run.plan_overlap(expected, calls) == overlap


def test_the_first_tool_is_scored_against_each_acceptable_one(
    cases: dict[str, dict[str, Any]],
) -> None:
    two = cases["de-month-end-overview"]  # open items or server status first
    assert run.score(two, run.Outcome(["sevdesk_server_status"], "end_turn")).first_ok
    assert run.score(two, run.Outcome(["sevdesk_open_items"], "end_turn")).first_ok
    assert not run.score(two, run.Outcome(["sevdesk_vat_return"], "end_turn")).first_ok
    none = cases["de-none-cancel-credit-note"]
    assert run.score(none, run.Outcome([], "end_turn")).first_ok
    missed = run.score(none, run.Outcome(["sevdesk_cancel_invoice"], "end_turn"))
    assert not missed.first_ok and missed.plan_overlap == 0.0


def test_the_summary_groups_by_language_and_toolset(cases: dict[str, dict[str, Any]]) -> None:
    good = run.score(cases["de-find-invoice"], run.Outcome(["sevdesk_search_documents"], "x"))
    bad = run.score(cases["en-oss"], run.Outcome(["sevdesk_vat_return"], "x"))
    summary = run.summarize([good, bad])
    assert summary["all"]["all"] == {"cases": 2, "first_tool": 0.5, "plan_overlap": 0.5}
    assert summary["lang"]["de"]["first_tool"] == 1.0 and summary["lang"]["en"]["first_tool"] == 0
    assert set(summary["toolset"]) == {"documents", "reports"}
    text = run.table(summary)
    assert "| all | 2 | 50% | 0.50 |" in text and "| toolset reports | 1 | 0% | 0.00 |" in text


def test_without_a_key_it_prints_one_line_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    assert run.main(["--out", str(out)], environ={}) == 0
    assert capsys.readouterr().out == "skipped: ANTHROPIC_API_KEY is not set\n"
    assert not out.exists()


def test_a_run_writes_the_report_and_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cases: dict[str, dict[str, Any]]
) -> None:
    ids = ["de-reconcile", "en-quote-to-invoice-send", "en-none-delete-contact"]
    model = FakeModel({cases[i]["request"]: cases[i]["plan"] for i in ids})
    out = tmp_path / "report.json"
    argv = ["--ids", ",".join(ids), "--out", str(out), "--model", "m-2"]
    assert run.main(argv, {"ANTHROPIC_API_KEY": "k"}, httpx.MockTransport(model)) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["model"] == "m-2" and sorted(c["id"] for c in report["cases"]) == sorted(ids)
    assert report["summary"]["all"]["all"] == {"cases": 3, "first_tool": 1.0, "plan_overlap": 1.0}
    offered = {b["messages"][0]["content"]: {t["name"] for t in b["tools"]} for b in model.bodies}
    read_write = offered[cases["en-none-delete-contact"]["request"]]
    assert "sevdesk_create_contact" in read_write and "sevdesk_book_match" not in read_write
    assert "sevdesk_book_match" in offered[cases["de-reconcile"]["request"]]
    assert "| all | 3 | 100% | 1.00 |" in capsys.readouterr().out


def test_a_refused_request_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        error = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
        return httpx.Response(401, json=error)

    argv = ["--limit", "1", "--out", str(tmp_path / "r.json")]
    assert run.main(argv, {"ANTHROPIC_API_KEY": "k"}, httpx.MockTransport(refuse)) == 1
    err = capsys.readouterr().err
    assert err == (
        "evals: the Messages API answered 401: bad key; check ANTHROPIC_API_KEY and --model\n"
    )


def test_an_overloaded_api_is_asked_again_after_its_wait(
    cases: dict[str, dict[str, Any]],
) -> None:
    answers = [httpx.Response(529, headers={"retry-after": "7"}, json={}), None]
    waits: list[float] = []
    model = FakeModel({})

    def handler(request: httpx.Request) -> httpx.Response:
        answer = answers.pop(0) if answers else None
        return answer if answer is not None else model(request)

    client = httpx.Client(transport=httpx.MockTransport(handler))
    api = run.Messages(client, "k", "m", sleep=waits.append)
    assert run.run_case(api, cases["de-find-invoice"], [], 2).calls == []
    assert waits == [7.0]


def test_an_unknown_case_id_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--ids", "de-no-such-case", "--out", str(tmp_path / "r.json")]
    assert run.main(argv, {"ANTHROPIC_API_KEY": "k"}, httpx.MockTransport(FakeModel({}))) == 1
    assert capsys.readouterr().err == (
        "evals: no case has the id de-no-such-case; see evals/requests.yaml\n"
    )


@pytest.mark.live(needs="ANTHROPIC_API_KEY")
@pytest.mark.skipif(
    not os.environ.get("ANTHROPIC_API_KEY"),
    reason="live eval: set ANTHROPIC_API_KEY to run a 5-case smoke eval against the Messages API",
)
def test_a_live_smoke_eval_of_five_cases(tmp_path: Path) -> None:  # pragma: no cover - live
    out = tmp_path / "smoke.json"
    assert run.main(["--ids", SMOKE_IDS, "--out", str(out), "--max-turns", "3"]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert len(report["cases"]) == 5
    assert any(c["calls"] for c in report["cases"]), "the model called no tool in any case"
