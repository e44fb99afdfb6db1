"""Global conventions of the fake: auth, envelopes, scalars, errors, paging, ignored filters."""

from __future__ import annotations

import httpx
import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from sevdesk_mcp.fake.listing import LIMIT_MESSAGE
from tests.fake.helpers import BASE_URL, api, assert_error, objects

pytestmark = pytest.mark.anyio


async def test_bookkeeping_version_is_a_bare_object(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        response = await client.get("/Tools/bookkeepingSystemVersion")
    assert response.json() == {"objects": {"version": "2.0"}}
    assert response.headers["content-type"] == "application/json"
    assert response.headers["access-control-allow-origin"] == "*"


async def test_version_follows_the_constructor() -> None:
    old = FakeSevdesk(token="a" * 32, version="1.0")
    async with api(old) as client:
        assert await objects(client, "/Tools/bookkeepingSystemVersion") == {"version": "1.0"}


@pytest.mark.parametrize(
    "header",
    [None, "", "wrong", "Bearer {token}", "SEVDESK_TOKEN={token}", "{token} ", "token {token}"],
)
async def test_anything_but_the_raw_token_is_401(fake: FakeSevdesk, header: str | None) -> None:
    """Q46: the raw token only; ``Bearer`` or a whole env line is refused."""
    async with httpx.AsyncClient(transport=fake.transport(), base_url=BASE_URL) as client:
        headers = {} if header is None else {"Authorization": header.format(token=fake.token)}
        response = await client.get("/Contact", headers=headers)
    error = assert_error(response, 401)
    assert error["responseCode"] == 401


async def test_get_by_id_is_an_array_of_one(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q2."""
    async with api(demo) as client:
        listed = await objects(client, "/Contact")
        one = await objects(client, f"/Contact/{facts.customer_ids[0]}")
    assert isinstance(listed, list) and len(listed) > 1
    assert isinstance(one, list) and len(one) == 1
    assert one[0]["id"] == str(facts.customer_ids[0])


async def test_scalars_are_strings_and_paid_amount_is_a_number(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q4, Q8: ids, status, sums, rates and flags are strings; ``paidAmount`` a number."""
    paid = facts.invoice_ids_by_status[1000][0]
    async with api(demo) as client:
        (invoice,) = await objects(client, f"/Invoice/{paid}")
    for key in ("id", "status", "sumNet", "sumTax", "sumGross", "taxRate", "showNet", "timeToPay"):
        assert isinstance(invoice[key], str), key
    assert invoice["showNet"] == "1"
    assert invoice["contact"]["id"].isdigit()
    assert invoice["taxRule"] == {"id": "1", "objectName": "TaxRule"}
    assert isinstance(invoice["paidAmount"], int | float)
    assert str(invoice["paidAmount"]).rstrip("0").rstrip(".") == invoice["sumGross"]


async def test_money_has_no_float_noise(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        created = await client.post(
            "/Contact",
            json={"name": "X GmbH", "category": {"id": 3, "objectName": "Category"},
                  "defaultCashbackPercent": 2.50, "defaultDiscountAmount": "10.000"},
        )  # fmt: skip
    body = created.json()["objects"]
    assert body["defaultCashbackPercent"] == "2.5"
    assert body["defaultDiscountAmount"] == "10"


@pytest.mark.parametrize(
    ("invoice_date", "offset"), [("2026-01-07", "+01:00"), ("2026-07-02", "+02:00")]
)
async def test_datetimes_carry_the_berlin_offset_of_their_day(
    demo: FakeSevdesk, invoice_date: str, offset: str
) -> None:
    """Q18, Q20: winter +01:00, summer +02:00."""
    invoice = next(
        i for i in demo.store.invoices if i.invoiceDate.date().isoformat() == invoice_date
    )
    async with api(demo) as client:
        (wire,) = await objects(client, f"/Invoice/{invoice.id}")
    assert wire["invoiceDate"] == f"{invoice_date}T00:00:00{offset}"


async def test_unknown_path_and_unknown_method_are_404(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        assert_error(await client.get("/NoSuchThing"), 404)
        assert_error(await client.delete("/Tools/bookkeepingSystemVersion"), 404)


async def test_unknown_id_is_404_with_code_151(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        error = assert_error(await client.get("/Contact/1"), 404, code=151)
        assert error["message"] == "No Model_Contact with the id 1 was found"
        assert error["data"] == []
        assert_error(await client.get("/Contact/abc"), 404, code=151)


async def test_without_limit_at_most_100_rows(demo: FakeSevdesk) -> None:
    """§1 Pagination: the silent default page."""
    total = len(demo.store.invoice_positions)
    assert total > 100
    async with api(demo) as client:
        assert len(await objects(client, "/InvoicePos")) == 100
        assert len(await objects(client, "/InvoicePos", limit=1000)) == total
        assert len(await objects(client, "/InvoicePos", limit=1)) == 1


@pytest.mark.parametrize("limit", ["0", "1001", "abc", "1.5", "-1", ""])
async def test_limit_outside_1_to_1000_is_400(demo: FakeSevdesk, limit: str) -> None:
    async with api(demo) as client:
        response = await client.get("/Contact", params={"limit": limit})
    assert assert_error(response, 400)["message"] == LIMIT_MESSAGE


async def test_offset_pages_and_a_bad_offset_counts_as_zero(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        everything = await objects(client, "/Contact", limit=1000)
        second = await objects(client, "/Contact", limit=2, offset=2)
        bad = await objects(client, "/Contact", limit=2, offset="x")
    assert [c["id"] for c in second] == [c["id"] for c in everything[2:4]]
    assert [c["id"] for c in bad] == [c["id"] for c in everything[:2]]


async def test_count_all_adds_total_as_a_string(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        counted = (await client.get("/Invoice", params={"countAll": "true", "limit": 5})).json()
        plain = (await client.get("/Invoice", params={"limit": 5})).json()
    assert counted["total"] == str(_listed(demo))
    assert len(counted["objects"]) == 5
    assert "total" not in plain


async def test_unknown_and_misspelled_filters_return_everything(demo: FakeSevdesk) -> None:
    """Q12: ``statuss`` and the spec's typo ``customerIntenalNote`` are ignored."""
    async with api(demo) as client:
        everything = await objects(client, "/Invoice", limit=1000)
        misspelled = await objects(client, "/Invoice", limit=1000, statuss="200")
        typo = await objects(client, "/Invoice", limit=1000, customerIntenalNote="nothing")
    assert len(misspelled) == len(typo) == len(everything) == _listed(demo)


async def test_requests_are_recorded_with_applied(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        await client.get("/Contact", params={"limit": 5})
        await client.post(
            "/Contact", json={"name": "A", "category": {"id": 3, "objectName": "Category"}}
        )
        await client.post("/Contact", json={"name": "no category"})
    first, created, refused = fake.requests
    assert (first.method, first.path, first.query, first.applied) == (
        "GET", "/Contact", {"limit": "5"}, False,
    )  # fmt: skip
    assert (created.method, created.applied) == ("POST", True)
    assert b'"name"' in created.body
    assert refused.applied is False


async def test_the_base_url_does_not_matter(fake: FakeSevdesk) -> None:
    transport = fake.transport()
    headers = {"Authorization": fake.token}
    async with httpx.AsyncClient(transport=transport, headers=headers) as client:
        other = await client.get(
            "http://localhost:1/somewhere/api/v1/Tools/bookkeepingSystemVersion"
        )
        bare = await client.get("http://fake/Tools/bookkeepingSystemVersion/")
    assert other.json() == bare.json() == {"objects": {"version": "2.0"}}


def _listed(demo: FakeSevdesk) -> int:
    """:returns: how many invoices the list shows: all but the recurring ones (``showWkr``)."""
    return sum(1 for i in demo.store.invoices if i.invoiceType != "WKR")
