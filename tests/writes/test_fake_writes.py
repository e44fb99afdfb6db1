"""The fake's write endpoints for addresses, communication ways and parts, and the Q31 switch."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from tests.fake.helpers import TOKEN, api, assert_error, objects

pytestmark = pytest.mark.anyio

CUSTOMER = {"id": 3, "objectName": "Category"}
GERMANY = {"id": 1, "objectName": "StaticCountry"}
INVOICE = {"id": 47, "objectName": "Category"}
WORK = {"id": 2, "objectName": "CommunicationWayKey"}
STK = {"id": 1, "objectName": "Unity"}


async def new_contact(fake: FakeSevdesk, **extra: Any) -> dict[str, Any]:
    async with api(fake) as client:
        response = await client.post(
            "/Contact", json={"name": "Muster GmbH", "category": CUSTOMER, **extra}
        )
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()["objects"]
    return created


async def test_address_post_answers_201_with_the_contact_embedded_in_full() -> None:
    fake = FakeSevdesk(token=TOKEN)
    contact = await new_contact(fake, customerNumber="1001")
    ref = {"id": int(contact["id"]), "objectName": "Contact"}
    address = {"contact": ref, "street": "Probestrasse 1", "zip": "10115", "city": "Berlin"}
    async with api(fake) as client:
        response = await client.post(
            "/ContactAddress", json={**address, "country": GERMANY, "category": INVOICE}
        )
        created = response.json()["objects"]
        (again,) = await objects(client, f"/ContactAddress/{created['id']}")
    assert response.status_code == 201
    assert created["contact"]["customerNumber"] == "1001"
    assert created["contact"]["name"] == "Muster GmbH"
    assert created["country"] == {"id": "1", "objectName": "StaticCountry"}
    assert created["category"] == {"id": "47", "objectName": "Category"}
    assert again["contact"] == {"id": contact["id"], "objectName": "Contact"}
    assert {k: again[k] for k in ("street", "zip", "city")} == {
        k: address[k] for k in ("street", "zip", "city")
    }


async def test_address_put_is_partial_and_answers_201() -> None:
    fake = build_demo()
    (first,) = list(fake.store.addresses)[:1]
    async with api(fake) as client:
        response = await client.put(f"/ContactAddress/{first.id}", json={"city": "Basel"})
    assert response.status_code == 201
    assert response.json()["objects"]["city"] == "Basel"
    assert response.json()["objects"]["street"] == first.street
    assert fake.store.addresses.get(first.id).city == "Basel"


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"country": None}, 400),
        ({"category": None}, 400),
        ({"country": {"id": 999, "objectName": "StaticCountry"}}, 422),
        ({"category": CUSTOMER}, 422),
        ({"contact": {"id": 999, "objectName": "Contact"}}, 404),
    ],
)
async def test_address_post_validates(change: dict[str, Any], status: int) -> None:
    fake = FakeSevdesk(token=TOKEN)
    contact = await new_contact(fake)
    body = {
        "contact": {"id": int(contact["id"]), "objectName": "Contact"},
        "city": "Berlin",
        "country": GERMANY,
        "category": INVOICE,
        **change,
    }
    async with api(fake) as client:
        response = await client.post("/ContactAddress", json=body)
    assert_error(response, status, 151 if status == 404 else None)
    assert len(fake.store.addresses) == 0


async def test_communication_way_post_answers_201_and_put_updates() -> None:
    fake = FakeSevdesk(token=TOKEN)
    contact = await new_contact(fake)
    ref = {"id": int(contact["id"]), "objectName": "Contact"}
    way = {"contact": ref, "type": "EMAIL", "value": "a@example.com", "key": WORK, "main": True}
    async with api(fake) as client:
        response = await client.post("/CommunicationWay", json=way)
        created = response.json()["objects"]
        changed = await client.put(
            f"/CommunicationWay/{created['id']}", json={"value": "b@example.com"}
        )
    assert response.status_code == 201
    assert (created["type"], created["main"]) == ("EMAIL", "1")
    assert created["key"] == {"id": "2", "objectName": "CommunicationWayKey"}
    assert created["contact"] == {"id": contact["id"], "objectName": "Contact"}
    assert changed.status_code == 200
    assert changed.json()["objects"]["value"] == "b@example.com"


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"key": None}, 400),
        ({"value": ""}, 400),
        ({"type": "PIGEON"}, 422),
        ({"key": {"id": 42, "objectName": "CommunicationWayKey"}}, 422),
    ],
)
async def test_communication_way_post_validates(change: dict[str, Any], status: int) -> None:
    fake = FakeSevdesk(token=TOKEN)
    contact = await new_contact(fake)
    ref = {"id": int(contact["id"]), "objectName": "Contact"}
    way = {"contact": ref, "type": "PHONE", "value": "+49 30 1", "key": WORK, **change}
    async with api(fake) as client:
        response = await client.post("/CommunicationWay", json=way)
    assert_error(response, status)
    assert len(fake.store.communication_ways) == 0


PART = {
    "name": "Brett",
    "partNumber": "B-1",
    "stock": 3,
    "unity": STK,
    "taxRate": 19,
    "priceNet": "10.00",
    "priceGross": "11.90",
}


async def test_part_post_answers_201_and_put_is_partial() -> None:
    fake = FakeSevdesk(token=TOKEN)
    async with api(fake) as client:
        response = await client.post("/Part", json=PART)
        created = response.json()["objects"]
        changed = await client.put(f"/Part/{created['id']}", json={"taxRate": "7"})
    assert response.status_code == 201
    assert (created["partNumber"], created["taxRate"], created["priceGross"]) == (
        "B-1",
        "19",
        "11.9",
    )
    assert (created["stock"], created["status"]) == ("3", "100")
    assert changed.status_code == 200
    assert changed.json()["objects"]["taxRate"] == "7"
    assert changed.json()["objects"]["name"] == "Brett"


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"partNumber": None}, 400),
        ({"partNumber": "  "}, 400),
        ({"taxRate": None}, 400),
        ({"taxRate": 16}, 422),
        ({"taxRate": "19.5"}, 422),
        ({"unity": {"id": 99, "objectName": "Unity"}}, 422),
        ({"status": 70}, 422),
    ],
)
async def test_part_post_validates(change: dict[str, Any], status: int) -> None:
    fake = FakeSevdesk(token=TOKEN)
    async with api(fake) as client:
        response = await client.post("/Part", json={**PART, **change})
    error = assert_error(response, status)
    assert len(fake.store.parts) == 0
    if change.get("taxRate") == 16:
        assert error["message"] == "Invalid taxRate 16: only 0, 7 or 19 are allowed"


async def test_part_put_validates_the_tax_rate_and_a_1_0_account_takes_any_rate() -> None:
    fake = build_demo()
    async with api(fake) as client:
        refused = await client.put("/Part/610001", json={"taxRate": 16})
    assert_error(refused, 422)
    assert fake.store.parts.get(610001).taxRate == 19
    legacy = FakeSevdesk(token=TOKEN, version="1.0")
    async with api(legacy) as client:
        response = await client.post("/Part", json={**PART, "taxRate": 16})
    assert response.status_code == 201


async def test_q31_switch_gives_a_person_the_parents_customer_number() -> None:
    fake = FakeSevdesk(token=TOKEN)
    org = await new_contact(fake, customerNumber="1001")
    person = {"surename": "Lea", "familyname": "Muster", "customerNumber": "1002"}
    parent = {"id": int(org["id"]), "objectName": "Contact"}
    plain = await new_contact(fake, name=None, **person, parent=parent)
    assert plain["customerNumber"] == "1002"
    fake.faults.parent_number_for_persons = True
    quirky = await new_contact(fake, name=None, **person, parent=parent)
    assert quirky["customerNumber"] == "1001"
    standalone = await new_contact(fake, name="Solo GmbH", customerNumber="1003")
    assert standalone["customerNumber"] == "1003"
    fake.faults.reset()
    assert fake.faults.parent_number_for_persons is False
