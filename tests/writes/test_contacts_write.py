"""sevdesk_create_contact and sevdesk_update_contact on the demo books, through the dispatcher."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.models import Contact
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

KASTANIE = 410003  # Café Kastanie GmbH, customer 1002
BRANDT = 410001  # Brandt Architekten PartG mbB, customer 1001
JONAS = 410002  # Jonas Brandt, a person under Brandt
NEXT_NUMBER = "1023"  # the demo's customer numbers run 1001..1022 (1022: the OSS consumer)
NEW_ORG = {
    "kind": "organisation",
    "category": "customer",
    "name": "Holzbau Feldmann GmbH",
    "vat_number": "DE123456789",
    "street": "Sägeweg 4",
    "zip": "79104",
    "city": "Freiburg im Breisgau",
    "email": "info@feldmann.example.com",
    "phone": "+49 761 1234",
}


def contact_named(fake: FakeSevdesk, name: str) -> list[Contact]:
    return [c for c in fake.store.contacts if c.name == name]


async def test_a_dry_run_returns_the_preview_and_sends_nothing() -> None:
    fake = build_demo()
    result = await call(write_app(fake), "sevdesk_create_contact", **NEW_ORG, dryRun=True)
    data = result["structuredContent"]
    assert data["status"] == "dry_run" and data.get("result") is None
    preview = data["preview"]
    action, warnings = said(preview)
    assert action == "Create a new contact in sevDesk: organisation, customer"
    assert person_said(preview)[0] == "Neuen Kontakt in sevDesk anlegen: Organisation, Kunde"
    shown = facts(preview)
    assert shown["Customer number"] == f"{NEXT_NUMBER} (the next free number in sevDesk)"
    assert shown["Invoice address"] == "⟦Sägeweg 4⟧\n⟦79104 Freiburg im Breisgau⟧\n⟦Deutschland⟧"
    assert shown["Email"] == f"⟦{NEW_ORG['email']}⟧" and shown["VAT number"] == "⟦DE123456789⟧"
    assert warnings == []
    assert writes(fake) == []
    assert contact_named(fake, NEW_ORG["name"]) == []


async def test_create_makes_the_contact_address_and_ways_once_each_and_reads_back() -> None:
    fake = build_demo()
    result = await call(write_app(fake), "sevdesk_create_contact", **NEW_ORG)
    data = result["structuredContent"]
    assert data["status"] == "done"
    (contact,) = contact_named(fake, NEW_ORG["name"])
    assert writes(fake) == [
        "POST /Contact",
        "POST /ContactAddress",
        "POST /CommunicationWay",
        "POST /CommunicationWay",
    ]
    assert contact.customerNumber == NEXT_NUMBER and contact.category is not None
    assert (contact.category.id, contact.status, contact.vatNumber) == (3, 1000, "DE123456789")
    (address,) = [a for a in fake.store.addresses if a.contact.id == contact.id]
    assert (address.street, address.zip, address.city) == ("Sägeweg 4", "79104", NEW_ORG["city"])
    assert address.category is not None and address.category.id == 47
    ways = {(w.type, w.value, w.main) for w in fake.store.communication_ways}
    assert {("EMAIL", NEW_ORG["email"], True), ("PHONE", "+49 761 1234", True)} <= ways
    written = data["result"]
    assert written["id"] == contact.id and written["name"] == f"⟦{NEW_ORG['name']}⟧"
    assert written["customer_number"] == NEXT_NUMBER and written["category"] == "customer"
    assert written["written"][0] == f"contact {contact.id}" and len(written["written"]) == 4
    assert written.get("note") is None
    sent = body(fake, "POST", "/Contact")
    assert sent["category"] == {"id": 3, "objectName": "Category"}
    assert set(sent) == {"category", "status", "customerNumber", "name", "vatNumber"}


async def test_a_person_under_an_organisation_gets_parent_surename_and_familyname() -> None:
    fake = build_demo()
    result = await call(
        write_app(fake),
        "sevdesk_create_contact",
        kind="person",
        category="customer",
        first_name="Lea",
        family_name="Brandt",
        parent_id=BRANDT,
        customer_number="P-77",
    )
    written = result["structuredContent"]["result"]
    person = fake.store.contacts.get(written["id"])
    assert (person.surename, person.familyname, person.name) == ("Lea", "Brandt", None)
    assert person.parent is not None and person.parent.id == BRANDT
    assert written["kind"] == "person" and written["parent_id"] == BRANDT
    assert writes(fake) == ["POST /Contact"]


async def test_q31_a_person_given_the_parents_number_is_corrected_with_a_put() -> None:
    fake = build_demo()
    fake.faults.parent_number_for_persons = True
    result = await call(
        write_app(fake),
        "sevdesk_create_contact",
        kind="person",
        category="customer",
        first_name="Lea",
        family_name="Brandt",
        parent_id=BRANDT,
    )
    written = result["structuredContent"]["result"]
    assert writes(fake) == ["POST /Contact", f"PUT /Contact/{written['id']}"]
    assert body(fake, "POST", "/Contact")["customerNumber"] == NEXT_NUMBER
    assert fake.store.contacts.get(written["id"]).customerNumber == NEXT_NUMBER
    assert written["customer_number"] == NEXT_NUMBER
    assert "a second request corrected it" in written["note"]
    assert written["written"] == [f"contact {written['id']}"]


async def test_a_duplicate_name_in_the_same_category_is_refused_naming_the_contact() -> None:
    fake = build_demo()
    arguments = {"kind": "organisation", "category": "customer", "name": "  café KASTANIE gmbh "}
    text = error_text(await call(write_app(fake), "sevdesk_create_contact", **arguments))
    assert f"contact {KASTANIE} (the same name, also a customer)" in text
    assert "allow_duplicate" in text
    assert writes(fake) == []


async def test_a_duplicate_customer_number_is_refused_naming_the_contact() -> None:
    fake = build_demo()
    arguments = {
        "kind": "organisation",
        "category": "supplier",
        "name": "Neu",
        "customer_number": "1002",
    }
    text = error_text(await call(write_app(fake), "sevdesk_create_contact", **arguments))
    assert f"contact {KASTANIE} (the same customer number)" in text
    assert writes(fake) == []


async def test_the_same_name_in_another_category_is_no_duplicate() -> None:
    fake = build_demo()
    arguments = {"kind": "organisation", "category": "supplier", "name": "Café Kastanie GmbH"}
    result = await call(write_app(fake), "sevdesk_create_contact", **arguments)
    assert result["structuredContent"]["status"] == "done"
    assert len(contact_named(fake, "Café Kastanie GmbH")) == 2


async def test_allow_duplicate_creates_anyway_and_warns_in_the_preview() -> None:
    fake = build_demo()
    arguments = {"kind": "organisation", "category": "customer", "name": "Café Kastanie GmbH"}
    result = await call(
        write_app(fake), "sevdesk_create_contact", **arguments, allow_duplicate=True
    )
    data = result["structuredContent"]
    assert data["status"] == "done"
    (warning,) = said(data["preview"])[1]
    assert f"contact {KASTANIE}" in warning and "allow_duplicate" in warning
    assert len(contact_named(fake, "Café Kastanie GmbH")) == 2
    assert writes(fake) == ["POST /Contact"]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"kind": "organisation", "first_name": "A", "name": "B"}, "takes no first_name"),
        ({"kind": "organisation"}, "An organisation needs name"),
        ({"kind": "organisation", "name": "B", "parent_id": BRANDT}, "Only a person"),
        ({"kind": "person", "first_name": "A"}, "A person needs family_name"),
        ({"kind": "person", "family_name": "A", "name": "B"}, "takes no name"),
        ({"kind": "organisation", "name": "B", "street": "Weg 1"}, "needs city"),
        ({"kind": "organisation", "name": "   "}, "name is blank"),
        ({"kind": "organisation", "name": "B", "email": "no-at-sign"}, "Invalid arguments"),
    ],
)
async def test_arguments_that_do_not_fit_are_refused_before_any_request(
    arguments: dict[str, object], expected: str
) -> None:
    fake = build_demo()
    result = await call(write_app(fake), "sevdesk_create_contact", category="customer", **arguments)
    assert expected in error_text(result)
    assert fake.requests == []


async def test_a_person_cannot_be_a_parent_and_a_country_must_exist() -> None:
    fake = build_demo()
    app = write_app(fake)
    person = {"kind": "person", "category": "customer", "family_name": "X", "parent_id": JONAS}
    assert "a parent must be an organisation" in error_text(
        await call(app, "sevdesk_create_contact", **person)
    )
    org = {"kind": "organisation", "category": "customer", "name": "X", "city": "Y"}
    assert "There is no country 99" in error_text(
        await call(app, "sevdesk_create_contact", **org, country_id=99)
    )
    by_number = {**person, "parent_id": 1001}  # Brandt's customer number, not its id
    text = error_text(await call(app, "sevdesk_create_contact", **by_number))
    assert "There is no contact 1001; sevdesk_search_contacts finds the contact" in text
    assert "parent_id is the sevDesk id of the contact, not its customer number" in text
    assert writes(fake) == []


async def test_a_failure_after_the_contact_names_what_was_already_created() -> None:
    fake = build_demo()
    app = write_app(fake, transport=FailAfter(fake, "POST", "/Contact"))
    text = error_text(await call(app, "sevdesk_create_contact", **NEW_ORG))
    (contact,) = contact_named(fake, NEW_ORG["name"])
    assert f"Already changed before the failure: created contact {contact.id}." in text
    assert writes(fake) == ["POST /Contact", "POST /ContactAddress"]  # nothing retried
    assert [a for a in fake.store.addresses if a.contact.id == contact.id] == []


async def test_a_failure_of_the_first_write_reports_no_changes() -> None:
    fake = build_demo()  # the last read before the POST is the duplicate check's GET /Contact
    app = write_app(fake, transport=FailAfter(fake, "GET", "/Contact"))
    text = error_text(await call(app, "sevdesk_create_contact", **NEW_ORG))
    assert "Already changed" not in text
    assert writes(fake) == ["POST /Contact"]
    assert contact_named(fake, NEW_ORG["name"]) == []


async def test_update_previews_old_to_new_and_sends_only_the_changed_fields() -> None:
    fake = build_demo()
    app = write_app(fake)
    arguments = {
        "contact_id": KASTANIE,
        "name": "Café Kastanie & Co. GmbH",
        "vat_number": "DE987654321",
        "customer_number": "1002",  # unchanged: not sent
        "status": "active",  # unchanged: not sent
    }
    dry = (await call(app, "sevdesk_update_contact", **arguments, dryRun=True))["structuredContent"]
    assert dry["status"] == "dry_run"
    assert facts(dry["preview"]) == {
        "Name": "⟦Café Kastanie GmbH⟧ → ⟦Café Kastanie & Co. GmbH⟧",
        "VAT number": "(empty) → ⟦DE987654321⟧",
    }
    assert writes(fake) == []
    data = (await call(app, "sevdesk_update_contact", **arguments))["structuredContent"]
    assert writes(fake) == [f"PUT /Contact/{KASTANIE}"]
    sent = body(fake, "PUT", f"/Contact/{KASTANIE}")
    assert sent == {"name": "Café Kastanie & Co. GmbH", "vatNumber": "DE987654321"}
    assert data["result"]["name"] == "⟦Café Kastanie & Co. GmbH⟧"
    assert data["result"]["written"] == ["changed name", "changed VAT number"]
    assert data["result"].get("note") is None
    assert fake.store.contacts.get(KASTANIE).vatNumber == "DE987654321"


async def test_update_changes_a_persons_names_and_the_status() -> None:
    fake = build_demo()
    arguments = {"contact_id": JONAS, "first_name": "Jonah", "status": "lead"}
    data = (await call(write_app(fake), "sevdesk_update_contact", **arguments))["structuredContent"]
    assert facts(data["preview"]) == {"First name": "⟦Jonas⟧ → ⟦Jonah⟧", "Status": "active → lead"}
    person = fake.store.contacts.get(JONAS)
    assert (person.surename, person.status) == ("Jonah", 100)
    assert data["result"]["status"] == "lead"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"contact_id": KASTANIE, "name": "Café Kastanie GmbH"}, "Nothing would change"),
        ({"contact_id": KASTANIE}, "at least one field"),
        ({"contact_id": KASTANIE, "first_name": "A"}, "is an organisation"),
        ({"contact_id": JONAS, "name": "A"}, "is a person"),
        ({"contact_id": KASTANIE, "customer_number": "1001"}, f"used by contact {BRANDT}"),
        ({"contact_id": 999_999, "name": "A"}, "There is no contact 999999"),
        ({"contact_id": 1002, "name": "A"}, "sevdesk_search_contacts finds the contact by name"),
    ],
)
async def test_update_refuses_what_would_change_nothing_or_does_not_fit(
    arguments: dict[str, object], expected: str
) -> None:
    fake = build_demo()
    assert expected in error_text(
        await call(write_app(fake), "sevdesk_update_contact", **arguments)
    )
    assert writes(fake) == []
