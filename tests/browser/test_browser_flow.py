"""Browser approval end to end on the tool side: pending, approve, decline, changes, limits."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.safety.approval_local import Pages, PageServerError
from sevdesk_mcp.safety.approvals import Approval, Binding, MemoryApprovalStore
from sevdesk_mcp.safety.preview import Preview, say
from sevdesk_mcp.safety.tiers import Tier
from tests.browser.helpers import (
    REFERENCE,
    browser_app,
    call,
    last_link,
    post,
    request,
    visit,
)
from tests.demo_account import fake_client
from tests.wire import open_wire
from tests.writes.helpers import DRAFT_ID, writes

pytestmark = pytest.mark.anyio
FINALIZED = f"PUT /Invoice/{DRAFT_ID}/sendBy"


async def test_the_first_call_waits_for_approval_and_never_shows_the_link(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        result = await call(wire)
    link = last_link(caplog)
    data = result["structuredContent"]
    assert "isError" not in result
    assert data["status"] == "approval_pending" and data.get("result") is None
    approval = data["approval"]
    assert REFERENCE.fullmatch(approval["reference"])
    expires = dt.datetime.fromisoformat(approval["expires_at"]).timestamp()
    assert expires == pytest.approx(setup.clock.now + 600, abs=1)
    assert approval["opened"] is False and setup.opened == []
    assert approval["reference"] in data["note"] and "same arguments" in data["note"]
    assert "wrote it to its log" in data["note"] and "not in this answer" in data["note"]
    assert "~/Library/Logs/Claude/" in data["note"] and "%APPDATA%\\Claude\\logs\\" in data["note"]
    assert "mcp-server-<" in data["note"] and "stderr" not in data["note"]
    assert data["preview"]["irreversible"] is True
    secret = link.rsplit("/", 1)[1]
    assert secret not in json.dumps(result) and "127.0.0.1" not in json.dumps(result)
    assert writes(setup.fake) == []


@pytest.mark.parametrize("works", [True, False])
async def test_the_page_is_opened_when_confirm_open_is_on(
    works: bool, caplog: pytest.LogCaptureFixture
) -> None:
    setup = browser_app({"SEVDESK_CONFIRM_OPEN": "1"}, opener_works=works)
    async with open_wire(setup.app) as wire:
        data = (await call(wire))["structuredContent"]
        again = (await call(wire))["structuredContent"]
    assert setup.opened == [last_link(caplog)]  # once: the retry does not open it again
    assert data["approval"]["opened"] is works
    assert ("page that opened" in data["note"]) is works
    assert again["approval"]["opened"] is False


async def test_approve_then_the_retry_executes_exactly_once(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    setup = browser_app({"SEVDESK_AUDIT_LOG": str(log)})
    async with open_wire(setup.app) as wire:
        reference = (await call(wire))["structuredContent"]["approval"]["reference"]
        page = await visit(last_link(caplog))
        decided = await post(page, "approve")
        done = (await call(wire))["structuredContent"]
        again = await call(wire)
    assert decided.status_code == 200 and f"Approved (reference {reference})" in decided.text
    assert done["status"] == "done" and done["result"]["number"].startswith("RE-")
    assert done.get("approval") is None
    assert again["isError"] is True and "Only drafts" in again["content"][0]["text"]
    assert writes(setup.fake) == [FINALIZED]
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in events] == ["asked", "approved", "executing", "done"]
    assert events[0]["reference"] == events[1]["reference"] == reference


async def test_decline_is_declined_not_an_error(caplog: pytest.LogCaptureFixture) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        await call(wire)
        page = await visit(last_link(caplog))
        decided = await post(page, "decline")
        result = await call(wire)
    assert decided.status_code == 200 and "Nothing will be changed" in decided.text
    assert "isError" not in result
    assert result["structuredContent"]["status"] == "declined"
    assert writes(setup.fake) == []


async def test_a_pending_approval_keeps_its_reference(caplog: pytest.LogCaptureFixture) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        first = (await call(wire))["structuredContent"]
        link = last_link(caplog)
        second = (await call(wire))["structuredContent"]
    assert second["status"] == "approval_pending"
    assert second["approval"]["reference"] == first["approval"]["reference"]
    assert "still waits" in second["note"]
    assert last_link(caplog) == link
    assert writes(setup.fake) == []


@pytest.mark.threat("F02")
async def test_a_changed_preview_voids_the_approval_and_asks_anew(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        first = (await call(wire))["structuredContent"]["approval"]["reference"]
        page = await visit(last_link(caplog))
        writer = fake_client(setup.fake, load_config({"SEVDESK_ALLOW": "write"}))
        await writer.send("PUT", "/Contact/410015", tier=Tier.WRITE, json={"name": "Renamed"})
        assert (await post(page, "approve")).status_code == 200
        renewed = (await call(wire))["structuredContent"]
        new_page = await visit(last_link(caplog))
        await post(new_page, "approve")
        done = (await call(wire))["structuredContent"]
    assert renewed["status"] == "approval_pending"
    assert renewed["approval"]["reference"] != first
    assert renewed["note"].startswith("The records changed since the user was asked (")
    assert "The record changed" in new_page.response.text and "Renamed" in new_page.response.text
    assert done["status"] == "done"
    assert writes(setup.fake) == ["PUT /Contact/410015", FINALIZED]


@pytest.mark.threat("F01")
async def test_an_approval_never_serves_other_arguments(caplog: pytest.LogCaptureFixture) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        first = (await call(wire))["structuredContent"]["approval"]["reference"]
        await post(await visit(last_link(caplog)), "approve")
        other = (await call(wire, invoice_id=700042))["structuredContent"]
    assert other["status"] == "approval_pending"
    assert other["approval"]["reference"] != first
    assert writes(setup.fake) == []


@pytest.mark.threat("F01")
async def test_an_expired_approval_is_gone_and_the_retry_asks_anew(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        first = (await call(wire))["structuredContent"]["approval"]["reference"]
        page = await visit(last_link(caplog))
        assert (await post(page, "approve")).status_code == 200
        setup.clock.advance(601)
        gone = await request("GET", page.link)
        renewed = (await call(wire))["structuredContent"]
    assert gone.status_code == 404
    assert renewed["status"] == "approval_pending"
    assert renewed["approval"]["reference"] != first
    assert writes(setup.fake) == []


async def test_a_sixth_waiting_approval_is_refused_until_one_is_settled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    setup = browser_app()
    preview = Preview(action=say("Something else", "Etwas anderes"))
    for n in range(5):
        await setup.runtime.approvals.settle(Binding("sevdesk_other", f"args{n}", "local"), preview)
    async with open_wire(setup.app) as wire:
        refused = await call(wire)
        setup.clock.advance(601)  # the five expire and are pruned
        accepted = (await call(wire))["structuredContent"]
    text = refused["content"][0]["text"]
    assert refused["isError"] is True
    assert "5 approvals already wait" in text and "Nothing was changed" in text
    assert accepted["status"] == "approval_pending"
    assert len(_waiting(setup.runtime.approvals)) == 1
    assert writes(setup.fake) == []


def _waiting(store: object) -> list[Approval]:
    """:returns: the approvals waiting in this process (stdio: one principal, no person)."""
    assert isinstance(store, MemoryApprovalStore)
    return store._memory._holding(Binding("", "", "").holder)


async def test_a_dry_run_never_creates_an_approval() -> None:
    setup = browser_app()
    async with open_wire(setup.app) as wire:
        arguments = {"invoice_id": DRAFT_ID, "dryRun": True}
        params = {"name": "sevdesk_test_finalize_invoice", "arguments": arguments}
        result = (await wire.modern("tools/call", params, caps={}))["result"]
    assert result["structuredContent"]["status"] == "dry_run"
    assert _waiting(setup.runtime.approvals) == []


async def test_a_page_server_that_cannot_start_fails_the_call_and_keeps_no_approval() -> None:
    def broken() -> Pages:
        raise PageServerError("The local approval page could not be started (test).")

    setup = browser_app(pages=broken)
    async with open_wire(setup.app) as wire:
        result = await call(wire)
    assert result["isError"] is True and "could not be started" in result["content"][0]["text"]
    assert _waiting(setup.runtime.approvals) == []
    assert writes(setup.fake) == []
