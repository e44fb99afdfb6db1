"""Two writes on one record never both pass their checks (issue 12, finding 2).

A write holds the lock of every record it depends on from its final re-check through execute
and the read-back, so the second of two concurrent calls sees the first one's result.
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
import httpx
import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.safety.locks import RecordLocks
from sevdesk_mcp.server import ServerFactory
from tests.demo_account import DEMO_URL
from tests.documents.commit_helpers import PARTLY_PAID, REGISTER
from tests.http.helpers import http, post_modern, running
from tests.wire import FORM, Wire, meta, open_wire
from tests.writes.helpers import ALL, approve, write_app, writes

pytestmark = [pytest.mark.anyio, pytest.mark.threat("issue-12-race")]
BOOK = "sevdesk_book_payment"
PAYMENT = {  # RE-1030: 2541.84 EUR, 1271.00 paid, 1270.84 open; two payments of 800 do not fit
    "kind": "invoice",
    "document_id": PARTLY_PAID,
    "amount": "800.00",
    "date": "2026-11-26",
    "check_account_id": REGISTER,
}


async def _together(wire: Wire, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send every ``tools/call`` at once and collect their results, in order."""
    ids = list(range(9000, 9000 + len(calls)))
    for ident, params in zip(ids, calls, strict=True):
        message = {"jsonrpc": "2.0", "id": ident, "method": "tools/call"}
        await wire.send({**message, "params": {**params, "_meta": meta(FORM)}})
    results: dict[int, dict[str, Any]] = {}
    while len(results) < len(calls):
        frame = await wire.recv(timeout=60)
        if frame.get("id") in ids:
            results[frame["id"]] = frame["result"]
    return [results[i] for i in ids]


async def test_two_approved_payments_at_once_book_only_what_is_open() -> None:
    fake = build_demo()
    params = {"name": BOOK, "arguments": PAYMENT}
    async with open_wire(write_app(fake)) as wire:
        asked = await _together(wire, [params, params])
        retries = [
            {**params, "requestState": a["requestState"], "inputResponses": approve()}
            for a in asked
        ]
        results = await _together(wire, retries)
    assert sorted(r.get("isError", False) for r in results) == [False, True], results
    done, refused = sorted(results, key=lambda r: "isError" in r)
    assert done["structuredContent"]["status"] == "done"
    assert "470.84" in refused["content"][0]["text"]  # the real open amount after the first
    assert sum(w.endswith("/bookAmount") for w in writes(fake)) == 1


async def test_sixteen_contacts_at_once_get_sixteen_customer_numbers() -> None:
    fake = build_demo()
    calls = [
        {
            "name": "sevdesk_create_contact",
            "arguments": {"kind": "organisation", "category": "customer", "name": f"Race {n} GmbH"},
        }
        for n in range(16)
    ]
    async with open_wire(write_app(fake)) as wire:
        results = await _together(wire, calls)
    numbers = [r["structuredContent"]["result"]["customer_number"] for r in results]
    assert len(set(numbers)) == 16, numbers
    created = [c for c in fake.store.contacts if (c.name or "").startswith("Race ")]
    assert len({c.customerNumber for c in created}) == len(created) == 16


async def test_locks_are_dropped_once_nobody_holds_them() -> None:
    locks = RecordLocks()
    order: list[str] = []

    async def hold(name: str, keys: list[str]) -> None:
        async with locks.hold("account", keys):
            order.append(f"{name} in")
            await anyio.lowlevel.checkpoint()
            order.append(f"{name} out")

    async with anyio.create_task_group() as tg:
        tg.start_soon(hold, "a", ["invoice/1", "transaction/2"])
        tg.start_soon(hold, "b", ["transaction/2", "invoice/1"])  # other order, no deadlock
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
    assert locks.held() == 0


async def test_sixteen_contacts_at_once_over_http_get_sixteen_customer_numbers() -> None:
    fake = build_demo()
    config = load_config({**ALL, "SEVDESK_API_URL": DEMO_URL})
    factory = ServerFactory(config)  # one safety runtime (and its locks) for every request
    results: list[dict[str, Any]] = []

    async def create(client: httpx.AsyncClient, n: int) -> None:
        arguments = {"kind": "organisation", "category": "customer", "name": f"Race {n} GmbH"}
        params = {"name": "sevdesk_create_contact", "arguments": arguments}
        response = await post_modern(client, "tools/call", params)
        results.append(response.json()["result"])

    async with (
        running(build=lambda: write_app(fake, factory=factory)) as server,
        http(server) as client,
        anyio.create_task_group() as tg,
    ):
        for n in range(16):
            tg.start_soon(create, client, n)
    numbers = [r["structuredContent"]["result"]["customer_number"] for r in results]
    assert len(set(numbers)) == 16, numbers
