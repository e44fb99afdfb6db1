"""The write flow: prepare, preview, approval by a human, execute, audit (seed ADR 0003)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain.writes import Progress
from sevdesk_mcp.errors import ConfigError, WriteRefusedError
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.server import SERVER_INFO
from sevdesk_mcp.tools.registry import Registry
from tests.demo_account import DEMO_URL, fake_client
from tests.wire import FORM, open_wire
from tests.write_fixtures import FINALIZE_INVOICE
from tests.writes.helpers import DRAFT_ID, approve, write_app, writes
from tests.writes.tool_helpers import said

pytestmark = pytest.mark.anyio
FINALIZE = "sevdesk_test_finalize_invoice"


async def ask(wire: Any, arguments: dict[str, Any] | None = None, caps: Any = FORM) -> Any:
    params = {"name": FINALIZE, "arguments": arguments or {"invoice_id": DRAFT_ID}}
    return await wire.modern("tools/call", params, caps=caps)


async def answer(
    wire: Any, state: str, responses: dict[str, Any], arguments: dict[str, Any] | None = None
) -> Any:
    return await wire.modern(
        "tools/call",
        {
            "name": FINALIZE,
            "arguments": arguments or {"invoice_id": DRAFT_ID},
            "requestState": state,
            "inputResponses": responses,
        },
        caps=FORM,
    )


async def test_a_commit_tool_asks_with_the_preview_warnings_first() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        result = (await ask(wire))["result"]
    assert result["resultType"] == "input_required"
    form = result["inputRequests"]["approve"]["params"]
    lines = form["message"].splitlines()
    assert lines[:3] == [
        "WARNING: sevDesk assigns the invoice number now.",
        "WARNING: This cannot be undone.",
        f"Finalize invoice draft {DRAFT_ID}",
    ]
    assert "Text:\n    “line one\n    line two”" in form["message"]
    schema = form["requestedSchema"]["properties"]["approve"]
    assert schema == {"type": "boolean", "title": "Approve this action", "default": False}
    assert writes(fake) == []


async def test_the_approval_question_is_in_the_configured_language() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake, {"SEVDESK_LANGUAGE": "de"})) as wire:
        first = (await ask(wire))["result"]
        form = first["inputRequests"]["approve"]["params"]
        assert form["message"].splitlines()[:2] == [
            "ACHTUNG: " + form["message"].splitlines()[0].removeprefix("ACHTUNG: "),
            "ACHTUNG: Das lässt sich nicht rückgängig machen.",
        ]
        schema = form["requestedSchema"]["properties"]["approve"]
        assert schema == {"type": "boolean", "title": "Diese Aktion freigeben", "default": False}
        writer = fake_client(fake, load_config({"SEVDESK_ALLOW": "write"}))
        await writer.send("PUT", "/Contact/410015", tier=Tier.WRITE, json={"name": "Renamed GmbH"})
        again = (await answer(wire, first["requestState"], approve()))["result"]
    message = again["inputRequests"]["approve"]["params"]["message"]
    assert message.startswith("Die Datensätze haben sich geändert, seit Sie gefragt wurden (")
    assert "Bitte prüfen Sie die Aktion noch einmal.\n\nACHTUNG: " in message
    assert writes(fake) == ["PUT /Contact/410015"]


async def test_approval_executes_exactly_the_previewed_write_once() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        state = (await ask(wire))["result"]["requestState"]
        done = (await answer(wire, state, approve()))["result"]
    data = done["structuredContent"]
    assert data["status"] == "done"
    assert data["result"]["status"] == 200 and data["result"]["number"].startswith("RE-")
    assert data["preview"]["irreversible"] is True
    assert writes(fake) == [f"PUT /Invoice/{DRAFT_ID}/sendBy"]


@pytest.mark.parametrize(
    "responses", [approve(False), approve(action="decline"), approve(action="cancel")]
)
async def test_decline_cancel_or_an_unchecked_switch_is_declined_not_an_error(
    responses: dict[str, Any],
) -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        state = (await ask(wire))["result"]["requestState"]
        result = (await answer(wire, state, responses))["result"]
    assert "isError" not in result
    assert result["structuredContent"]["status"] == "declined"
    assert writes(fake) == []


@pytest.mark.threat("F01")
async def test_a_replayed_approval_is_refused() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        state = (await ask(wire))["result"]["requestState"]
        await answer(wire, state, approve(False))
        replay = (await answer(wire, state, approve()))["result"]
    assert replay["isError"] is True
    assert "already used or has expired" in replay["content"][0]["text"]
    assert writes(fake) == []


@pytest.mark.threat("F01")
async def test_an_approval_for_other_arguments_or_another_tool_is_refused() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        state = (await ask(wire))["result"]["requestState"]
        other = await answer(wire, state, approve(), {"invoice_id": 700042})
        other_tool = await wire.modern(
            "tools/call",
            {
                "name": "sevdesk_test_overreach",
                "arguments": {"invoice_id": DRAFT_ID},
                "requestState": state,
                "inputResponses": approve(),
            },
            caps=FORM,
        )
    assert other["error"]["code"] == -32602
    assert other_tool["error"]["code"] == -32602
    assert writes(fake) == []


@pytest.mark.threat("F02")
async def test_approval_of_preview_a_cannot_execute_preview_b() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        state = (await ask(wire))["result"]["requestState"]
        writer = fake_client(fake, load_config({"SEVDESK_ALLOW": "write"}))
        await writer.send("PUT", "/Contact/410015", tier=Tier.WRITE, json={"name": "Renamed GmbH"})
        again = (await answer(wire, state, approve()))["result"]
        assert again["resultType"] == "input_required"
        message = again["inputRequests"]["approve"]["params"]["message"]
        assert message.startswith(
            "The records changed since you were asked (the preview lines 'Customer'"
        )
        assert "Renamed GmbH" in message
        done = (await answer(wire, again["requestState"], approve()))["result"]
    assert done["structuredContent"]["status"] == "done"
    assert writes(fake) == ["PUT /Contact/410015", f"PUT /Invoice/{DRAFT_ID}/sendBy"]


async def test_missing_answers_ask_again() -> None:
    async with open_wire(write_app(build_demo())) as wire:
        state = (await ask(wire))["result"]["requestState"]
        again = (await answer(wire, state, {}))["result"]
    assert again["resultType"] == "input_required"


async def test_a_client_without_elicitation_gets_an_actionable_error() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        result = (await ask(wire, caps={}))["result"]
    assert result["isError"] is True
    assert "cannot show approval forms" in result["content"][0]["text"]
    assert writes(fake) == []


@pytest.mark.parametrize("env", [{"SEVDESK_DRY_RUN": "1"}, {}])
async def test_a_dry_run_shows_the_preview_sends_nothing_and_asks_nobody(env: dict) -> None:
    fake = build_demo()
    arguments = {"invoice_id": DRAFT_ID, "dryRun": not env}
    async with open_wire(write_app(fake, env)) as wire:
        result = (await ask(wire, arguments, caps={}))["result"]
    data = result["structuredContent"]
    assert data["status"] == "dry_run" and data.get("result") is None
    assert said(data["preview"])[0].startswith("Finalize invoice draft")
    assert writes(fake) == []


async def test_write_tier_tools_run_without_asking() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        result = (
            await wire.modern(
                "tools/call",
                {
                    "name": "sevdesk_test_rename_contacts",
                    "arguments": {"contact_ids": [410001], "name": "Neu GmbH"},
                },
                caps={},
            )
        )["result"]
    assert result["structuredContent"]["status"] == "done"
    assert writes(fake) == ["PUT /Contact/410001"]


async def test_a_half_finished_write_names_what_already_changed() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        result = (
            await wire.modern(
                "tools/call",
                {
                    "name": "sevdesk_test_rename_contacts",
                    "arguments": {"contact_ids": [410001, 999999], "name": "X"},
                },
            )
        )["result"]
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert "Already changed before the failure: renamed contact 410001." in text
    assert writes(fake) == ["PUT /Contact/410001", "PUT /Contact/999999"]


async def test_a_write_tool_cannot_reach_a_commit_endpoint() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        result = (
            await wire.modern(
                "tools/call",
                {"name": "sevdesk_test_overreach", "arguments": {"invoice_id": DRAFT_ID}},
            )
        )["result"]
    assert result["isError"] is True
    assert "needs the commit tier, and the calling tool is write" in result["content"][0]["text"]
    assert writes(fake) == []


@pytest.mark.parametrize(
    ("argument", "code"),
    [
        ("Neu\u202eGmbH", "U+202E"),
        ("Neu\rGmbH", "U+000D"),
        ("a\tb", "U+0009"),
        ("a\u2028b", "U+2028"),
        ("zero\u200bwidth", "U+200B"),
    ],
)
async def test_hidden_characters_are_refused_before_prepare(argument: str, code: str) -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        result = (
            await wire.modern(
                "tools/call",
                {
                    "name": "sevdesk_test_rename_contacts",
                    "arguments": {"contact_ids": [410001], "name": argument},
                },
            )
        )["result"]
    assert result["isError"] is True and code in result["content"][0]["text"]
    assert fake.requests == []


async def test_the_audit_line_comes_before_the_request_and_carries_no_token(tmp_path: Path) -> None:
    fake = build_demo()
    log = tmp_path / "audit.jsonl"
    async with open_wire(write_app(fake, {"SEVDESK_AUDIT_LOG": str(log)})) as wire:
        state = (await ask(wire))["result"]["requestState"]
        await answer(wire, state, approve())
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["event"] for line in lines] == ["asked", "approved", "executing", "done"]
    assert len({line["call"] for line in lines}) == 1  # one action, one call id
    assert lines[0]["preview"] == lines[2]["preview"]  # asked and executed: the same basis
    assert all(list(line)[:2] == ["ts", "v"] for line in lines)
    assert lines[3]["completed"] == [f"finalized invoice {DRAFT_ID}"]
    assert fake.token not in log.read_text()
    assert oct(log.stat().st_mode & 0o777) == "0o600"


async def _rename_one(app: McpApp) -> Any:
    """:returns: the result of renaming contact 410001 to "X" through ``app``."""
    async with open_wire(app) as wire:
        answer = await wire.modern(
            "tools/call",
            {
                "name": "sevdesk_test_rename_contacts",
                "arguments": {"contact_ids": [410001], "name": "X"},
            },
        )
    return answer["result"]


async def test_if_the_audit_line_cannot_be_written_nothing_is_sent(tmp_path: Path) -> None:
    fake = build_demo()
    log = tmp_path / "audit.jsonl"
    app = write_app(fake, {"SEVDESK_AUDIT_LOG": str(log)})
    log.mkdir()  # the file can no longer be written
    result = await _rename_one(app)
    assert result["isError"] is True
    assert "could not be written" in result["content"][0]["text"]
    assert writes(fake) == []


async def test_confirm_off_needs_the_explicit_acknowledgement() -> None:
    with pytest.raises(ConfigError, match="SEVDESK_I_UNDERSTAND_NO_CONFIRM"):
        load_config({"SEVDESK_CONFIRM": "off"})
    browser = load_config({"SEVDESK_CONFIRM": "Browser", "SEVDESK_CONFIRM_OPEN": "no"})
    assert (browser.confirm, browser.confirm_open) == ("browser", False)
    assert load_config({"SEVDESK_CONFIRM": "browser"}).confirm_open is True
    with pytest.raises(ConfigError, match="SEVDESK_CONFIRM_OPEN"):
        load_config({"SEVDESK_CONFIRM_OPEN": "maybe"})
    with pytest.raises(ConfigError, match="elicit"):
        load_config({"SEVDESK_CONFIRM": "sometimes"})
    fake = build_demo()
    env = {"SEVDESK_CONFIRM": "off", "SEVDESK_I_UNDERSTAND_NO_CONFIRM": "1"}
    async with open_wire(write_app(fake, env)) as wire:
        result = (await ask(wire, caps={}))["result"]
    assert result["structuredContent"]["status"] == "done"


async def test_read_only_refuses_at_all_three_layers() -> None:
    fake = build_demo()
    read_only = {"SEVDESK_READ_ONLY": "1"}
    async with open_wire(write_app(fake, read_only)) as wire:
        names = [t["name"] for t in (await wire.modern("tools/list"))["result"]["tools"]]
    assert FINALIZE not in names  # 1: registration
    config = load_config({**read_only, "SEVDESK_API_URL": DEMO_URL})
    account = AccountContext(config=config, client=fake_client(fake, config))
    registry = Registry((FINALIZE_INVOICE,), account, SafetyRuntime(AuditLog(None)))
    bypassed = McpApp(info=SERVER_INFO, codec=RequestStateCodec(), tools=registry)
    async with open_wire(bypassed) as wire:  # 2: registration bypassed, the dispatcher checks
        result = (await ask(wire))["result"]
    assert result["isError"] is True and "needs the commit tier" in result["content"][0]["text"]
    client = fake_client(fake, load_config(read_only))  # 3: the client, tool layers bypassed
    with pytest.raises(WriteRefusedError, match="SEVDESK_READ_ONLY"):
        await client.send("PUT", f"/Invoice/{DRAFT_ID}/sendBy", tier=Tier.COMMIT, json={})
    assert writes(fake) == []


async def test_the_legacy_shim_asks_a_2025_client_and_executes_on_approval() -> None:
    fake = build_demo()
    async with open_wire(write_app(fake)) as wire:
        await wire.initialize(caps={"elicitation": {}})
        await wire.send(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {"name": FINALIZE, "arguments": {"invoice_id": DRAFT_ID}},
            }
        )
        request = await wire.recv()
        assert request["method"] == "elicitation/create"
        await wire.send(
            {
                "jsonrpc": "2.0",
                "id": request["id"],
                "result": {"action": "accept", "content": {"approve": True}},
            }
        )
        result = (await wire.recv())["result"]
    assert '"status":"done"' in result["content"][0]["text"]
    assert writes(fake) == [f"PUT /Invoice/{DRAFT_ID}/sendBy"]


async def test_a_write_sent_without_an_answer_is_audited_as_unknown_not_failed(
    tmp_path: Path,
) -> None:
    fake = build_demo()
    log = tmp_path / "audit.jsonl"
    fake.faults.timeout_after_write_next()
    result = await _rename_one(write_app(fake, {"SEVDESK_AUDIT_LOG": str(log)}))
    assert result["isError"] is True
    events = [json.loads(line)["event"] for line in log.read_text().splitlines()]
    assert events[-1] == "outcome_unknown", events
    assert writes(fake) == ["PUT /Contact/410001"]  # sent once, never retried


@pytest.mark.threat("I35-7b")
async def test_an_error_after_a_sent_write_is_audited_as_unknown_not_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A garbled answer or an internal error after a request went out may follow an applied
    write: only sevDesk's refusal, an unreachable sevDesk or a refusal before sending is a
    known failure (final review of issue 35)."""
    fake = build_demo()
    log = tmp_path / "audit.jsonl"

    def broken(self: Progress, text: str) -> None:
        raise KeyError(text)  # after the PUT went out, as a parsing slip would

    monkeypatch.setattr(Progress, "done", broken)
    result = await _rename_one(write_app(fake, {"SEVDESK_AUDIT_LOG": str(log)}))
    assert result["isError"] is True
    events = [json.loads(line)["event"] for line in log.read_text().splitlines()]
    assert events[-1] == "outcome_unknown", events
    assert writes(fake) == ["PUT /Contact/410001"]  # sent once, never retried
