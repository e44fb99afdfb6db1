"""Every row of the transfer table (:mod:`sevdesk_mcp.safety.transfer_table`) run through both
backends: which limit refuses a new record or a file (in the table's order, the Redis scripts
handed the rows), what a record in each state serves, and what a tool call reading it is told."""

from __future__ import annotations

from typing import Literal

import msgspec
import pytest

from sevdesk_mcp.errors import TransferRefusedError
from sevdesk_mcp.safety.transfer_table import (
    LIMITS,
    READ,
    SERVE,
    Action,
    Limit,
    admission,
    filling,
    refused,
)
from sevdesk_mcp.safety.transfers import (
    Holder,
    Limits,
    MemoryTransfers,
    Owner,
    Record,
    TransferBackend,
    Transfers,
    Upload,
    delivery,
)
from sevdesk_mcp.safety.transfers_redis import RedisTransfers
from tests.clock import Clock

pytestmark = pytest.mark.anyio
PERSON = "f" * 64
OWNER = Owner("oauth:4711:grant-1", "4711", PERSON)
HOLDER = Holder(OWNER.account, PERSON)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
LIMITS_SMALL = Limits(
    max_records_per_account=3,
    max_records_per_grant=2,
    max_bytes_per_account=len(PDF) * 2,
    upload_ttl_s=600,
    download_ttl_s=600,
)
State = Literal["empty", "filled", "delivery"]


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> TransferBackend:
    """Either backend."""
    if request.param == "memory":
        return MemoryTransfers()
    return RedisTransfers(request.getfixturevalue("shared_state"))


def _grant(n: int) -> Owner:
    return Owner(f"oauth:4711:grant-{n}", OWNER.account, PERSON)


def _record(n: int, owner: Owner, data: bytes | None) -> Record:
    if data is None:
        return Record(f"record-{n}", "upload", owner, 4e9)
    return delivery(f"record-{n}", owner, 4e9, "a.pdf", "application/pdf", data)


# what fills which limit: the records (owner, data) held before the one refused
BEFORE: dict[Limit, list[tuple[Owner, bytes | None]]] = {
    "account": [(_grant(1), None), (_grant(2), None), (_grant(3), None)],
    "grant": [(OWNER, None), (OWNER, None)],
    "bytes": [(_grant(1), PDF), (_grant(2), PDF)],
}


@pytest.mark.parametrize("full", [False, True], ids=["below", "at"])
@pytest.mark.parametrize("what", LIMITS)
async def test_every_admission_row_holds_on_both_backends(
    backend: TransferBackend, what: Limit, full: bool
) -> None:
    before = BEFORE[what] if full else BEFORE[what][:-1]
    for n, (owner, data) in enumerate(before):
        record = _record(n, owner, data)
        assert await backend.add(record, data, 600, admission(LIMITS_SMALL, record.size)) is None
    new = _record(99, OWNER, PDF if what == "bytes" else None)
    rows = admission(LIMITS_SMALL, new.size)
    held: dict[Limit, int] = {"account": len(before), "grant": 0, "bytes": 0}
    held["grant"] = sum(o == OWNER for o, _ in before)
    held["bytes"] = sum(len(d or b"") for _, d in before)
    expected = refused(held, rows)
    assert (expected is not None and expected[0]) == (full and what)
    assert await backend.add(new, PDF if new.filled else None, 600, rows) == expected
    assert (await backend.get(new.id) is None) is full


@pytest.mark.parametrize("full", [False, True], ids=["below", "at"])
async def test_the_filling_row_holds_on_both_backends(backend: TransferBackend, full: bool) -> None:
    held = [PDF, PDF] if full else [PDF]
    for n, data in enumerate(held):
        record = _record(n, _grant(n), data)
        await backend.add(record, data, 600, admission(LIMITS_SMALL, record.size))
    slot = _record(9, _grant(9), None)
    assert await backend.add(slot, None, 600, admission(LIMITS_SMALL, 0)) is None
    filled = msgspec.structs.replace(slot, size=len(PDF), filled=True)
    rows = filling(LIMITS_SMALL, len(PDF))
    expected = refused({"account": 0, "grant": 0, "bytes": len(PDF) * len(held)}, rows)
    answer = await backend.put_file(slot, filled, PDF, rows)
    assert answer == ("bytes" if expected else "ok")
    assert await backend.put_file(slot, filled, PDF, rows) == ("bytes" if expected else "gone")


async def _into(store: Transfers, state: State) -> Record:
    if state == "delivery":
        return await store.offer(OWNER, "a.pdf", "application/pdf", PDF)
    slot = await store.request_upload(OWNER)
    if state == "empty":
        return slot
    return await store.fill(slot.id, HOLDER, Upload(PDF, "", "beleg.pdf"))


async def _serves(store: Transfers, action: Action, record: Record, holder: Holder) -> bool:
    if action == "slot":
        return await store.slot(record.id, holder) is not None
    if action == "peek":
        return await store.peek(record.id, holder) is not None
    if action == "download":
        return await store.download(record.id, holder) is not None
    try:
        await store.fill(record.id, holder, Upload(PDF, "", "again.pdf"))
    except TransferRefusedError:
        return False
    return True


@pytest.mark.parametrize("whose", ["theirs", "a colleague's", "expired"])
@pytest.mark.parametrize("state", ["empty", "filled", "delivery"])
@pytest.mark.parametrize("action", ["slot", "fill", "peek", "download"])
async def test_every_serve_row_holds_on_both_backends(
    backend: TransferBackend, action: Action, state: State, whose: str
) -> None:
    clock = Clock()
    store = Transfers(backend, LIMITS_SMALL, clock)
    record = await _into(store, state)
    holder = Holder(OWNER.account, "c" * 64) if whose == "a colleague's" else HOLDER
    if whose == "expired":
        clock.now += 601
    served = SERVE[action][record.kind][record.filled] and whose == "theirs"
    assert await _serves(store, action, record, holder) is served


@pytest.mark.parametrize("ours", [True, False], ids=["its grant", "another grant"])
@pytest.mark.parametrize("state", ["empty", "filled", "delivery"])
async def test_every_read_row_holds_on_both_backends(
    backend: TransferBackend, state: State, ours: bool
) -> None:
    store = Transfers(backend, LIMITS_SMALL)
    record = await _into(store, state)
    principal = OWNER.principal if ours else "oauth:4711:grant-2"
    answer = READ[ours and record.kind == "upload"][record.filled]
    texts = {"not_yours": "no upload reference", "not_filled": "Nothing was uploaded"}
    if answer == "ok":
        assert (await store.read_upload(record.reference, principal)).data == PDF
    else:
        with pytest.raises(TransferRefusedError, match=texts[answer]):
            await store.read_upload(record.reference, principal)


async def test_a_delivery_is_taken_once_by_either_backend(backend: TransferBackend) -> None:
    store = Transfers(backend, LIMITS_SMALL)
    record = await _into(store, "delivery")
    assert await backend.take(record) == PDF
    assert await backend.take(record) is None
