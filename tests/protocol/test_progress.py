"""Progress and debug logs of tool calls (issue 14, point 2; issue 39), on the wire: a long list
reports its pages with a total, in words a person reads in the setting's language; every
sevDesk request is a step and, at log level debug, a log line with method and path; nothing is
sent to a client that did not ask. Both eras: the 2026-07-28 ``_meta`` envelope and a 2025
session with ``progressToken`` in ``_meta``.

The demo list of :func:`many_invoices` holds 2,500 invoices; sevDesk pages hold 1,000, so the
list takes 3 pages (1,000 + 1,000 + 500)."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.fake import build_demo
from tests.demo_account import demo_app, many_invoices
from tests.wire import Wire, meta, open_wire

pytestmark = pytest.mark.anyio
SEARCH = {"name": "sevdesk_search_documents", "arguments": {"limit": 1}}


async def frames_until_answer(wire: Wire, request_id: int) -> tuple[list[Any], dict[str, Any]]:
    notes: list[Any] = []
    while True:
        frame = await wire.recv()
        if frame.get("id") == request_id:
            return notes, frame
        notes.append(frame)


async def test_a_long_list_reports_progress_and_logs_each_request_at_debug() -> None:
    extra = {"progressToken": "p1", "io.modelcontextprotocol/logLevel": "debug"}
    async with open_wire(demo_app(fake=many_invoices(2500))) as wire:
        params = {**SEARCH, "_meta": wire_meta(extra)}
        await wire.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
        notes, answer = await frames_until_answer(wire, 7)
    assert answer["result"]["structuredContent"]["total_matches"] == 2500
    progress = [n["params"] for n in notes if n["method"] == "notifications/progress"]
    logs = [n["params"] for n in notes if n["method"] == "notifications/message"]
    values = [p["progress"] for p in progress]
    assert values == sorted(set(values)) and len(values) >= 4
    assert all(p["progressToken"] == "p1" for p in progress)
    paged = {p["message"]: p for p in progress if "page" in p["message"]}
    assert list(paged) == [f"Invoices read: page {n} of 3" for n in (1, 2, 3)]
    assert all(p["total"] >= p["progress"] for p in paged.values())
    assert (
        paged["Invoices read: page 3 of 3"]["total"]
        == paged["Invoices read: page 3 of 3"]["progress"]
    )
    assert "Read: invoices" in [p["message"] for p in progress]
    assert {"tool": "sevdesk_search_documents", "sevdesk": "GET /Invoice"} in [
        log["data"] for log in logs
    ]
    assert all(log["level"] == "debug" for log in logs)


async def test_nothing_is_sent_without_a_progress_token_or_log_level() -> None:
    async with open_wire(demo_app()) as wire:
        params = {**SEARCH, "_meta": wire_meta({})}
        await wire.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": params})
        notes, answer = await frames_until_answer(wire, 8)
    assert notes == [] and "result" in answer


async def test_a_log_level_above_debug_gets_progress_but_no_request_logs() -> None:
    extra = {"progressToken": 3, "io.modelcontextprotocol/logLevel": "info"}
    async with open_wire(demo_app()) as wire:
        params = {**SEARCH, "_meta": wire_meta(extra)}
        await wire.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})
        notes, _ = await frames_until_answer(wire, 9)
    assert notes and {n["method"] for n in notes} == {"notifications/progress"}


async def test_german_words_and_a_total_in_the_2025_era() -> None:
    app = demo_app({"SEVDESK_LANGUAGE": "de"}, fake=many_invoices(2500))
    async with open_wire(app) as wire:
        await wire.initialize("2025-06-18")
        params = {**SEARCH, "_meta": {"progressToken": "legacy"}}
        await wire.send({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": params})
        notes, answer = await frames_until_answer(wire, 11)
    assert answer["result"]["content"]
    progress = [n["params"] for n in notes if n["method"] == "notifications/progress"]
    assert all(p["progressToken"] == "legacy" for p in progress)
    paged = [p for p in progress if "Seite" in p["message"]]
    assert [p["message"] for p in paged] == [
        "Rechnungen gelesen: Seite 1 von 3",
        "Rechnungen gelesen: Seite 2 von 3",
        "Rechnungen gelesen: Seite 3 von 3",
    ]
    assert paged[-1]["total"] == paged[-1]["progress"]
    assert "Gelesen: Rechnungen" in [p["message"] for p in progress]


@pytest.mark.parametrize("language", ["de", "en"])
async def test_messages_name_no_method_path_or_tool(language: str) -> None:
    extra = {"progressToken": "w"}
    app = demo_app({"SEVDESK_LANGUAGE": language}, fake=many_invoices(2500))
    async with open_wire(app) as wire:
        params = {**SEARCH, "_meta": wire_meta(extra)}
        await wire.send({"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": params})
        notes, _ = await frames_until_answer(wire, 12)
    messages = [n["params"]["message"] for n in notes if n["method"] == "notifications/progress"]
    assert messages
    for message in messages:
        assert "GET" not in message and "/" not in message and "sevdesk_" not in message


def wire_meta(extra: dict[str, Any]) -> dict[str, Any]:
    return meta(None, extra)


async def test_concurrent_reads_each_report_their_own_increasing_step() -> None:
    fake = build_demo()
    extra = {"progressToken": "c", "io.modelcontextprotocol/logLevel": "debug"}
    async with open_wire(demo_app(fake=fake)) as wire:
        params = {"name": "sevdesk_cash_position", "arguments": {}, "_meta": wire_meta(extra)}
        await wire.send({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": params})
        notes, answer = await frames_until_answer(wire, 10)
    progress = [n for n in notes if n["method"] == "notifications/progress"]
    values = [n["params"]["progress"] for n in progress]
    assert "result" in answer and values == list(range(1, len(fake.requests) + 1))
