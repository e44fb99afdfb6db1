"""Contacts, addresses and communication ways."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio

CUSTOMER = {"id": 3, "objectName": "Category"}


async def test_depth_0_lists_organisations_only(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """§2.2: the default returns no persons; ``depth=1`` includes them (Q37)."""
    async with api(demo) as client:
        default = await objects(client, "/Contact", limit=1000)
        flat = await objects(client, "/Contact", limit=1000, depth=0)
        deep = await objects(client, "/Contact", limit=1000, depth=1)
    persons = {str(i) for i in facts.person_ids}
    assert not persons & {c["id"] for c in default}
    assert [c["id"] for c in flat] == [c["id"] for c in default]
    assert persons <= {c["id"] for c in deep}
    person = next(c for c in deep if c["id"] in persons)
    assert person["name"] is None and person["surename"] and person["familyname"]
    assert person["parent"]["objectName"] == "Contact"


async def test_contact_filters(demo: FakeSevdesk) -> None:
    """customerNumber exact, name substring ignoring case, search ignored (Q41)."""
    async with api(demo) as client:
        exact = await objects(client, "/Contact", customerNumber="1002")
        prefix = await objects(client, "/Contact", customerNumber="100")
        named = await objects(client, "/Contact", name="GASTHAUS")
        everything = await objects(client, "/Contact", limit=1000)
        searched = await objects(client, "/Contact", limit=1000, search="Gasthaus")
    assert [c["name"] for c in exact] == ["Café Kastanie GmbH"]
    assert prefix == []
    assert [c["name"] for c in named] == ["Gasthaus Zum Hirschen GmbH"]
    assert len(searched) == len(everything)


async def test_create_answers_201_with_the_bare_object(fake: FakeSevdesk) -> None:
    """Q1, and ``buyerReference: "-"`` when none was sent (§2.2)."""
    body = {"name": "Muster GmbH", "status": 1000, "customerNumber": "1001", "category": CUSTOMER}
    async with api(fake) as client:
        response = await client.post("/Contact", json=body)
        created = response.json()["objects"]
        (again,) = await objects(client, f"/Contact/{created['id']}")
    assert response.status_code == 201
    assert isinstance(created, dict)
    assert created["buyerReference"] == "-"
    assert created["category"] == {"id": "3", "objectName": "Category"}
    assert created["status"] == "1000"
    assert again == created


async def test_create_keeps_a_sent_buyer_reference_and_takes_form_bodies(fake: FakeSevdesk) -> None:
    form = {
        "surename": "Erika",
        "familyname": "Muster",
        "category[id]": "3",
        "category[objectName]": "Category",
        "buyerReference": "04011000-1234512345-06",
        "exemptVat": "true",
    }
    async with api(fake) as client:
        response = await client.post("/Contact", data=form)
    created = response.json()["objects"]
    assert response.status_code == 201
    assert created["buyerReference"] == "04011000-1234512345-06"
    assert (created["surename"], created["exemptVat"], created["name"]) == ("Erika", "1", None)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"name": "No category"}, 400),
        ({"name": "Bad category", "category": {"id": 47, "objectName": "Category"}}, 422),
        ({"category": CUSTOMER}, 400),
        ({"name": "Bad status", "status": 7, "category": CUSTOMER}, 422),
        ({"name": "Bad ref", "category": 3}, 400),
        ({"name": "Bad flag", "exemptVat": "maybe", "category": CUSTOMER}, 400),
        ({"name": "Null status", "status": None, "category": CUSTOMER}, 400),
    ],
)
async def test_create_validates(fake: FakeSevdesk, body: dict[str, Any], status: int) -> None:
    async with api(fake) as client:
        assert_error(await client.post("/Contact", json=body), status)
    assert len(fake.store.contacts) == 0


async def test_a_reference_without_object_name_gets_the_parser_message(fake: FakeSevdesk) -> None:
    """Q34/Q38."""
    async with api(fake) as client:
        response = await client.post("/Contact", json={"name": "X", "category": {"id": 3}})
    message = assert_error(response, 400)["message"]
    assert message == "category expected array with 'id' and 'objectName'. array given"


async def test_create_with_an_unknown_parent_is_404(fake: FakeSevdesk) -> None:
    body = {"surename": "A", "category": CUSTOMER, "parent": {"id": 5, "objectName": "Contact"}}
    async with api(fake) as client:
        assert_error(await client.post("/Contact", json=body), 404, code=151)


async def test_malformed_bodies_are_400(fake: FakeSevdesk) -> None:
    async with api(fake) as client:
        headers = {"Content-Type": "application/json"}
        assert_error(await client.post("/Contact", content=b"{nope", headers=headers), 400)
        assert_error(await client.post("/Contact", content=b"[1]", headers=headers), 400)


async def test_put_is_a_partial_update(demo: FakeSevdesk, facts: DemoFacts) -> None:
    ident = facts.customer_ids[1]
    async with api(demo) as client:
        (before,) = await objects(client, f"/Contact/{ident}")
        response = await client.put(
            f"/Contact/{ident}",
            json={"description": "Stammkunde", "vatNumber": None, "unknownField": 1},
        )
        (after,) = await objects(client, f"/Contact/{ident}")
        assert_error(await client.put("/Contact/1", json={}), 404, code=151)
        bad = await client.put(f"/Contact/{ident}", json={"status": 3})
    assert response.status_code == 200
    assert response.json()["objects"]["description"] == "Stammkunde"
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {"description", "update"}
    assert_error(bad, 422)
    assert demo.store.contacts.get(ident).status == 1000


async def test_delete_answers_array_of_null_and_takes_details_along(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q7."""
    ident = facts.unused_contact_id
    async with api(demo) as client:
        assert await objects(client, "/ContactAddress", **{"contact[id]": ident})
        response = await client.delete(f"/Contact/{ident}")
        assert_error(await client.get(f"/Contact/{ident}"), 404, code=151)
        addresses = await objects(client, "/ContactAddress", **{"contact[id]": ident})
        ways = await objects(client, "/CommunicationWay", **{"contact[id]": ident})
    assert response.json() == {"objects": [None]}
    assert addresses == ways == []


async def test_delete_of_a_contact_in_use_is_409(demo: FakeSevdesk, facts: DemoFacts) -> None:
    async with api(demo) as client:
        for ident in (facts.customer_ids[0], facts.supplier_ids[2]):
            response = await client.delete(f"/Contact/{ident}")
            assert_error(response, 409, code=159)
        assert_error(await client.delete("/Contact/1"), 404, code=151)


async def test_next_customer_number_is_a_string(demo: FakeSevdesk, fake: FakeSevdesk) -> None:
    async with api(demo) as client:
        assert await objects(client, "/Contact/Factory/getNextCustomerNumber") == "1023"
    async with api(fake) as client:
        assert await objects(client, "/Contact/Factory/getNextCustomerNumber") == "1001"


async def test_customer_number_availability(demo: FakeSevdesk) -> None:
    """Without ``customerNumber`` the real API answers HTTP 500 (Q32)."""
    path = "/Contact/Mapper/checkCustomerNumberAvailability"
    async with api(demo) as client:
        assert await objects(client, path, customerNumber="1001") is False
        assert await objects(client, path, customerNumber="4711") is True
        assert_error(await client.get(path), 500)


async def test_addresses_filter_by_contact(demo: FakeSevdesk, facts: DemoFacts) -> None:
    ident = facts.customer_ids[2]
    async with api(demo) as client:
        everything = await objects(client, "/ContactAddress", limit=1000)
        mine = await objects(
            client, "/ContactAddress", **{"contact[id]": ident, "contact[objectName]": "Contact"}
        )
        (one,) = await objects(client, f"/ContactAddress/{mine[0]['id']}")
        assert_error(await client.get("/ContactAddress/1"), 404, code=151)
    assert len(everything) > len(mine) == 2
    assert {a["category"]["id"] for a in mine} == {"43", "47"}
    assert one == mine[0]
    assert one["country"] == {"id": "1", "objectName": "StaticCountry"}


async def test_communication_ways_filter(demo: FakeSevdesk, facts: DemoFacts) -> None:
    ident = facts.customer_ids[0]
    async with api(demo) as client:
        mine = await objects(client, "/CommunicationWay", **{"contact[id]": ident})
        mails = await objects(client, "/CommunicationWay", limit=1000, type="EMAIL")
        main = await objects(client, "/CommunicationWay", limit=1000, main="1")
        other = await objects(client, "/CommunicationWay", limit=1000, main="false")
        (one,) = await objects(client, f"/CommunicationWay/{mine[0]['id']}")
        assert_error(await client.get("/CommunicationWay/1"), 404, code=151)
    assert {w["type"] for w in mine} == {"EMAIL", "PHONE"}
    assert all(w["type"] == "EMAIL" and w["value"].endswith("@example.com") for w in mails)
    assert all(w["main"] == "1" for w in main) and all(w["main"] == "0" for w in other)
    assert one["key"] == {"id": "2", "objectName": "CommunicationWayKey"}
