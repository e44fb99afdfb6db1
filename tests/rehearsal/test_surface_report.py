"""``sevdesk_rehearsal_report`` end to end through the real server, wired as ``--demo --rehearse``
wires it (``cli.demo.demo_account``): the demo books stand in for the real account, a draft is
created and another finalized with an approval, and the report lists both, with the figures
before (the real books) and after (the rehearsal) differing by the hand-worked amounts, while
the "real" books never see a request that is not a GET."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.cli import demo
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools.definitions import ALL_TOOLS
from sevdesk_mcp.tools.rehearsal_marks import RESULT_LINE
from sevdesk_mcp.tools.reports.rehearsal_steps import (
    BY_PATH,
    DOCUMENT_TOOLS,
    OTHER_TOOLS,
    RECEIPT_TOOLS,
    UNKNOWN,
)
from tests.wire import FORM, Wire, open_wire
from tests.writes.helpers import DRAFT_ID, approve

pytestmark = pytest.mark.anyio

REPORT = "sevdesk_rehearsal_report"
MONTH = "2026-11"  # the draft's invoice date is 2026-11-24
# Draft 700041 of the demo books, by hand: 4 x 1,150.00 + 6 x 68.00 + 120 x 0.65 = 5,086.00 net,
# 19 % VAT = 966.34, gross 6,052.34; finalized it is open in full and due in the month.
DRAFT_TAX = Decimal("966.34")
DRAFT_GROSS = Decimal("6052.34")
ENV = {"SEVDESK_ALLOW": "write,commit", "SEVDESK_REHEARSE": "on"}


def rehearsing(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str] | None = None
) -> tuple[McpApp, AccountContext, FakeSevdesk]:
    """:returns: the app and account of ``--demo --rehearse`` and the demo books behind it."""
    books = demo.LazyDemoBooks()
    monkeypatch.setattr(demo, "demo_books", lambda: books)
    config = load_config(env if env is not None else ENV)
    account = demo.demo_account(config)
    return ServerFactory(account.config).build(account), account, books.fake()


async def call(wire: Wire, name: str, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = (
        await wire.modern("tools/call", {"name": name, "arguments": arguments})
    )["result"]
    return result


async def approved(wire: Wire, name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    """:returns: the approval question's message and the result once approved."""
    params = {"name": name, "arguments": arguments}
    first = (await wire.modern("tools/call", params, caps=FORM))["result"]
    (form,) = first["inputRequests"].values()
    again = {**params, "requestState": first["requestState"], "inputResponses": approve()}
    second: dict[str, Any] = (await wire.modern("tools/call", again, caps=FORM))["result"]
    return str(form["params"]["message"]), second


def amount(figures: dict[str, Any], key: str) -> Decimal:
    (money,) = figures[key]
    assert money["currency"] == "EUR"
    return Decimal(money["amount"])


def new_draft() -> dict[str, Any]:
    return {
        "kind": "invoice",
        "contact_id": 410015,
        "positions": [{"name": "Beratung", "quantity": "2", "unit_price": "100", "tax_rate": "19"}],
    }


async def test_the_report_lists_each_change_and_the_figures_that_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, account, real = rehearsing(monkeypatch)
    async with open_wire(app) as wire:
        listed = (await wire.modern("tools/list"))["result"]["tools"]
        assert REPORT in {t["name"] for t in listed}
        start = (await call(wire, REPORT, month=MONTH))["structuredContent"]
        assert start["changes"] == [] and start["before"] == start["after"]
        created = await call(wire, "sevdesk_create_document_draft", **new_draft())
        assert not created.get("isError"), created
        question, done = await approved(
            wire, "sevdesk_finalize_document", kind="invoice", document_id=DRAFT_ID
        )
        assert question.startswith("WARNING: REHEARSAL:")
        assert done["structuredContent"]["status"] == "done"
        assert done["structuredContent"]["rehearsal"] is True
        report = await call(wire, REPORT, month=MONTH)
    data = report["structuredContent"]
    assert report["content"][0]["text"].startswith(RESULT_LINE + "\n")
    steps = [(s["action"], s["object"], s["for_real"]) for s in data["changes"]]
    assert ("created", "Invoice", "sevdesk_create_document_draft") in steps
    assert steps[-1] == ("finalized", "Invoice", "sevdesk_finalize_document")
    finalized = data["changes"][-1]
    assert finalized["object_id"] == DRAFT_ID and finalized["number"]
    assert {"action": "finalized", "count": 1} in data["totals"]
    assert data["changes_total"] == len(data["changes"]) and data["upstream_refused"] == 0
    before, after = data["before"], data["after"]
    assert before == start["before"]  # the real books did not move
    # a draft counts nowhere; the finalized invoice is open in full and taxed in its month
    assert amount(after, "receivables") - amount(before, "receivables") == DRAFT_GROSS
    assert amount(after, "net_position") - amount(before, "net_position") == DRAFT_GROSS
    assert amount(after, "cash") == amount(before, "cash")
    assert amount(after, "payables") == amount(before, "payables")
    assert Decimal(after["vat_output_tax"]) - Decimal(before["vat_output_tax"]) == DRAFT_TAX
    assert Decimal(after["vat_box_83"]) - Decimal(before["vat_box_83"]) == DRAFT_TAX
    assert after["vat_input_tax"] == before["vat_input_tax"]
    assert "Nothing of this rehearsal is ever sent to sevDesk" in data["to_do_for_real"]
    assert [r for r in real.requests if r.method != "GET"] == []
    assert any(r.method == "GET" for r in real.requests)  # the reads did reach the books
    assert account.rehearsal is not None and len(account.rehearsal.changes()) == len(steps)


async def test_the_month_defaults_to_the_books_current_month(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, _, real = rehearsing(monkeypatch)
    async with open_wire(app) as wire:
        data = (await call(wire, REPORT))["structuredContent"]
    today = real.today
    assert data["month"] == f"{today.year}-{today.month:02d}"
    assert data["on_date"] == today.isoformat()


async def test_a_month_that_is_none_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, _, _ = rehearsing(monkeypatch)
    async with open_wire(app) as wire:
        result = await call(wire, REPORT, month="2026-13")
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "\n" not in text.removeprefix(RESULT_LINE + "\n") and "2026-13" in text


async def test_outside_a_rehearsal_the_report_is_not_offered_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, account, _ = rehearsing(monkeypatch, {"SEVDESK_ALLOW": "write,commit"})
    assert account.rehearsal is None and account.real_reader is None
    async with open_wire(app) as wire:
        listed = (await wire.modern("tools/list"))["result"]["tools"]
        refused = await wire.modern("tools/call", {"name": REPORT, "arguments": {}})
        plain = await call(wire, "sevdesk_open_items")
    assert REPORT not in {t["name"] for t in listed}
    message = refused["error"]["message"]
    assert "not offered here" in message and "--rehearse" in message
    assert not plain["content"][0]["text"].startswith("REHEARSAL")


async def test_named_in_the_toolsets_outside_a_rehearsal_it_refuses_to_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, _, _ = rehearsing(monkeypatch, {"SEVDESK_TOOLSETS": "rehearsal,reports"})
    async with open_wire(app) as wire:
        listed = (await wire.modern("tools/list"))["result"]["tools"]
        result = await call(wire, REPORT)
    assert REPORT in {t["name"] for t in listed}
    assert result["isError"] is True
    assert "none is running" in result["content"][0]["text"]


def test_every_tool_named_for_real_exists() -> None:
    names = {t.name for t in ALL_TOOLS}
    named = {
        *(tool for _, tool in BY_PATH),
        *DOCUMENT_TOOLS.values(),
        *RECEIPT_TOOLS.values(),
        *OTHER_TOOLS.values(),
    }
    assert named <= names, named - names
    assert UNKNOWN not in names


async def test_approvals_off_for_the_rehearsal_finalize_without_asking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, _, real = rehearsing(monkeypatch, {**ENV, "SEVDESK_REHEARSE_CONFIRM": "off"})
    arguments = {"kind": "invoice", "document_id": DRAFT_ID}
    params = {"name": "sevdesk_finalize_document", "arguments": arguments}
    async with open_wire(app) as wire:
        done = (await wire.modern("tools/call", params, caps=FORM))["result"]
        data = (await call(wire, REPORT, month=MONTH))["structuredContent"]
    assert "inputRequests" not in done and done["structuredContent"]["status"] == "done"
    assert [s["action"] for s in data["changes"]] == ["finalized"]
    assert [r for r in real.requests if r.method != "GET"] == []
