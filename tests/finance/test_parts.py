"""The parts toolset: articles with prices and stock."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.domain.parts.read import current_stock
from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.fake import build_demo
from tests.finance.helpers import app_for, call, client_for, requests_to

pytestmark = pytest.mark.anyio


async def test_search_by_name_or_number_with_prices_units_and_stock() -> None:
    fake = build_demo()
    app = app_for(fake)
    firewood = await call(app, "sevdesk_search_parts", query="hs-3001")
    (part,) = firewood["parts"]
    assert part["name"] == "⟦Brennholz Buche ofenfertig 33 cm⟧"
    assert part["stock"] == "38" and part["unit"] == "m³"
    assert part["tax_rate"] == "7"
    assert part["net_price"] == {"amount": "119.00", "currency": "EUR"}
    assert part["gross_price"] == {"amount": "127.33", "currency": "EUR"}
    oak = await call(app, "sevdesk_search_parts", query="EICHE")
    assert [p["part_number"] for p in oak["parts"]] == ["HS-1001", "HS-1002"]


async def test_services_keep_no_stock_and_everything_is_listed_by_number() -> None:
    fake = build_demo()
    data = await call(app_for(fake), "sevdesk_search_parts", limit=200)
    assert data["total_matches"] == len(fake.store.parts) == len(data["parts"])
    numbers = [p["part_number"] for p in data["parts"]]
    assert numbers == sorted(numbers)
    assembly = next(p for p in data["parts"] if p["part_number"] == "HS-2001")
    assert assembly.get("stock") is None and assembly["unit"] == "Std"


async def test_inactive_articles_only_on_request() -> None:
    fake = build_demo()
    next(iter(fake.store.parts)).status = 50
    app = app_for(fake)
    active = await call(app, "sevdesk_search_parts", limit=200)
    everything = await call(app, "sevdesk_search_parts", limit=200, active_only=False)
    assert everything["total_matches"] == active["total_matches"] + 1
    assert {p["status"] for p in everything["parts"]} == {"active", "inactive"}


async def test_a_short_list_says_how_many_were_left_out() -> None:
    data = await call(app_for(build_demo()), "sevdesk_search_parts", limit=2)
    assert len(data["parts"]) == 2
    assert data["note"] == (
        f"{data['total_matches'] - 2} more articles not shown; narrow the search or raise limit."
    )


async def test_without_a_stock_in_the_list_get_stock_answers_a_string() -> None:
    """Q6: getStock answers ``{"objects": "38"}``, a string although the spec says integer."""
    fake = build_demo()

    def drop_stock(path: str, objects: Any) -> Any:
        if path.endswith("/Part"):
            for obj in objects:
                obj.pop("stock")
        return objects

    data = await call(app_for(fake, drop_stock), "sevdesk_search_parts", query="HS-3001")
    assert data["parts"][0]["stock"] == "38"
    asked = [r.path for r in fake.requests if r.path.endswith("/getStock")]
    assert asked == [f"/Part/{data['parts'][0]['id']}/getStock"]


def _stock_answer(answer: Any) -> Any:
    return lambda path, objects: answer if path.endswith("/getStock") else objects


@pytest.mark.parametrize(
    ("answer", "expected"), [("38", Decimal(38)), ("12.50", Decimal("12.5")), (7, Decimal(7))]
)
async def test_current_stock_takes_a_numeric_string_or_a_number(
    answer: Any, expected: Decimal
) -> None:
    fake = build_demo()
    part = next(p for p in fake.store.parts if p.partNumber == "HS-3001")
    assert await current_stock(client_for(fake, _stock_answer(answer)), part.id) == expected
    assert requests_to(fake, f"/Part/{part.id}/getStock") == [{}]


@pytest.mark.parametrize("answer", ["zwölf", "NaN", "Infinity", True, [1], {"stock": 1}])
async def test_a_stock_that_is_no_number_is_a_malformed_answer(answer: Any) -> None:
    fake = build_demo()
    with pytest.raises(MalformedResponseError):
        await current_stock(client_for(fake, _stock_answer(answer)), 610008)
