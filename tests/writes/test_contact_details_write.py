"""sevdesk_update_contact changes the email address, phone number and invoice address (issue 14,
point 7): on the demo books through the product's client, and the sevDesk quirks it relies on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from sevdesk_mcp.domain.contacts.details import AddressChange, DetailChanges, plan_details
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.tools.contacts.write import UpdateContactInput, _update_locks
from tests.wire import meta, open_wire
from tests.writes.tool_helpers import (
    FailAfter,
    body,
    call,
    error_text,
    facts,
    person_said,
    said,
    write_app,
    writes,
)

pytestmark = pytest.mark.anyio

UPDATE = "sevdesk_update_contact"
KASTANIE = 410003  # organisation: invoice address 520002, main email 530004, phone 530005
JONAS = 410002  # a person: main email 530003, no phone, no address
SAEGEWERK = 410021  # a supplier with a work address (520016) only
ADDRESS, EMAIL, PHONE = 520002, 530004, 530005
NEW_EMAIL = "buchhaltung@kastanie.example.com"
NEW_PHONE = "+49 761 555 0102"
MOVE = {"street": "Kaiser-Joseph-Straße 200", "zip": "79098", "country_id": 2}


def next_id(rows: Any) -> int:
    return max(r.id for r in rows) + 1


async def test_a_dry_run_shows_each_change_old_to_new_and_sends_nothing() -> None:
    fake = build_demo()
    arguments = {"contact_id": KASTANIE, "email": NEW_EMAIL, "phone": NEW_PHONE, **MOVE}
    data = (await call(write_app(fake), UPDATE, **arguments, dryRun=True))["structuredContent"]
    assert data["status"] == "dry_run"
    assert said(data["preview"])[0] == f"Update contact {KASTANIE} in sevDesk"
    assert person_said(data["preview"])[0] == f"Kontakt {KASTANIE} in sevDesk ändern"
    assert facts(data["preview"]) == {
        "Invoice address: street": "⟦Konviktstraße 41⟧ → ⟦Kaiser-Joseph-Straße 200⟧",
        "Invoice address: country": "⟦Deutschland⟧ → ⟦Österreich⟧",
        "Email": f"⟦hallo.kastanie@example.com⟧ → ⟦{NEW_EMAIL}⟧",
        "Phone": f"⟦+49 30 23125 102⟧ → ⟦{NEW_PHONE}⟧",
    }
    assert writes(fake) == []
    assert fake.store.addresses.get(ADDRESS).street == "Konviktstraße 41"


async def test_update_puts_only_what_differs_one_request_per_record_in_order() -> None:
    fake = build_demo()
    arguments = {
        "contact_id": KASTANIE,
        "name": "Café Kastanie & Co. GmbH",
        "email": NEW_EMAIL,
        "phone": NEW_PHONE,
        "city": "Freiburg im Breisgau",  # unchanged: not sent
        **MOVE,
    }
    data = (await call(write_app(fake), UPDATE, **arguments))["structuredContent"]
    assert data["status"] == "done"
    assert writes(fake) == [
        f"PUT /Contact/{KASTANIE}",
        f"PUT /ContactAddress/{ADDRESS}",
        f"PUT /CommunicationWay/{EMAIL}",
        f"PUT /CommunicationWay/{PHONE}",
    ]
    assert body(fake, "PUT", f"/Contact/{KASTANIE}") == {"name": "Café Kastanie & Co. GmbH"}
    assert body(fake, "PUT", f"/ContactAddress/{ADDRESS}") == {
        "street": MOVE["street"],
        "country": {"id": 2, "objectName": "StaticCountry"},
    }
    assert body(fake, "PUT", f"/CommunicationWay/{EMAIL}") == {"value": NEW_EMAIL}
    assert body(fake, "PUT", f"/CommunicationWay/{PHONE}") == {"value": NEW_PHONE}
    address = fake.store.addresses.get(ADDRESS)
    assert address.country is not None
    assert (address.street, address.zip, address.city, address.country.id) == (
        MOVE["street"],
        "79098",
        "Freiburg im Breisgau",
        2,
    )
    assert fake.store.communication_ways.get(EMAIL).value == NEW_EMAIL
    assert fake.store.communication_ways.get(PHONE).value == NEW_PHONE
    assert data["result"]["written"] == [
        "changed name",
        f"changed invoice address {ADDRESS}",
        f"changed email {EMAIL}",
        f"changed phone {PHONE}",
    ]


async def test_the_address_put_answered_201_as_documented_is_a_success() -> None:
    fake = build_demo()  # PUT /ContactAddress/{id} is documented as 201 (§2.2), not 200
    data = (await call(write_app(fake), UPDATE, contact_id=KASTANIE, zip="79100"))[
        "structuredContent"
    ]
    assert data["status"] == "done"
    assert data["result"]["written"] == [f"changed invoice address {ADDRESS}"]
    assert writes(fake) == [f"PUT /ContactAddress/{ADDRESS}"]


async def test_a_contact_without_them_gets_a_new_main_phone_and_invoice_address() -> None:
    fake = build_demo()
    new_address, new_way = next_id(fake.store.addresses), next_id(fake.store.communication_ways)
    arguments = {"contact_id": JONAS, "phone": NEW_PHONE, "street": "Wiesenweg 3"}
    arguments |= {"zip": "79100", "city": "Freiburg im Breisgau"}
    data = (await call(write_app(fake), UPDATE, **arguments))["structuredContent"]
    assert facts(data["preview"]) == {
        "Invoice address": "(empty) → ⟦Wiesenweg 3⟧, ⟦79100 Freiburg im Breisgau⟧, ⟦Deutschland⟧",
        "Phone": f"(empty) → ⟦{NEW_PHONE}⟧",
    }
    assert writes(fake) == ["POST /ContactAddress", "POST /CommunicationWay"]
    contact = {"id": JONAS, "objectName": "Contact"}
    assert body(fake, "POST", "/ContactAddress") == {
        "contact": contact,
        "name": "Jonas Brandt",
        "city": "Freiburg im Breisgau",
        "country": {"id": 1, "objectName": "StaticCountry"},
        "category": {"id": 47, "objectName": "Category"},
        "street": "Wiesenweg 3",
        "zip": "79100",
    }
    assert body(fake, "POST", "/CommunicationWay") == {
        "contact": contact,
        "type": "PHONE",
        "value": NEW_PHONE,
        "key": {"id": 2, "objectName": "CommunicationWayKey"},
        "main": True,
    }
    way = fake.store.communication_ways.get(new_way)
    assert (way.contact.id, way.type, way.value, way.main) == (JONAS, "PHONE", NEW_PHONE, True)
    assert fake.store.addresses.get(new_address).contact.id == JONAS
    assert data["result"]["written"] == [
        f"created invoice address {new_address}",
        f"created phone {new_way}",
    ]


async def test_a_supplier_with_only_a_work_address_gets_an_invoice_address_beside_it() -> None:
    fake = build_demo()
    data = (await call(write_app(fake), UPDATE, contact_id=SAEGEWERK, city="Haslach"))[
        "structuredContent"
    ]
    assert data["status"] == "done" and writes(fake) == ["POST /ContactAddress"]
    mine = [a for a in fake.store.addresses if a.contact.id == SAEGEWERK]
    kinds = sorted((a.category.id, a.city) for a in mine if a.category is not None)
    assert kinds == [(43, "Haslach im Kinzigtal"), (47, "Haslach")]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"contact_id": KASTANIE, "email": "hallo.kastanie@example.com", "zip": "79098"},
            "Nothing would change",
        ),
        (
            {"contact_id": KASTANIE, "phone": "+49 30 23125 102", "country_id": 1},
            "Nothing would change",
        ),
        (
            {"contact_id": JONAS, "street": "Wiesenweg 3"},
            f"Contact {JONAS} has no invoice address yet; a new one needs city",
        ),
        ({"contact_id": KASTANIE, "country_id": 999}, "There is no country 999"),
        ({"contact_id": KASTANIE, "email": "no-at-sign"}, "Invalid arguments"),
        ({"contact_id": KASTANIE, "phone": "call me"}, "Invalid arguments"),
        ({"contact_id": KASTANIE, "city": "  "}, "city is blank"),
        ({"contact_id": 999_999, "email": NEW_EMAIL}, "There is no contact 999999"),
    ],
)
async def test_update_refuses_what_changes_nothing_or_does_not_fit(
    arguments: dict[str, object], expected: str
) -> None:
    fake = build_demo()
    assert expected in error_text(await call(write_app(fake), UPDATE, **arguments))
    assert writes(fake) == []


async def test_a_failure_mid_way_names_what_was_written_and_retries_nothing() -> None:
    fake = build_demo()
    transport = FailAfter(fake, "PUT", f"/ContactAddress/{ADDRESS}")
    arguments = {"contact_id": KASTANIE, "name": "Kastanie GmbH", "email": NEW_EMAIL, "zip": "1"}
    text = error_text(await call(write_app(fake, transport=transport), UPDATE, **arguments))
    assert (
        f"Already changed before the failure: updated contact {KASTANIE}; changed invoice "
        f"address {ADDRESS} of contact {KASTANIE}." in text
    )
    assert writes(fake) == [
        f"PUT /Contact/{KASTANIE}",
        f"PUT /ContactAddress/{ADDRESS}",
        f"PUT /CommunicationWay/{EMAIL}",  # answered 500 and not sent again
    ]
    assert fake.store.addresses.get(ADDRESS).zip == "1"
    assert fake.store.communication_ways.get(EMAIL).value == "hallo.kastanie@example.com"


async def test_a_failure_creating_the_way_names_the_address_created_before() -> None:
    fake = build_demo()
    new_address = next_id(fake.store.addresses)
    transport = FailAfter(fake, "POST", "/ContactAddress")
    arguments = {"contact_id": JONAS, "city": "Freiburg", "phone": NEW_PHONE}
    text = error_text(await call(write_app(fake, transport=transport), UPDATE, **arguments))
    assert (
        f"Already changed before the failure: created invoice address {new_address} of "
        f"contact {JONAS}." in text
    )
    assert writes(fake) == ["POST /ContactAddress", "POST /CommunicationWay"]
    assert not [
        w for w in fake.store.communication_ways if w.contact.id == JONAS and w.type == "PHONE"
    ]


def test_the_lock_keys_are_the_contact_and_the_number_range_only_with_a_number() -> None:
    details = UpdateContactInput(contact_id=KASTANIE, email=NEW_EMAIL, city="Freiburg")
    assert _update_locks(details) == (f"contact/{KASTANIE}",)
    numbered = UpdateContactInput(contact_id=KASTANIE, phone=NEW_PHONE, customer_number="77")
    assert _update_locks(numbered) == (f"contact/{KASTANIE}", "numbers/contact")


async def test_two_updates_at_once_create_one_phone_not_two() -> None:
    fake = build_demo()  # the contact lock: the second sees the first one's phone
    arguments = {"contact_id": JONAS, "phone": NEW_PHONE}
    params = {"name": UPDATE, "arguments": arguments, "_meta": meta()}
    async with open_wire(write_app(fake)) as wire:
        for ident in (9001, 9002):
            await wire.send(
                {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}
            )
        results: dict[int, dict[str, Any]] = {}
        while len(results) < 2:
            frame = await wire.recv(timeout=60)
            if frame.get("id") in (9001, 9002):
                results[frame["id"]] = frame["result"]
    errors = sorted(bool(r.get("isError")) for r in results.values())
    assert errors == [False, True]
    (refused,) = [r for r in results.values() if r.get("isError")]
    assert "Nothing would change" in refused["content"][0]["text"]
    assert writes(fake) == ["POST /CommunicationWay"]


class FilterIgnoringPort:
    """Answers every list in full, as sevDesk does for a filter it does not know (Q12), with
    ``main`` and ids as strings (Q4)."""

    def __init__(self, rows: dict[str, list[dict[str, JsonValue]]]) -> None:
        self.rows = rows

    async def get(self, path: str, query: Mapping[str, QueryValue] | None = None) -> JsonValue:
        raise AssertionError(f"unexpected read of {path}")

    async def send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, QueryValue] | None = None,
        json: JsonObject | None = None,
    ) -> JsonValue:
        raise AssertionError("prepare never writes")

    async def get_all(
        self, path: str, query: Mapping[str, QueryValue] | None = None, *, max_items: int
    ) -> Page:
        return Page(items=self.rows[path], truncated=False)

    async def system_version(self) -> str:
        return "2.0"


def _way(ident: int, contact: int, kind: str, value: str, main: str) -> dict[str, JsonValue]:
    return {
        "id": str(ident),
        "objectName": "CommunicationWay",
        "contact": {"id": str(contact), "objectName": "Contact"},
        "type": kind,
        "value": value,
        "main": main,
    }


def _address(ident: int, contact: int, category: int, city: str) -> dict[str, JsonValue]:
    return {
        "id": str(ident),
        "contact": {"id": str(contact), "objectName": "Contact"},
        "city": city,
        "country": {"id": "1", "objectName": "StaticCountry"},
        "category": {"id": str(category), "objectName": "Category"},
    }


async def test_q12_rows_of_other_contacts_are_never_changed_and_q4_main_is_a_string() -> None:
    port = FilterIgnoringPort(
        {
            "/CommunicationWay": [
                _way(1, 99, "EMAIL", "other@example.com", "1"),  # another contact's main
                _way(2, 7, "EMAIL", "old@example.com", "0"),
                _way(3, 7, "EMAIL", "main@example.com", "1"),
            ],
            "/ContactAddress": [
                _address(10, 99, 47, "Elsewhere"),  # another contact's invoice address
                _address(11, 7, 43, "Work"),
            ],
            "/StaticCountry": [{"id": "1", "objectName": "StaticCountry", "name": "Deutschland"}],
        }
    )
    changes = DetailChanges(email="new@example.com", address=AddressChange(city="Freiburg"))
    writes_, _ = await plan_details(port, 7, "Muster GmbH", changes)
    (address, email) = writes_
    assert (address.word, address.ident, address.body["contact"]) == (
        "ContactAddress",
        None,
        {"id": 7, "objectName": "Contact"},
    )
    assert (email.word, email.ident, email.body) == (
        "CommunicationWay",
        3,
        {"value": "new@example.com"},
    )
