"""What the model reads of a result (issue 39): amounts as ``714.00 EUR`` in the text and as
objects in ``structuredContent``; no zero aging bucket and no empty VAT box in the text; the
rule of open items only with ``explain`` (the cash position, which shares it, never); the server status with counts instead of every tool name.

Expected values are worked out from the demo records (``sevdesk_mcp/fake/demo_purchases.py``,
today 2026-11-27). Open payables are the three unpaid expense receipts, due 14 days after
their date: SK-26-0711 of 2026-10-26 (2,980.00 net + 19 % = 3,546.20, due 11-09, 18 days
over), STK-2026-311 of 11-06 (740.00 + 19 % = 880.60, due 11-20, 7 days over) and WR-105533
of 11-12 (649.00 + 19 % = 772.31, due 11-26, 1 day over): 5,199.11, all in 0-30 days. The
revenue receipt RH-2026-04 is not a payable.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.demo_account import demo_app
from tests.wire import open_wire

pytestmark = pytest.mark.anyio
ALL_TIERS = {"SEVDESK_ALLOW": "read,write,commit,external"}


async def call(name: str, env: dict[str, str] | None = None, **arguments: Any) -> tuple[Any, Any]:
    """:returns: the text content (parsed) and the structured content of a 2026-07-28 call."""
    async with open_wire(demo_app(env)) as wire:
        answer = await wire.modern("tools/call", {"name": name, "arguments": arguments})
    result = answer["result"]
    assert not result.get("isError"), result
    return json.loads(result["content"][0]["text"]), result["structuredContent"]


def agings(text: dict[str, Any]) -> list[dict[str, Any]]:
    sides = [text["receivables"], text["payables"]]
    return [a for s in sides for a in s["aging"]] + [
        c["aging"] for s in sides for c in s["top_contacts"]
    ]


async def test_open_payables_read_as_amounts_without_zero_buckets() -> None:
    text, structured = await call("sevdesk_open_items")
    payables = text["payables"]
    assert payables["totals"] == ["5199.11 EUR"]
    assert payables["items"] == 3
    assert payables["aging"] == [{"days_0_30": "5199.11 EUR", "total": "5199.11 EUR"}]
    assert [(c["name"], c["aging"]) for c in payables["top_contacts"]] == [
        ("⟦Sägewerk Kinzigtal GmbH⟧", {"days_0_30": "3546.20 EUR", "total": "3546.20 EUR"}),
        ("⟦Steuerkanzlei Wehrle⟧", {"days_0_30": "880.60 EUR", "total": "880.60 EUR"}),
        ("⟦Werkzeughandel Rombach⟧", {"days_0_30": "772.31 EUR", "total": "772.31 EUR"}),
    ]
    assert "rule" not in text
    assert text["receivables"]["items"] == 12  # with the OSS sale RE-1041 (828.00, not due)
    assert all(not v.startswith("0.00 ") for a in agings(text) for v in a.values())
    # the structured content is unchanged: objects, every bucket, the rule
    assert structured["payables"]["totals"] == [{"amount": "5199.11", "currency": "EUR"}]
    assert structured["payables"]["aging"][0]["not_due"] == {"amount": "0.00", "currency": "EUR"}
    assert structured["payables"]["aging"][0]["currency"] == "EUR"
    assert structured["rule"].startswith("Receivables:")


async def test_the_rule_of_open_items_is_told_once_and_on_request() -> None:
    text, _ = await call("sevdesk_open_items", explain=True)
    assert text["rule"].startswith("Receivables:") and "Days overdue" in text["rule"]
    cash, structured = await call("sevdesk_cash_position")
    assert "rule" not in cash and cash["payables"] == ["5199.11 EUR"]
    assert structured["payables"] == [{"amount": "5199.11", "currency": "EUR"}]
    assert structured["rule"].startswith("Net position = cash + open receivables")


async def test_the_vat_return_lists_only_boxes_with_an_amount() -> None:
    # October 2026: three domestic sales at 19 % (RE-1033 to RE-1035), the cash sale of
    # firewood at 7 % (KB-2026-10-17: 186.92 + 13.08) and input tax from the rent
    # (DM-2026-10: 1,450.00 x 19 % = 275.50), the electricity (EVB-2026-H2: 810.00 x 19 % =
    # 153.90) and the sawmill (SK-26-0711: 2,980.00 x 19 % = 566.20): 995.60 in box 66.
    text, structured = await call("sevdesk_vat_return", period="2026-10")
    assert [b["box"] for b in text["boxes"]] == ["81", "86", "66"]
    boxes = {b["box"]: b for b in text["boxes"]}
    assert (boxes["86"]["base"], boxes["86"]["tax"]) == ("186.92", "13.08")
    assert boxes["66"]["tax"] == "995.60" and boxes["66"]["sources_total"] == 3
    assert text["empty_boxes"] == [
        "35/36", "41", "43", "48", "21", "45", "60", "89", "93",
        "46/47", "73/74", "84/85", "61", "67",
    ]  # fmt: skip
    assert "unclassified" not in text and "outside" not in text and text["rule"]
    assert len(structured["boxes"]) == 17 and structured["unclassified"] == []
    assert "empty_boxes" not in structured and structured["rule"]


async def test_the_server_status_counts_its_tools_per_tier() -> None:
    # all tiers, default toolsets (docs/tools.md): 29 read (issue 40 added the tag list and
    # the recurring invoices), 45 with write (and tagging, the payment reminder, the invoice
    # from an order), 58 in all; over stdio without file transfer sevdesk_request_upload (a
    # write tool) is not registered: 57
    text, structured = await call("sevdesk_server_status", ALL_TIERS)
    assert "tools" not in text
    assert text["tool_count"] == 57
    counts = text["tools_per_tier"]
    assert list(counts) == ["read", "write", "commit", "external"]
    assert (counts["read"], counts["write"]) == (29, 15)
    assert counts["commit"] + counts["external"] == 13
    assert len(structured["tools"]) == 57 and "sevdesk_open_items" in structured["tools"]
