"""Threat tests of issue 35, finding 2: an approval, an inbox entry and an upload slot belong to
the person who asked (the holder of the sevDesk token of the grant), not to their company.

Two users of one sevDesk company sign in with their own tokens: user A's call asks for an
approval and an upload; the colleague B sees neither in the inbox, cannot decide A's approval
or open A's upload slot, and each refusal is the answer for an id that does not exist."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Final

import httpx
import pytest

from sevdesk_mcp.errors import TransferRefusedError
from sevdesk_mcp.safety.approvals import Binding, MemoryApprovalStore, TooManyApprovalsError
from sevdesk_mcp.safety.preview import Preview, amount, fact, say
from sevdesk_mcp.safety.transfers import Holder, MemoryTransferStore, Owner, Upload
from tests.clock import Clock
from tests.http.web_support import (
    PDF,
    TOKEN_COLLEAGUE,
    approval_ids,
    browser_like,
    csrf_of,
    grant,
    sign_in,
    tool,
    web_server,
)
from tests.writes.helpers import DRAFT_ID

pytestmark = [pytest.mark.anyio, pytest.mark.threat("I35-2")]
FINALIZE: Final = {"kind": "invoice", "document_id": DRAFT_ID}
UNKNOWN_ID: Final = "A" * 43
UNKNOWN_UPLOAD: Final = "/upload?id=" + "A" * 32
PERSON_A: Final = "a" * 64
PERSON_B: Final = "b" * 64
ACCOUNT: Final = "4711"
PREVIEW: Final = Preview(
    action=say("Finalize invoice RE-1001", "Rechnung RE-1001 abschließen"),
    facts=[fact("Total", "Summe", amount(Decimal("119.00")))],
)
_REFERENCE: Final = re.compile(r'class="ref">([2-9A-Z]{2}-[2-9A-Z]{3})<')


def _binding(person: str, arguments: str = "args", grant_id: str = "grant-a") -> Binding:
    principal = f"oauth:{ACCOUNT}:{grant_id}"
    return Binding("sevdesk_finalize_invoice", arguments, principal, ACCOUNT, person, "Claude")


async def _a_asks(browser: httpx.AsyncClient) -> tuple[str, str, str]:
    """User A grants access and calls a commit tool; :returns: the access token, the
    approval id and its reference, as A's inbox shows them."""
    access = await grant(browser)
    result = await tool(browser, access, "sevdesk_finalize_document", FINALIZE)
    assert result["structuredContent"]["status"] == "approval_pending", result
    inbox = await browser.get("/approvals")
    (approval_id,) = approval_ids(inbox.text)
    return access, approval_id, result["structuredContent"]["approval"]["reference"]


async def _decide(browser: httpx.AsyncClient, approval_id: str) -> httpx.Response:
    inbox = await browser.get("/approvals")
    form = {"csrf": csrf_of(inbox.text), "id": approval_id, "decision": "approve"}
    return await browser.post("/approvals", data=form)


async def test_a_colleague_neither_sees_nor_decides_anothers_approval(tmp_path: Path) -> None:
    async with (
        web_server(tmp_path) as server,
        browser_like(server) as user_a,
        browser_like(server) as colleague,
    ):
        access, approval_id, reference = await _a_asks(user_a)
        assert (await sign_in(colleague, TOKEN_COLLEAGUE)).status_code == 303
        seen = await colleague.get("/approvals")
        assert seen.status_code == 200 and "Holzwerk Sonnenberg" in seen.text  # the same company
        assert approval_id not in seen.text and reference not in seen.text
        forged = await _decide(colleague, approval_id)
        unknown = await _decide(colleague, UNKNOWN_ID)
        assert forged.status_code == unknown.status_code == 404
        assert forged.text == unknown.text  # exactly as if it did not exist
        assert approval_ids((await user_a.get("/approvals")).text) == [approval_id]
        again = await tool(user_a, access, "sevdesk_finalize_document", FINALIZE)
        assert again["structuredContent"]["status"] == "approval_pending"  # still undecided
        assert (await _decide(user_a, approval_id)).status_code == 303
        done = await tool(user_a, access, "sevdesk_finalize_document", FINALIZE)
        assert done["structuredContent"]["status"] != "approval_pending", done


async def test_the_inbox_shows_who_asked_through_which_client_and_when(tmp_path: Path) -> None:
    async with web_server(tmp_path) as server, browser_like(server) as user_a:
        _, approval_id, reference = await _a_asks(user_a)
        inbox = (await user_a.get("/approvals", headers={"accept-language": "en"})).text
        assert _REFERENCE.findall(inbox) == [reference] and approval_id in inbox
        assert "Test Client" in inbox  # the client name of the grant
        assert re.search(r"Asked on \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d CES?T", inbox), inbox
        assert re.search(r"connection <code>g_[A-Za-z0-9_-]{8}</code>", inbox), inbox
        german = (await user_a.get("/approvals", headers={"accept-language": "de"})).text
        assert re.search(r"Angefragt am \d\d\.\d\d\.\d{4}, \d\d:\d\d Uhr MES?Z", german)


async def test_a_colleague_cannot_open_anothers_upload_slot(tmp_path: Path) -> None:
    async with (
        web_server(tmp_path) as server,
        browser_like(server) as user_a,
        browser_like(server) as colleague,
    ):
        access = await grant(user_a)
        asked = (await tool(user_a, access, "sevdesk_request_upload", {}))["structuredContent"]
        link = asked["upload_page"].removeprefix(server.url)
        assert link in (await user_a.get("/approvals")).text  # A's inbox lists A's slot
        assert (await sign_in(colleague, TOKEN_COLLEAGUE)).status_code == 303
        inbox = await colleague.get("/approvals")
        assert link not in inbox.text
        page, unknown_page = await colleague.get(link), await colleague.get(UNKNOWN_UPLOAD)
        assert page.status_code == unknown_page.status_code == 404
        assert page.text == unknown_page.text
        files = {"file": ("b.pdf", PDF, "application/pdf")}
        form = {"csrf": csrf_of(inbox.text)}
        posted = await colleague.post(link, data=form, files=files)
        unknown_post = await colleague.post(UNKNOWN_UPLOAD, data=form, files=files)
        assert posted.status_code == unknown_post.status_code == 400
        assert posted.text == unknown_post.text
        german = {"accept-language": "de-DE"}
        in_german = await colleague.post(link, data=form, files=files, headers=german)
        assert in_german.status_code == 400 and "Upload-Link" in in_german.text
        mine = await user_a.get(link)
        assert mine.status_code == 200  # still open for A
        filled = await user_a.post(link, data={"csrf": csrf_of(mine.text)}, files=files)
        assert filled.status_code == 200


async def test_the_memory_store_keeps_an_approval_to_its_person() -> None:
    clock = Clock(1_000_000.0)
    store = MemoryApprovalStore(clock)
    created = (await store.settle(_binding(PERSON_A), PREVIEW)).approval
    assert created.asked == clock.now and created.binding.client == "Claude"
    assert await store.waiting(PERSON_B) == []
    assert await store.view(created.id, PERSON_B) is None
    assert await store.decide(created.id, PERSON_B, approved=True) is None
    assert await store.view(created.id, "") is None  # no person owns nothing
    assert [a.id for a in await store.waiting(PERSON_A)] == [created.id]
    decided = await store.decide(created.id, PERSON_A, approved=True)
    assert decided is not None and decided.status == "approved"
    assert (await store.settle(_binding(PERSON_A), PREVIEW)).kind == "approved"


async def test_the_cap_of_waiting_approvals_is_per_person() -> None:
    store = MemoryApprovalStore(max_pending=2)
    for n in range(2):
        await store.settle(_binding(PERSON_A, str(n)), PREVIEW)
    with pytest.raises(TooManyApprovalsError):
        await store.settle(_binding(PERSON_A, "third"), PREVIEW)
    colleague = await store.settle(_binding(PERSON_B, "x", "grant-b"), PREVIEW)
    assert colleague.kind == "new"  # the colleague's own approvals are not blocked by A's


async def test_the_memory_store_keeps_an_upload_slot_to_its_person() -> None:
    store = MemoryTransferStore()
    owner = Owner(f"oauth:{ACCOUNT}:grant-a", ACCOUNT, PERSON_A)
    slot = await store.request_upload(owner)
    colleague = Holder(ACCOUNT, PERSON_B)
    assert await store.slot(slot.id, colleague) is None
    assert await store.pending_uploads(colleague) == []
    with pytest.raises(TransferRefusedError, match="not valid any more"):
        await store.fill(slot.id, colleague, Upload(PDF, "application/pdf", "b.pdf"))
    mine = Holder(ACCOUNT, PERSON_A)
    assert await store.slot(slot.id, mine) == slot
    assert [r.id for r in await store.pending_uploads(mine)] == [slot.id]
    record = await store.offer(owner, "RE 1001.pdf", "application/pdf", PDF)
    assert await store.peek(record.id, colleague) is None
    assert await store.download(record.id, colleague) is None
    assert await store.download(record.id, mine) == (record, PDF)
