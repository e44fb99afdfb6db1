"""sevdesk_create_part and sevdesk_update_part on the demo books, through the dispatcher."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.models import Part
from sevdesk_mcp.fake.wire import Ref
from tests.wire import meta, open_wire
from tests.writes.tool_helpers import body, call, error_text, facts, write_app, writes

pytestmark = pytest.mark.anyio

TABLE = 610001  # HS-1001 Esstisch Eiche massiv, 2490.00 net, 19 %, stock 2
NEW_PART = {
    "name": "Schneidebrett Eiche",
    "part_number": "HS-5001",
    "tax_rate": 19,
    "net_price": "1.50",  # gross 1.785: half-up gives 1.79 (half-even would give 1.78)
    "stock": "12",
    "text": "Geölt, 30 x 20 cm",
}


async def test_a_dry_run_computes_the_gross_price_and_sends_nothing() -> None:
    fake = build_demo()
    data = (await call(write_app(fake), "sevdesk_create_part", **NEW_PART, dryRun=True))[
        "structuredContent"
    ]
    assert data["status"] == "dry_run"
    assert facts(data["preview"]) == {
        "Article number": "⟦HS-5001⟧",
        "Name": "⟦Schneidebrett Eiche⟧",
        "Unit": "⟦Stk⟧",
        "Tax rate": "19 %",
        "Net price": "1.50 EUR",
        "Gross price (computed)": "1.79 EUR",
        "Stock": "12",
        "Text": "⟦Geölt, 30 x 20 cm⟧",
    }
    assert writes(fake) == []
    assert not [p for p in fake.store.parts if p.partNumber == "HS-5001"]


async def test_create_posts_once_and_returns_the_article_as_read_back() -> None:
    fake = build_demo()
    data = (await call(write_app(fake), "sevdesk_create_part", **NEW_PART))["structuredContent"]
    assert data["status"] == "done"
    assert writes(fake) == ["POST /Part"]
    (part,) = [p for p in fake.store.parts if p.partNumber == "HS-5001"]
    assert (part.priceNet, part.priceGross, part.taxRate) == (
        Decimal("1.50"),
        Decimal("1.79"),
        Decimal(19),
    )
    assert (part.stock, part.unity.id, part.status, part.text) == (
        Decimal(12),
        1,
        100,
        "Geölt, 30 x 20 cm",
    )
    sent = body(fake, "POST", "/Part")
    assert sent["price"] == "1.50" and sent["priceGross"] == "1.79" and sent["taxRate"] == 19
    result = data["result"]
    assert result["id"] == part.id and result["name"] == "⟦Schneidebrett Eiche⟧"
    assert result["net_price"] == {"amount": "1.50", "currency": "EUR"}
    assert result["gross_price"] == {"amount": "1.79", "currency": "EUR"}
    assert result["stock"] == "12" and result["status"] == "active"
    assert result["written"] == [f"article {part.id}"]


async def test_a_taken_article_number_is_refused_ignoring_case() -> None:
    fake = build_demo()
    arguments = {**NEW_PART, "part_number": " hs-1001 "}
    text = error_text(await call(write_app(fake), "sevdesk_create_part", **arguments))
    assert f"Article {TABLE} already has the article number hs-1001" in text
    assert writes(fake) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"tax_rate": 16}, "Invalid arguments"),
        ({"tax_rate": "19"}, "Invalid arguments"),
        ({"net_price": "1.505"}, "net_price takes at most 2 decimal places"),
        ({"net_price": "-1"}, "net_price must be a decimal number"),
        ({"net_price": "NaN"}, "net_price must be a decimal number"),
        ({"stock": "1e12"}, "stock must be a decimal number"),
        ({"part_number": "  "}, "part_number is blank"),
        ({"name": "  "}, "name is blank"),
        ({"unknown": 1}, "Unknown argument"),
    ],
)
async def test_invalid_arguments_are_refused_before_any_request(
    changes: dict[str, object], expected: str
) -> None:
    fake = build_demo()
    result = await call(write_app(fake), "sevdesk_create_part", **{**NEW_PART, **changes})
    assert expected in error_text(result)
    assert fake.requests == []


async def test_an_unknown_unit_is_refused() -> None:
    fake = build_demo()
    text = error_text(await call(write_app(fake), "sevdesk_create_part", **NEW_PART, unit_id=99))
    assert "There is no unit 99" in text
    assert writes(fake) == []


async def test_update_previews_old_to_new_and_recomputes_the_gross_price() -> None:
    fake = build_demo()
    app = write_app(fake)
    arguments = {"part_id": TABLE, "net_price": "2500", "tax_rate": 7, "name": "Esstisch Eiche"}
    dry = (await call(app, "sevdesk_update_part", **arguments, dryRun=True))["structuredContent"]
    assert facts(dry["preview"]) == {
        "Name": "⟦Esstisch Eiche massiv 200 x 100 cm⟧ → ⟦Esstisch Eiche⟧",
        "Net price": "2490.00 EUR → 2500.00 EUR",
        "Tax rate": "19 % → 7 %",
        "Gross price (computed)": "2963.10 EUR → 2675.00 EUR",
    }
    assert writes(fake) == []
    data = (await call(app, "sevdesk_update_part", **arguments))["structuredContent"]
    assert writes(fake) == [f"PUT /Part/{TABLE}"]
    assert body(fake, "PUT", f"/Part/{TABLE}") == {
        "name": "Esstisch Eiche",
        "price": "2500",
        "priceNet": "2500",
        "taxRate": 7,
        "priceGross": "2675.00",
    }
    part = fake.store.parts.get(TABLE)
    assert (part.priceNet, part.priceGross, part.taxRate) == (
        Decimal(2500),
        Decimal("2675.00"),
        Decimal(7),
    )
    assert data["result"]["gross_price"] == {"amount": "2675.00", "currency": "EUR"}
    assert data["result"]["written"] == [
        "changed name",
        "changed net price",
        "changed tax rate",
        "changed gross price (computed)",
    ]


async def test_update_sets_stock_and_deactivates() -> None:
    fake = build_demo()
    arguments = {"part_id": TABLE, "stock": "5", "active": False, "net_price": "2490"}
    data = (await call(write_app(fake), "sevdesk_update_part", **arguments))["structuredContent"]
    assert facts(data["preview"]) == {"Stock": "2 → 5", "Status": "active → inactive"}
    assert body(fake, "PUT", f"/Part/{TABLE}") == {"stock": "5", "status": 50}
    part = fake.store.parts.get(TABLE)
    assert (part.stock, part.status) == (Decimal(5), 50)
    assert data["result"]["status"] == "inactive"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"part_id": TABLE, "net_price": "2490.00", "tax_rate": 19}, "Nothing would change"),
        ({"part_id": TABLE, "active": True, "stock": "2"}, "Nothing would change"),
        ({"part_id": TABLE}, "at least one field"),
        ({"part_id": TABLE, "tax_rate": 16}, "Invalid arguments"),
        ({"part_id": 999_999, "name": "X"}, "There is no article 999999"),
        ({"part_id": 1001, "name": "X"}, "not its article number; sevdesk_search_parts finds"),
    ],
)
async def test_update_refuses_what_would_change_nothing(
    arguments: dict[str, object], expected: str
) -> None:
    fake = build_demo()
    assert expected in error_text(await call(write_app(fake), "sevdesk_update_part", **arguments))
    assert writes(fake) == []


UNNUMBERED = {k: v for k, v in NEW_PART.items() if k != "part_number"}
NEXT_SHOWN = (
    "HS-4003 (the next free number, computed from the existing articles: the highest is ⟦HS-4002⟧)"
)


async def test_without_a_part_number_the_preview_proposes_the_next_free_one() -> None:
    fake = build_demo()  # the demo's article numbers run HS-1001 .. HS-4002
    data = (await call(write_app(fake), "sevdesk_create_part", **UNNUMBERED, dryRun=True))[
        "structuredContent"
    ]
    assert facts(data["preview"])["Article number"] == NEXT_SHOWN
    assert writes(fake) == []


async def test_without_a_part_number_the_article_gets_the_next_free_one() -> None:
    fake = build_demo()
    data = (await call(write_app(fake), "sevdesk_create_part", **UNNUMBERED))["structuredContent"]
    assert writes(fake) == ["POST /Part"]
    assert body(fake, "POST", "/Part")["partNumber"] == "HS-4003"
    (part,) = [p for p in fake.store.parts if p.partNumber == "HS-4003"]
    assert data["result"]["part_number"] == "HS-4003"
    assert data["result"]["written"] == [f"article {part.id}"]


async def test_the_next_number_counts_inactive_articles_and_keeps_leading_zeros() -> None:
    fake = build_demo()
    fake.store.add(
        fake.store.parts, Part(name="Alt", partNumber="hs-04100", unity=Ref("Unity", 1), status=50)
    )
    data = (await call(write_app(fake), "sevdesk_create_part", **UNNUMBERED))["structuredContent"]
    assert data["result"]["part_number"] == "hs-04101"


async def test_articles_numbered_in_several_patterns_are_refused_asking_for_a_number() -> None:
    fake = build_demo()
    fake.store.add(fake.store.parts, Part(name="Dienst", partNumber="DL-7", unity=Ref("Unity", 1)))
    text = error_text(await call(write_app(fake), "sevdesk_create_part", **UNNUMBERED))
    assert "The article numbers follow 2 patterns (DL-…, HS-…)" in text
    assert "give part_number" in text
    assert writes(fake) == []


async def test_two_articles_created_at_once_get_two_numbers() -> None:
    fake = build_demo()  # both take the lock numbers/part: the second sees the first article
    params = {"name": "sevdesk_create_part", "arguments": UNNUMBERED, "_meta": meta()}
    results: dict[int, dict[str, Any]] = {}
    async with open_wire(write_app(fake)) as wire:
        for ident in (9001, 9002):
            await wire.send(
                {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}
            )
        while len(results) < 2:
            frame = await wire.recv(timeout=60)
            if frame.get("id") in (9001, 9002):
                results[frame["id"]] = frame["result"]
    numbers = sorted(r["structuredContent"]["result"]["part_number"] for r in results.values())
    assert numbers == ["HS-4003", "HS-4004"]
