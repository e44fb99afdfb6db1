"""File transfers: one contract for this process's store and the shared state's, then what only
the shared one must show (uploaded through one instance and read through another, a delivery
downloaded once when two instances are asked at the same moment, no file byte or record id in
Redis in the clear, every key expiring)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import msgspec
import pytest

from sevdesk_mcp.errors import TransferRefusedError
from sevdesk_mcp.safety.transfers import (
    Holder,
    Limits,
    MemoryTransferStore,
    Owner,
    Record,
    TransferStore,
    Upload,
)
from sevdesk_mcp.safety.transfers_redis import RedisTransferStore
from sevdesk_mcp.shared.redis import SharedState, open_state
from tests.clock import Clock

pytestmark = pytest.mark.anyio
SECRETS = ["test-secret-" + "x" * 32]
PERSON = "f" * 64  # the keyed fingerprint of the sevDesk token that asked
OWNER = Owner("oauth:4711:grant-1", "4711", PERSON)
HOLDER = Holder(OWNER.account, PERSON)  # that person, signed in
COLLEAGUE = Holder(OWNER.account, "c" * 64)  # another user of the same account
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n" + b"secret-bytes" * 10
SMALL = Limits(
    max_records_per_account=3,
    max_records_per_grant=2,
    max_bytes_per_account=len(PDF) * 2,
    upload_ttl_s=600,
    download_ttl_s=600,
)
SHORT = msgspec.structs.replace(SMALL, upload_ttl_s=0.4, download_ttl_s=0.4)


def _store(request: pytest.FixtureRequest, limits: Limits | None = None) -> TransferStore:
    if request.param == "memory":
        return MemoryTransferStore(limits)
    return RedisTransferStore(request.getfixturevalue("shared_state"), limits)


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> TransferStore:
    """The transfer store under test."""
    return _store(request)


@pytest.fixture(params=["memory", "redis"])
def small(request: pytest.FixtureRequest) -> TransferStore:
    """A store with small limits (records live 10 minutes: no limit test races a clock)."""
    return _store(request, SMALL)


@pytest.fixture(params=["memory", "redis"])
def short(request: pytest.FixtureRequest) -> TransferStore:
    """A store with small limits and records that live 0.4 s (nothing the tests do with it
    needs to happen within that time)."""
    return _store(request, SHORT)


@pytest.fixture(params=["memory", "redis"])
def clocked(request: pytest.FixtureRequest) -> tuple[TransferStore, Clock]:
    """A store with small limits whose records' expiry is judged by a clock the test moves
    (the Redis store's own clock: its keys still expire on Redis's, after 10 minutes)."""
    clock = Clock()
    if request.param == "memory":
        return MemoryTransferStore(SMALL, clock), clock
    return RedisTransferStore(request.getfixturevalue("shared_state"), SMALL, clock), clock


@pytest.fixture
async def other(shared_state: SharedState, redis_url: str) -> AsyncIterator[SharedState]:
    """A second instance: its own Redis client on the same namespace."""
    state = open_state(redis_url, SECRETS, namespace=shared_state.keys.namespace)
    yield state
    await state.aclose()


async def _filled(store: TransferStore, owner: Owner = OWNER) -> Record:
    slot = await store.request_upload(owner)
    holder = Holder(owner.account, owner.person)
    return await store.fill(slot.id, holder, Upload(PDF, "application/pdf", "beleg.pdf"))


async def test_an_upload_is_requested_filled_once_and_read_by_its_grant(
    store: TransferStore,
) -> None:
    slot = await store.request_upload(OWNER)
    assert slot.kind == "upload" and not slot.filled and slot.reference == f"upload:{slot.id}"
    assert await store.slot(slot.id, HOLDER) == slot
    assert [r.id for r in await store.pending_uploads(HOLDER)] == [slot.id]
    with pytest.raises(TransferRefusedError, match="Nothing was uploaded"):
        await store.read_upload(slot.reference, OWNER.principal)
    filled = await store.fill(slot.id, HOLDER, Upload(PDF, "", "beleg.pdf"))
    assert filled.filled and filled.name == "beleg.pdf" and filled.media_type == "application/pdf"
    assert await store.slot(slot.id, HOLDER) is None
    assert await store.pending_uploads(HOLDER) == []
    with pytest.raises(TransferRefusedError, match="not valid any more"):
        await store.fill(slot.id, HOLDER, Upload(PDF, "", "again.pdf"))
    local = await store.read_upload(slot.reference, OWNER.principal)
    assert local.data == PDF and local.name == "beleg.pdf" and local.sha256 == filled.sha256
    assert (await store.read_upload(slot.reference, OWNER.principal)).data == PDF  # re-read


async def test_an_upload_is_nobody_elses(store: TransferStore) -> None:
    filled = await _filled(store)
    assert await store.slot(filled.id, Holder("another-account", PERSON)) is None
    with pytest.raises(TransferRefusedError, match="no upload reference of this connection"):
        await store.read_upload(filled.reference, "oauth:4711:grant-2")
    with pytest.raises(TransferRefusedError, match="no upload reference"):
        await store.read_upload("upload:made-up-id-000000000000", OWNER.principal)
    slot = await store.request_upload(OWNER)
    with pytest.raises(TransferRefusedError, match="not valid any more"):
        await store.fill(slot.id, Holder("another-account", PERSON), Upload(PDF, "", "x.pdf"))


@pytest.mark.threat("I35-2")
async def test_an_upload_slot_and_a_delivery_are_their_persons_only(store: TransferStore) -> None:
    slot = await store.request_upload(OWNER)
    assert await store.slot(slot.id, COLLEAGUE) is None
    assert await store.slot(slot.id, Holder(OWNER.account, "")) is None
    assert await store.pending_uploads(COLLEAGUE) == []
    with pytest.raises(TransferRefusedError, match="not valid any more"):
        await store.fill(slot.id, COLLEAGUE, Upload(PDF, "", "x.pdf"))
    assert await store.slot(slot.id, HOLDER) == slot  # still open for its person
    record = await store.offer(OWNER, "a.pdf", "application/pdf", PDF)
    assert await store.peek(record.id, COLLEAGUE) is None
    assert await store.download(record.id, COLLEAGUE) is None
    assert await store.download(record.id, HOLDER) == (record, PDF)


async def test_a_file_of_the_wrong_type_is_refused(store: TransferStore) -> None:
    slot = await store.request_upload(OWNER)
    with pytest.raises(TransferRefusedError, match="claims to be image/png"):
        await store.fill(slot.id, HOLDER, Upload(PDF, "image/png", "x.pdf"))
    assert await store.slot(slot.id, HOLDER) is not None  # still open


async def test_a_delivery_is_downloaded_once_by_its_account(store: TransferStore) -> None:
    record = await store.offer(OWNER, "RE 1001.pdf", "application/pdf", PDF)
    assert record.kind == "download" and record.size == len(PDF) and record.name == "RE_1001.pdf"
    assert await store.peek(record.id, HOLDER) == record
    assert await store.peek(record.id, Holder("another-account", PERSON)) is None
    assert await store.download(record.id, Holder("another-account", PERSON)) is None
    assert await store.download(record.id, HOLDER) == (record, PDF)
    assert await store.download(record.id, HOLDER) is None
    assert await store.peek(record.id, HOLDER) is None


async def test_the_record_limits_of_grant_and_account(small: TransferStore) -> None:
    await small.request_upload(OWNER)
    await small.request_upload(OWNER)
    with pytest.raises(TransferRefusedError, match=r"This connection \(grant\) already holds 2"):
        await small.request_upload(OWNER)
    await small.request_upload(Owner("oauth:4711:grant-2", OWNER.account, PERSON))
    with pytest.raises(TransferRefusedError, match="This account already holds 3"):
        await small.offer(Owner("oauth:4711:grant-3", OWNER.account, PERSON), "a.pdf", "", PDF)
    assert await small.request_upload(Owner("oauth:1:g", "1"))  # another account


async def test_the_byte_limit_of_the_account(small: TransferStore) -> None:
    await _filled(small)
    delivery = await small.offer(
        Owner("oauth:4711:grant-2", OWNER.account, PERSON), "a.pdf", "", PDF
    )
    slot = await small.request_upload(Owner("oauth:4711:grant-3", OWNER.account, PERSON))
    with pytest.raises(TransferRefusedError, match="would exceed 0 MiB"):
        await small.fill(slot.id, HOLDER, Upload(PDF, "", "b.pdf"))
    assert await small.download(delivery.id, HOLDER) is not None  # frees its bytes
    assert (await small.fill(slot.id, HOLDER, Upload(PDF, "", "b.pdf"))).filled


async def test_records_expire(short: TransferStore) -> None:
    slot = await short.request_upload(OWNER)
    delivery = await short.offer(OWNER, "a.pdf", "application/pdf", b"%PDF-1.4 small")
    await anyio.sleep(0.6)  # past their 0.4 s (a slow machine only waits longer)
    assert await short.download(delivery.id, HOLDER) is None
    assert await short.slot(slot.id, HOLDER) is None
    assert await short.pending_uploads(HOLDER) == []
    with pytest.raises(TransferRefusedError, match="not valid any more"):
        await short.fill(slot.id, HOLDER, Upload(PDF, "", "late.pdf"))
    for _ in range(2):  # the expired ones no longer count
        await short.request_upload(OWNER)


async def test_a_filled_upload_expires_with_its_slot(
    clocked: tuple[TransferStore, Clock],
) -> None:
    store, clock = clocked
    filled = await _filled(store)  # in time whatever the machine: the clock stands still
    assert (await store.read_upload(filled.reference, OWNER.principal)).data == PDF
    clock.now += SMALL.upload_ttl_s + 1
    with pytest.raises(TransferRefusedError, match="no upload reference"):
        await store.read_upload(filled.reference, OWNER.principal)


async def test_uploaded_through_one_instance_it_is_read_through_another(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisTransferStore(shared_state), RedisTransferStore(other)
    slot = await one.request_upload(OWNER)
    assert [r.id for r in await two.pending_uploads(HOLDER)] == [slot.id]
    await two.fill(slot.id, HOLDER, Upload(PDF, "", "beleg.pdf"))
    assert (await one.read_upload(slot.reference, OWNER.principal)).data == PDF


async def test_two_instances_asked_at_once_deliver_once(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisTransferStore(shared_state), RedisTransferStore(other)
    record = await one.offer(OWNER, "a.pdf", "application/pdf", PDF)
    got: list[bytes] = []

    async def download(store: RedisTransferStore) -> None:
        found = await store.download(record.id, HOLDER)
        if found is not None:
            got.append(found[1])

    async with anyio.create_task_group() as group:
        for store in (one, two, one, two):
            group.start_soon(download, store)
    assert got == [PDF]


async def test_the_byte_limit_holds_across_instances(
    shared_state: SharedState, other: SharedState
) -> None:
    one, two = RedisTransferStore(shared_state, SMALL), RedisTransferStore(other, SMALL)
    slots = [
        await one.request_upload(Owner(f"oauth:4711:g{n}", OWNER.account, PERSON)) for n in range(3)
    ]
    results: list[bool] = []

    async def fill(store: RedisTransferStore, slot: Record) -> None:
        try:
            await store.fill(slot.id, HOLDER, Upload(PDF, "", "x.pdf"))
            results.append(True)
        except TransferRefusedError:
            results.append(False)

    async with anyio.create_task_group() as group:
        for n, slot in enumerate(slots):
            group.start_soon(fill, (one, two)[n % 2], slot)
    assert sorted(results) == [False, True, True]


async def test_no_file_byte_or_id_stands_in_redis_and_every_key_expires(
    shared_state: SharedState,
) -> None:
    store = RedisTransferStore(shared_state)
    filled = await _filled(store)
    offered = await store.offer(OWNER, "a.pdf", "application/pdf", PDF)
    clear = [b"secret-bytes", b"%PDF", filled.id.encode(), offered.id.encode()]
    clear.append(OWNER.principal.encode())
    namespace = shared_state.keys.namespace
    keys = [k async for k in shared_state.client.scan_iter(match=f"{namespace}:*")]
    assert len(keys) == 5  # two records, the account's two indexes, the grant's index
    for key in keys:
        raw = await _stored(shared_state, key)
        assert not any(c in key + raw for c in clear), key
        assert 0 < await shared_state.client.pttl(key) <= 30 * 60 * 1000


async def _stored(state: SharedState, key: bytes) -> bytes:
    """:returns: everything Redis holds under ``key``, concatenated."""
    kind = await state.client.type(key)
    parts: list[object]
    if kind == b"hash":
        parts = list(await state.client.hvals(key))
    elif kind == b"zset":
        parts = list(await state.client.zrange(key, 0, -1))
    else:
        parts = [await state.client.get(key) or b""]
    return b"".join(p if isinstance(p, bytes) else str(p).encode() for p in parts)
