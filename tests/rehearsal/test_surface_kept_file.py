"""``SEVDESK_REHEARSE_FILE``: a rehearsal kept between runs, its key in the OS keychain (an
in-memory keyring backend here), bound to the account it was made with; refused in one line
without a rehearsal, without a usable keychain, with a keychain entry that holds no key of ours,
or for another account or token (also the demo books')."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from sevdesk_mcp.cli import demo, rehearse
from sevdesk_mcp.cli.run import token_account
from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError, StartupError
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.token import DEMO_TOKEN
from sevdesk_mcp.fake.transport import FakeTransport
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety import keychain
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.paths import DEFAULT_API_URL
from tests.rehearsal.helpers import client_on, obj, one
from tests.unit.test_keychain import MemoryKeyring

pytestmark = pytest.mark.anyio

API = DEFAULT_API_URL  # the real account's, as configured by default
TOKEN = Secret(secrets.token_hex(16))


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


def test_the_file_needs_a_rehearsal_and_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"SEVDESK_REHEARSE_FILE.*set SEVDESK_REHEARSE=on"):
        load_config({"SEVDESK_REHEARSE_FILE": str(tmp_path / "kept")})
    with pytest.raises(ConfigError, match="absolute path of a file in an existing folder"):
        load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_FILE": "kept"})
    with pytest.raises(ConfigError, match="absolute path of a file in an existing folder"):
        load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_FILE": str(tmp_path / "no/x")})
    config = load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_FILE": str(tmp_path / "k")})
    assert config.rehearse_file == tmp_path / "k"


async def test_a_kept_rehearsal_continues_at_the_next_start(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    path = tmp_path / "month-end.rehearsal"
    config = load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_FILE": str(path)})
    real = build_demo()
    first = rehearse.rehearsal_of(
        FakeTransport(real), config, today=lambda: real.today, api_url=API, token=TOKEN
    )
    client = client_on(first)
    contact: JsonObject = {"name": "Probe GmbH", "category": {"id": 3, "objectName": "Category"}}
    created = obj(await client.send("POST", "/Contact", tier=Tier.WRITE, json=contact))
    assert first.changes() and not path.exists()
    bound_to = rehearse.account_of(API, TOKEN)
    rehearse.keep(first, path, rehearse.file_key(), bound_to)  # what the process does at its end
    stored = memory_keyring.get_password(keychain.SERVICE, rehearse.KEY_ENTRY)
    assert stored is not None and len(bytes.fromhex(stored)) == rehearse.KEY_BYTES
    assert stored.encode() not in path.read_bytes()
    assert TOKEN.reveal().encode() not in path.read_bytes()
    second = rehearse.rehearsal_of(
        FakeTransport(real), config, today=lambda: real.today, api_url=API, token=TOKEN
    )
    assert second.changes() == first.changes()
    again = one(await client_on(second).get(f"/Contact/{created['id']}"))
    assert again["name"] == "Probe GmbH"
    assert all(r.method == "GET" for r in real.requests)  # nothing reached the "real" books


def test_no_keychain_is_one_line(tmp_path: Path) -> None:
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]
    try:
        with pytest.raises(StartupError, match=r"key from the OS keychain.*unset SEVDESK_REHEARSE"):
            rehearse.file_key()
    finally:
        keyring.set_keyring(before)


def test_an_entry_that_holds_no_key_of_ours_is_refused(memory_keyring: MemoryKeyring) -> None:
    keychain.store(Secret("not hex at all " + secrets.token_hex(4)), rehearse.KEY_ENTRY)
    with pytest.raises(StartupError, match="holds no key of this server's"):
        rehearse.file_key()
    keychain.store(Secret("ab" * 16), rehearse.KEY_ENTRY)  # 16 bytes: too short
    with pytest.raises(StartupError, match="holds no key of this server's"):
        rehearse.file_key()


def test_a_file_that_cannot_be_kept_is_said_in_one_line(
    tmp_path: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    real = build_demo()
    config = load_config({"SEVDESK_REHEARSE": "on"})
    rehearsal = rehearse.rehearsal_of(
        FakeTransport(real), config, today=lambda: real.today, api_url=API, token=TOKEN
    )
    rehearse.keep(
        rehearsal, tmp_path / "missing-folder" / "kept", secrets.token_bytes(32), b"account"
    )
    err = capsys.readouterr().err
    assert err.startswith("mcp-server-sevdesk: the rehearsal could not be kept in ")
    assert err.endswith("; it is gone\n") and err.count("\n") == 1


def test_every_audit_line_of_a_rehearsal_says_so(tmp_path: Path) -> None:
    from sevdesk_mcp.safety.audit import AuditLog

    log = tmp_path / "audit.jsonl"
    AuditLog(log, rehearsal=True).write("approved", tool="sevdesk_finalize_document")
    AuditLog(log).write("approved", tool="sevdesk_finalize_document")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line.get("rehearsal") for line in lines] == [True, None]


def test_the_account_is_the_address_and_the_token_hashed() -> None:
    other = Secret(secrets.token_hex(16))
    bound_to = rehearse.account_of(API, TOKEN)
    assert bound_to == hashlib.sha256(f"{API}\0{TOKEN.reveal()}".encode()).digest()
    assert bound_to != rehearse.account_of(API, other)
    assert bound_to != rehearse.account_of("https://127.0.0.1:8443/api/v1", TOKEN)


async def _kept_for(path: Path, api_url: str, token: Secret) -> None:
    """Keep a rehearsal with one change in ``path``, made with ``token`` at ``api_url``."""
    config = load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_FILE": str(path)})
    real = build_demo()
    made = rehearse.rehearsal_of(
        FakeTransport(real), config, today=lambda: real.today, api_url=api_url, token=token
    )
    contact: JsonObject = {"name": "Probe GmbH", "category": {"id": 3, "objectName": "Category"}}
    await client_on(made).send("POST", "/Contact", tier=Tier.WRITE, json=contact)
    rehearse.keep(made, path, rehearse.file_key(), rehearse.account_of(api_url, token))


async def test_another_token_does_not_continue_the_rehearsal(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    path = tmp_path / "kept"
    await _kept_for(path, API, TOKEN)
    env = {"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_FILE": str(path)}
    same = {**env, "SEVDESK_API_TOKEN": TOKEN.reveal()}
    continued = token_account(load_config(same), same).rehearsal
    assert continued is not None and [c.action for c in continued.changes()] == ["created"]
    env["SEVDESK_API_TOKEN"] = secrets.token_hex(16)
    with pytest.raises(StartupError, match="belongs to another sevDesk account or token") as err:
        token_account(load_config(env), env)  # refused before anything is read
    assert "\n" not in str(err.value)
    assert TOKEN.reveal() not in str(err.value)


async def test_a_file_of_the_demo_books_does_not_continue_against_a_real_account(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    path = tmp_path / "kept"
    env = {"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_FILE": str(path)}
    await _kept_for(path, demo.DEMO_API_URL, Secret(DEMO_TOKEN))
    continued = demo.demo_account(load_config(env)).rehearsal  # the demo books continue theirs
    assert continued is not None and [c.action for c in continued.changes()] == ["created"]
    real_env = {**env, "SEVDESK_API_TOKEN": TOKEN.reveal()}
    with pytest.raises(StartupError, match="belongs to another sevDesk account or token"):
        token_account(load_config(real_env), real_env)
    path.unlink()  # as the message says: deleted, a new rehearsal starts, here the real one's
    await _kept_for(path, API, TOKEN)
    with pytest.raises(StartupError, match="belongs to another sevDesk account or token"):
        demo.demo_account(load_config(env))
