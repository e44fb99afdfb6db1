"""A finalized draft in a rehearsal gets the next number of the real number range, in the real
range's format: the "real" account's invoice range is ``RE%YYYY-%NUMBER`` padded to five
digits at 42, the rehearsal numbers its drafts exactly as the same steps straight against a
copy do, and the real range does not move."""

from __future__ import annotations

import secrets
from datetime import date
from pathlib import Path

import pytest

from sevdesk_mcp.domain.documents.credit_note_numbers import formatted, peek_number
from sevdesk_mcp.fake import DemoFacts, FakeSevdesk, build_demo_with_facts
from sevdesk_mcp.rehearsal.transport import Rehearsal
from sevdesk_mcp.rehearsal.upstream import real_range
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from tests.rehearsal.helpers import CountingProxy, client_on, obj, one

pytestmark = pytest.mark.anyio

SEQUENCE = "/SevSequence/Factory/getByType"
PEEK: dict[str, str | int | bool] = {"objectType": "Invoice", "type": "RE", "useNextNumber": False}
FORMAT = "RE%YYYY-%NUMBER"


def books() -> tuple[FakeSevdesk, DemoFacts]:
    fake, facts = build_demo_with_facts()
    fake.store.number_formats["RE-"] = (FORMAT, 5)
    fake.store.sequences["RE-"] = 42
    return fake, facts


async def finalize(client: SevdeskClient, ident: int) -> str:
    await client.send(
        "PUT",
        f"/Invoice/{ident}/sendBy",
        tier=Tier.COMMIT,
        json={"sendType": "VPDF", "sendDraft": False},
    )
    return str(one(await client.get(f"/Invoice/{ident}"))["invoiceNumber"])


async def test_the_real_range_answers_in_its_own_format() -> None:
    fake, _ = books()
    answer = obj(await client_on(fake.transport()).get(SEQUENCE, PEEK))
    assert (answer["format"], answer["nextSequence"]) == (FORMAT, "00042")


async def test_finalized_drafts_get_the_real_ranges_next_numbers() -> None:
    fake, facts = books()
    proxy = CountingProxy(fake.transport())
    client = client_on(Rehearsal(proxy, today=lambda: fake.today))
    drafts = facts.invoice_ids_by_status[100][:2]
    year = fake.today.year
    rehearsed = [await finalize(client, ident) for ident in drafts]
    assert rehearsed == [f"RE{year}-00042", f"RE{year}-00043"]
    peeked = obj(await client.get(SEQUENCE, PEEK))
    assert (peeked["format"], peeked["nextSequence"]) == (FORMAT, "00044")
    assert fake.store.peek_number("RE-") == 42 and set(proxy.methods) == {"GET"}
    copy, _ = books()
    straight = client_on(copy.transport())
    assert [await finalize(straight, ident) for ident in drafts] == rehearsed


async def test_the_overlay_follows_the_real_range_when_it_moves_at_sevdesk() -> None:
    fake, facts = books()
    client = client_on(Rehearsal(fake.transport(), today=lambda: fake.today))
    first, second = facts.invoice_ids_by_status[100][:2]
    assert await finalize(client, first) == f"RE{fake.today.year}-00042"
    fake.store.sequences["RE-"] = 50  # numbers taken at sevDesk during the rehearsal
    assert await finalize(client, second) == f"RE{fake.today.year}-00050"


def test_a_range_is_read_with_its_padding_and_format() -> None:
    assert real_range({"nextSequence": "0042", "format": "RE-%NUMBER"}) == (42, "RE-%NUMBER", 4)
    assert real_range({"nextSequence": 1043, "format": "RE-%NUMBER"}) == (1043, "RE-%NUMBER", 0)
    assert real_range({"nextSequence": "7", "format": None}) == (7, "%NUMBER", 0)
    assert real_range({"nextSequence": "", "format": "RE-%NUMBER"}) is None
    assert real_range(None) is None


async def take_number(client: SevdeskClient, today: date) -> str:
    """The credit-note tool's taking of a number (its tier declared)."""
    query = {"objectType": "CreditNote", "type": "CN"}
    return formatted(await client.send("GET", SEQUENCE, tier=Tier.WRITE, query=query), today)


async def test_a_credit_note_number_taken_in_the_rehearsal_has_the_real_format() -> None:
    fake, _ = books()
    fake.store.number_formats["GU-"] = ("GU-%YY%MM-%NUMBER", 3)
    fake.store.sequences["GU-"] = 7
    client = client_on(Rehearsal(fake.transport(), today=lambda: fake.today))
    today = fake.today
    assert await take_number(client, today) == f"GU-{today:%y%m}-007"
    assert await peek_number(client, today) == f"GU-{today:%y%m}-008"
    assert fake.store.peek_number("GU-") == 7
    copy, _ = books()
    copy.store.number_formats["GU-"] = ("GU-%YY%MM-%NUMBER", 3)
    copy.store.sequences["GU-"] = 7
    assert await take_number(client_on(copy.transport()), today) == f"GU-{today:%y%m}-007"


async def test_a_kept_rehearsal_numbers_on_in_the_real_format(tmp_path: Path) -> None:
    fake, facts = books()
    rehearsal = Rehearsal(fake.transport(), today=lambda: fake.today)
    first, second = facts.invoice_ids_by_status[100][:2]
    assert await finalize(client_on(rehearsal), first) == f"RE{fake.today.year}-00042"
    key, path = secrets.token_bytes(32), tmp_path / "numbers.rehearsal"
    rehearsal.save(path, key, b"account")
    again = Rehearsal.load(path, key, b"account", fake.transport(), today=lambda: fake.today)
    assert await finalize(client_on(again), second) == f"RE{fake.today.year}-00043"
