"""The overlay's edges: a GET that would change data goes to the overlay, the first requests
at once build one overlay, ids of created records stay apart from real ones, deletes hide."""

from __future__ import annotations

import anyio
import httpx
import pytest

from sevdesk_mcp.errors import NotFoundError
from sevdesk_mcp.fake.exports import FileStorage
from sevdesk_mcp.rehearsal.tables import CREATED_JOB_BASE
from sevdesk_mcp.safety.tiers import Tier
from tests.rehearsal.helpers import ids_of, many, one
from tests.rehearsal.test_month_end import Run

pytestmark = pytest.mark.anyio

SEQUENCE = "/SevSequence/Factory/getByType"


async def test_a_number_reserved_in_the_rehearsal_stays_in_the_overlay() -> None:
    run = Run()
    reserved = await run.client.send(
        "GET", SEQUENCE, tier=Tier.WRITE, query={"objectType": "Invoice", "type": "RE"}
    )
    assert isinstance(reserved, dict) and reserved["nextSequence"] == str(run.real_next)
    assert run.fake.store.peek_number("RE-") == run.real_next
    assert not any(r.applied for r in run.fake.requests)
    assert all(
        q.query.get("useNextNumber") == "false" for q in run.fake.requests if q.path == SEQUENCE
    )
    peeked = await run.client.get(
        SEQUENCE, {"objectType": "Invoice", "type": "RE", "useNextNumber": False}
    )
    assert isinstance(peeked, dict) and peeked["nextSequence"] == str(run.real_next + 1)
    (change,) = run.rehearsal.changes()
    assert (change.action, change.method, change.path) == ("changed", "GET", SEQUENCE)


async def test_the_first_requests_at_once_build_one_overlay() -> None:
    run = Run()
    contacts = run.facts.customer_ids[:4]
    async with anyio.create_task_group() as group:
        for ident in contacts:
            group.start_soon(run.client.get, f"/Contact/{ident}")
    engine = run.rehearsal.engine
    assert engine is not None
    assert {c for c in contacts if engine.store.contacts.find(c) is not None} == set(contacts)


async def test_a_deleted_draft_is_gone_in_the_rehearsal_only() -> None:
    run = Run()
    draft = run.facts.voucher_ids_by_status[50][0]
    listed = ids_of(await run.client.get("/Voucher", {"status": 50, "limit": 1000}))
    assert draft in listed
    await run.client.send("DELETE", f"/Voucher/{draft}", tier=Tier.WRITE)
    with pytest.raises(NotFoundError):
        await run.client.get(f"/Voucher/{draft}")
    assert draft not in ids_of(await run.client.get("/Voucher", {"status": 50, "limit": 1000}))
    assert run.fake.store.vouchers.find(draft) is not None
    (change,) = run.rehearsal.changes()
    assert (change.action, change.object_name, change.object_id) == ("deleted", "Voucher", draft)


async def test_the_account_itself_is_the_real_one() -> None:
    run = Run()
    ident = run.facts.customer_ids[0]
    await run.client.get("/SevClient")
    await run.client.send(
        "PUT", f"/Contact/{ident}", tier=Tier.WRITE, json={"name": "Rehearsed GmbH"}
    )
    changed = one(await run.client.get(f"/Contact/{ident}"))
    assert changed["name"] == "Rehearsed GmbH"
    assert changed["sevClient"]["id"] == str(run.fake.store.client.id)
    assert run.fake.store.contacts.get(ident).name != "Rehearsed GmbH"


class _Storage(httpx.AsyncBaseTransport):
    """The real export storage, counting what reaches it."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.reached = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.reached += 1
        return await self.inner.handle_async_request(request)


async def test_an_export_job_of_the_overlay_is_polled_and_downloaded_in_the_overlay() -> None:
    run = Run()
    window = {"startDate": "1777586400", "endDate": "1780264799", "scope": "EXPORT_SCOPE_ALL"}
    query = {**window, "enshrineDocuments": "true"}
    job = await run.client.send(
        "GET", "/Export/createDatevCsvZipExportJob", tier=Tier.COMMIT, query=query
    )
    assert isinstance(job, str) and int(job.rsplit("-", 1)[-1]) > CREATED_JOB_BASE
    digest = await run.client.get("/Progress/generateDownloadHash", {"jobId": job})
    assert isinstance(digest, str)
    for _ in range(2):
        await run.client.get("/Progress/getProgress", {"hash": digest})
    (info,) = many(await run.client.get("/ExportJob/jobDownloadInfo", {"jobId": job}))
    real_storage = _Storage(FileStorage(run.fake.store))
    async with httpx.AsyncClient(transport=run.rehearsal.files(real_storage)) as http:
        got = await http.get(info["link"])
    assert got.status_code == 200 and got.content.startswith(b"PK")
    assert real_storage.reached == 0
    assert not any(r.path.startswith(("/Progress", "/ExportJob")) for r in run.fake.requests)
    assert not any(r.applied for r in run.fake.requests)
    (change,) = run.rehearsal.changes()
    assert (change.action, change.object_name) == ("enshrined", "ExportJob")


async def test_booking_logs_are_read_in_bounded_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that ignored ``offset`` would answer full pages for ever: the rehearsal stops
    at its cap and refuses the step in one line, nothing changed."""
    from sevdesk_mcp.errors import RehearsalRefusedError
    from sevdesk_mcp.rehearsal import upstream

    asked: list[str] = []

    async def full_page(self: upstream.Upstream, path: str, params: object = None) -> object:
        asked.append(path)
        return [{"id": str(i)} for i in range(upstream.LOG_PAGE)]

    monkeypatch.setattr(upstream.Upstream, "objects", full_page)
    reader = object.__new__(upstream.Upstream)
    with pytest.raises(RehearsalRefusedError, match="do this step outside the rehearsal"):
        await reader.booking_logs(set())
    assert len(asked) == upstream.LOG_PAGES
