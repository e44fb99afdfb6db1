"""Finding documents the way users name them (issue 14, point 7): the exact number, several
statuses at once, the order type, and the lock state (``enshrined``) in every listing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.contract.test_documents import call, search
from tests.demo_account import demo_app

pytestmark = pytest.mark.anyio


async def test_the_exact_number_finds_one_document_and_never_a_longer_one() -> None:
    exact = await search(number="re-1037")
    prefix = await search(number="RE-103")
    part = await search(number_contains="RE-103", limit=200)
    assert [d["number"] for d in exact["documents"]] == ["RE-1037"]
    assert prefix["total_matches"] == 0
    assert "RE-1037" in [d["number"] for d in part["documents"]]
    assert all(d["number"].startswith("RE-103") for d in part["documents"])


async def test_several_statuses_match_any_of_them() -> None:
    both = await search(statuses=["open", "partially_paid"], limit=200)
    opened = await search(status="open", limit=200)
    partly = await search(status="partially_paid", limit=200)
    assert both["total_matches"] == opened["total_matches"] + partly["total_matches"]
    assert {d["status"] for d in both["documents"]} == {"open", "partially_paid"}


async def test_a_list_with_a_status_of_another_kind_names_it() -> None:
    result = await call(
        demo_app(), "sevdesk_search_documents", kind="order", statuses=["sent", "paid"]
    )
    assert result["isError"] is True
    assert "The status 'paid' does not exist for orders" in result["content"][0]["text"]


async def test_status_and_statuses_together_are_refused() -> None:
    result = await call(demo_app(), "sevdesk_search_documents", status="open", statuses=["paid"])
    assert result["isError"] is True
    assert "Give status or statuses, not both" in result["content"][0]["text"]


async def test_orders_filter_by_type() -> None:
    offers = await search(kind="order", order_type="AN", limit=200)
    every = await search(kind="order", limit=200)
    confirmations = await search(kind="order", order_type="AB")
    assert {d["type"] for d in offers["documents"]} == {"AN"}  # the demo books hold offers only
    assert offers["total_matches"] == every["total_matches"] > 0
    assert confirmations["total_matches"] == 0


async def test_order_type_on_invoices_is_refused_with_the_fix() -> None:
    result = await call(demo_app(), "sevdesk_search_documents", order_type="AN")
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert "order_type applies to orders only" in text and "kind='order'" in text


async def test_search_and_detail_show_whether_a_document_is_enshrined() -> None:
    app = demo_app()
    paid = await search(app, status="paid", limit=1)
    drafts = await search(app, status="draft", limit=1)
    detail = await call(app, "sevdesk_get_document", document_id=paid["documents"][0]["id"])
    document: dict[str, Any] = detail["structuredContent"]["document"]
    assert paid["documents"][0]["enshrined"] is True and document["enshrined"] is True
    assert drafts["documents"][0]["enshrined"] is False
    assert "finalized" not in detail["structuredContent"]


def test_a_fenced_value_copied_back_means_the_text_inside() -> None:
    from sevdesk_mcp.safety.fence import fence, unfenced
    from sevdesk_mcp.tools.vocabulary import stripped

    assert unfenced(fence("Pauschale Beratung") or "") == "Pauschale Beratung"
    assert stripped(" ⟦Pauschale⟧ ", "positions[0].name") == "Pauschale"
    assert unfenced("⟦a⟧ and ⟦b⟧") == "⟦a⟧ and ⟦b⟧"  # two fenced texts: left as given
    assert unfenced("⟦") == "⟦" and unfenced("plain") == "plain"
