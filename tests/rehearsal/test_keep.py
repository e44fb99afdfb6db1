"""A rehearsal kept in a file: encrypted (AES-256-GCM), mode 0600, bound to its account,
continued where it stopped; a wrong key, another account, a changed file or another file is
refused in one line, and a file forged by the key's holder cannot run code."""

from __future__ import annotations

import io
import os
import pickle
import secrets
import stat
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from sevdesk_mcp.errors import StartupError
from sevdesk_mcp.fake.exchange import Action
from sevdesk_mcp.fake.store import Store, Table
from sevdesk_mcp.rehearsal import keep
from sevdesk_mcp.rehearsal.transport import Rehearsal
from tests.rehearsal.helpers import client_on, one
from tests.rehearsal.test_guard import Recorder
from tests.rehearsal.test_month_end import Run

pytestmark = pytest.mark.anyio

ACCOUNT = b"account A"
OTHER_ACCOUNT = b"account B"


class _Collecting(pickle.Unpickler):
    """Unpickles anything, noting each global the pickle asks for."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.asked: set[tuple[str, str]] = set()

    def find_class(self, module: str, name: str) -> object:
        self.asked.add((module, name))
        return super().find_class(module, name)


def _gadget(marker: Path) -> bytes:
    """:returns: a pickle of allowed-looking names only up to ``builtins.getattr``, which would
    reach ``eval`` through ``Store.__init__.__globals__`` and create ``marker``."""

    def attribute(obj: bytes, name: str) -> bytes:
        return b"cbuiltins\ngetattr\n(" + obj + b"V" + name.encode() + b"\ntR"

    def call(fn: bytes, argument: str) -> bytes:
        return fn + b"(V" + argument.encode() + b"\ntR"

    globals_ = attribute(attribute(b"csevdesk_mcp.fake.store\nStore\n", "__init__"), "__globals__")
    builtins = call(attribute(globals_, "get"), "__builtins__")
    evaluate = call(attribute(builtins, "get"), "eval")
    return call(evaluate, f"open({str(marker)!r}, 'w').close()") + b"."


async def test_a_kept_rehearsal_opens_with_its_key_and_continues(tmp_path: Path) -> None:
    run = Run()
    ids = await run.month_end()
    key = secrets.token_bytes(32)
    path = tmp_path / "month-end.rehearsal"
    run.rehearsal.save(path, key, ACCOUNT)
    raw = path.read_bytes()
    assert b"RE-" not in raw and b"Versandhaus" not in raw  # encrypted, not just encoded
    assert ACCOUNT not in raw
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # noqa: ASYNC240 - no temporary left
    again = Rehearsal.load(path, key, ACCOUNT, run.proxy, today=lambda: run.fake.today)
    assert again.changes() == run.rehearsal.changes()
    assert again.written() == run.rehearsal.written()
    client = client_on(again)
    paid = one(await client.get(f"/Invoice/{ids.paid_invoice}"))
    voucher = one(await client.get(f"/Voucher/{ids.voucher}"))
    assert (paid["status"], voucher["status"]) == ("1000", "100")
    assert set(run.proxy.methods) == {"GET"}


async def test_the_allowed_classes_cover_a_real_state_and_are_classes_only() -> None:
    run = Run()
    await run.month_end()
    store = run.rehearsal.engine.store if run.rehearsal.engine is not None else None
    assert store is not None and len(store.invoices) and len(store.vouchers)
    kept = keep.kept_of("t", store, set(run.rehearsal.written()), list(run.rehearsal.changes()))
    collecting = _Collecting(keep.pickled(kept))
    collecting.load()
    assert collecting.asked <= keep.ALLOWED, collecting.asked - keep.ALLOWED
    assert ("builtins", "getattr") not in collecting.asked
    models = {(t.model.__module__, t.model.__name__) for t in vars(store).values()
              if isinstance(t, Table)}  # fmt: skip
    assert models <= keep.ALLOWED  # also the tables this month-end left empty
    assert ("sevdesk_mcp.fake.legacy", "AccountingType") in keep.ALLOWED  # bookkeeping 1.0
    for module, name in keep.ALLOWED:
        assert isinstance(pickle.Unpickler(io.BytesIO()).find_class(module, name), type), name
    again = keep.unpickled(keep.pickled(kept))
    assert isinstance(again, keep.Kept) and again.changes == kept.changes
    assert again.store is not None and again.store.chart == store.chart


async def test_a_forged_pickle_under_a_valid_key_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    pickle.loads(_gadget(marker))  # proves the gadget is real: a plain pickle runs it
    assert marker.exists()
    marker.unlink()
    key, path = secrets.token_bytes(32), tmp_path / "forged.rehearsal"
    path.write_bytes(keep.seal(key, ACCOUNT, _gadget(marker)))
    with pytest.raises(StartupError, match=r"holds no rehearsal this version can read") as err:
        Rehearsal.load(path, key, ACCOUNT, Recorder())
    assert "\n" not in str(err.value)
    assert not marker.exists()


@pytest.mark.parametrize(
    "name",
    [b"sevdesk_mcp.fake.demo\nbuild_demo\n", b"builtins\neval\n", b"os\nsystem\n",
     b"copyreg\n_reconstructor\n", b"sevdesk_mcp.fake.voucher_saves\nfiles_of\n"],
)  # fmt: skip
def test_a_pickle_naming_a_function_is_refused(tmp_path: Path, name: bytes) -> None:
    key, path = secrets.token_bytes(32), tmp_path / "forged.rehearsal"
    path.write_bytes(keep.seal(key, ACCOUNT, b"c" + name + b"."))
    with pytest.raises(StartupError, match=r"holds no rehearsal this version can read"):
        keep.load(path, key, ACCOUNT)


async def test_a_file_of_another_account_does_not_continue(tmp_path: Path) -> None:
    run = Run()
    await run.month_end()
    key, path = secrets.token_bytes(32), tmp_path / "kept"
    run.rehearsal.save(path, key, ACCOUNT)
    with pytest.raises(StartupError, match="belongs to another sevDesk account or token") as err:
        Rehearsal.load(path, key, OTHER_ACCOUNT, run.proxy)
    assert "delete it to start a new rehearsal" in str(err.value) and "\n" not in str(err.value)
    # the state names its account as well: a file sealed for B holding A's state is refused
    kept = keep.load(path, key, ACCOUNT)
    path.write_bytes(keep.seal(key, OTHER_ACCOUNT, keep.pickled(kept)))
    with pytest.raises(StartupError, match="belongs to another sevDesk account or token"):
        keep.load(path, key, OTHER_ACCOUNT)


async def test_a_wrong_key_or_a_changed_file_does_not_open(tmp_path: Path) -> None:
    run = Run()
    await run.month_end()
    key = secrets.token_bytes(32)
    path = tmp_path / "kept"
    run.rehearsal.save(path, key, ACCOUNT)
    with pytest.raises(StartupError, match="another key or changed since"):
        Rehearsal.load(path, secrets.token_bytes(32), ACCOUNT, run.proxy)
    with pytest.raises(StartupError, match="another key or changed since"):
        Rehearsal.load(path, secrets.token_bytes(32), OTHER_ACCOUNT, run.proxy)
    damaged = bytearray(path.read_bytes())
    damaged[-1] ^= 1
    path.write_bytes(bytes(damaged))
    with pytest.raises(StartupError, match="another key or changed since"):
        Rehearsal.load(path, key, ACCOUNT, run.proxy)
    other = tmp_path / "other"
    other.write_bytes(b"not a rehearsal")
    with pytest.raises(StartupError, match="is not a kept rehearsal"):
        Rehearsal.load(other, key, ACCOUNT, run.proxy)
    older = tmp_path / "older"
    older.write_bytes(b"sevdesk-rehearsal\x01" + secrets.token_bytes(64))
    with pytest.raises(StartupError, match="holds no rehearsal this version can read"):
        Rehearsal.load(older, key, ACCOUNT, run.proxy)


def test_a_key_of_the_wrong_length_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StartupError, match="must have 32"):
        Rehearsal(Recorder()).save(tmp_path / "x", b"short", ACCOUNT)
    assert not (tmp_path / "x").exists()


def test_the_file_is_synced_before_it_replaces_the_kept_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, key = tmp_path / "kept", secrets.token_bytes(32)
    synced: list[bool] = []
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append(path.exists())
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    Rehearsal(Recorder()).save(path, key, ACCOUNT)
    assert synced == [False]  # synced once, before the file took the kept one's place
    assert isinstance(keep.load(path, key, ACCOUNT), keep.Kept)


def test_a_failed_write_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, key = tmp_path / "kept", secrets.token_bytes(32)

    def fsync(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError, match="No space left"):
        Rehearsal(Recorder()).save(path, key, ACCOUNT)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    path.mkdir()  # the replace fails: a folder is where the file should go
    with pytest.raises(IsADirectoryError):
        Rehearsal(Recorder()).save(path, key, ACCOUNT)
    assert [p.name for p in tmp_path.iterdir()] == ["kept"]


async def test_a_kept_store_of_an_older_version_is_refused(tmp_path: Path) -> None:
    run = Run()
    await run.client.get(f"/Contact/{run.facts.customer_ids[0]}")
    assert run.rehearsal.engine is not None
    del run.rehearsal.engine.store.number_formats  # as a store kept before the real ranges
    key, path = secrets.token_bytes(32), tmp_path / "old.rehearsal"
    run.rehearsal.save(path, key, ACCOUNT)
    with pytest.raises(StartupError, match="holds no rehearsal this version can read"):
        Rehearsal.load(path, key, ACCOUNT, run.proxy)


def test_a_store_pickles_without_getattr() -> None:
    store = Store(Run().fake.today, "2.0")
    store.now()
    collecting = _Collecting(keep.pickled(keep.Kept("t", store, {}, {}, 0, set(), [])))
    collecting.load()
    assert collecting.asked <= keep.ALLOWED


def test_time_zones_and_enum_members_pickle_by_calling_their_class() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    collecting = _Collecting(keep.pickled((berlin, Action.RESET)))
    assert collecting.load() == (berlin, Action.RESET)
    assert collecting.asked == {("zoneinfo", "ZoneInfo"), ("sevdesk_mcp.fake.exchange", "Action")}


def test_a_forged_pickle_that_fails_in_a_constructor_is_one_line(tmp_path: Path) -> None:
    key, path = secrets.token_bytes(32), tmp_path / "forged.rehearsal"
    path.write_bytes(keep.seal(key, ACCOUNT, b"cdecimal\nDecimal\n(Vnot a number\ntR."))
    with pytest.raises(StartupError, match="holds no rehearsal this version can read") as err:
        keep.load(path, key, ACCOUNT)
    assert "\n" not in str(err.value)
