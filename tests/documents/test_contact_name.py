"""sevdesk_search_documents by the contact's name (issue 40): one match is searched by its id,
several are named with their ids, none is said; on the demo books (Café Kastanie GmbH is
410003; "Brandt" is the firm 410001 and its person Jonas Brandt 410002)."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import build_demo
from tests.finance.helpers import app_for, call, call_error

pytestmark = pytest.mark.anyio
SEARCH = "sevdesk_search_documents"


async def test_a_name_that_fits_one_contact_finds_its_invoices() -> None:
    fake = build_demo()
    by_name = await call(app_for(fake), SEARCH, contact_name="kastanie", limit=200)
    by_id = await call(app_for(fake), SEARCH, contact_id=410003, limit=200)
    assert by_name == by_id
    expected = {
        i.id
        for i in fake.store.invoices
        if i.contact and i.contact.id == 410003 and i.invoiceType != "WKR"  # recurring: apart
    }
    assert {d["id"] for d in by_name["documents"]} == expected
    assert expected


async def test_the_whole_name_wins_over_longer_ones() -> None:
    fake = build_demo()
    data = await call(app_for(fake), SEARCH, contact_name="⟦Café Kastanie GmbH⟧", limit=200)
    assert {d["contact_id"] for d in data["documents"]} == {410003}


async def test_several_matches_are_named_and_the_id_asked_for() -> None:
    text = await call_error(app_for(build_demo()), SEARCH, contact_name="Brandt")
    assert "2 contacts match ⟦Brandt⟧" in text
    assert "⟦Brandt Architekten PartG mbB⟧ (id 410001)" in text
    assert "⟦Jonas Brandt⟧ (id 410002)" in text
    assert "contact_id" in text


async def test_no_match_is_said() -> None:
    text = await call_error(app_for(build_demo()), SEARCH, contact_name="Zeppelin")
    assert "No contact's name or customer number contains ⟦Zeppelin⟧" in text
    assert "sevdesk_search_contacts" in text


async def test_name_and_id_together_are_refused() -> None:
    text = await call_error(app_for(build_demo()), SEARCH, contact_name="x", contact_id=410003)
    assert "Give contact_id or contact_name" in text
