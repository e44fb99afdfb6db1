"""sevdesk_search_transactions by amount (exact, range) and by the document booked on; the
expected transactions are the demo records (Planwerk's -1190.00 of 10 March, Vollmer's
+1101.03 of 7 July, Feldberg's +3881.78 of 19 January paying invoice 700001)."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.fake import build_demo
from tests.finance.helpers import app_for, call, call_error

pytestmark = pytest.mark.anyio
SEARCH = "sevdesk_search_transactions"


def _found(data: dict[str, Any]) -> list[tuple[int, str]]:
    return [(t["id"], t["amount"]["amount"]) for t in data["transactions"]]


@pytest.mark.parametrize("amount", ["1190", "1190.00", 1190, 1190.0])
async def test_an_exact_amount_finds_either_sign(amount: object) -> None:
    data = await call(app_for(build_demo()), SEARCH, amount=amount, limit=50)
    assert _found(data) == [(900015, "-1190.00")]
    assert data["total_matches"] == 1


async def test_a_range_of_amounts_newest_first() -> None:
    data = await call(app_for(build_demo()), SEARCH, amount_min="1100", amount_max=1200)
    assert _found(data) == [(900043, "1101.03"), (900015, "-1190.00")]
    incoming = await call(
        app_for(build_demo()), SEARCH, amount_min=1100, amount_max=1200, direction="incoming"
    )
    assert _found(incoming) == [(900043, "1101.03")]


async def test_the_transaction_booked_on_an_invoice() -> None:
    data = await call(app_for(build_demo()), SEARCH, booked_on_kind="invoice", booked_on_id=700001)
    assert _found(data) == [(900002, "3881.78")]
    (booking,) = data["transactions"][0]["booked_against"]
    assert (booking["object_kind"], booking["object_id"]) == ("invoice", 700001)


async def test_a_document_booked_on_nothing_finds_nothing() -> None:
    data = await call(app_for(build_demo()), SEARCH, booked_on_kind="invoice", booked_on_id=700041)
    assert data["transactions"] == [] and data["total_matches"] == 0


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"amount": 10, "amount_min": 5}, "Give amount (exact) or amount_min/amount_max"),
        ({"amount": "-1190"}, "Amounts are compared without their sign"),
        ({"amount_min": 20, "amount_max": 10}, "amount_min 20 is above amount_max 10; swap"),
        ({"booked_on_kind": "invoice"}, "booked_on_kind and booked_on_id go together"),
        ({"amount": 0.1 + 0.2}, "amount is the JSON number 0.30000000000000004"),
    ],
)
async def test_filters_that_do_not_fit_are_refused(args: dict[str, Any], said: str) -> None:
    assert said in await call_error(app_for(build_demo()), SEARCH, **args)
