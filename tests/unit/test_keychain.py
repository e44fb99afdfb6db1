"""The token in the OS keychain: ``token set|check|delete`` with an in-memory keyring backend,
the server's fallback to the keychain, and the message where no keychain exists."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from sevdesk_mcp.accounts.local_commands import check_with_sevdesk, token_command
from sevdesk_mcp.config import Config, load_config, require_token
from sevdesk_mcp.errors import ConfigError, KeychainError, StartupError
from sevdesk_mcp.fake import DEMO_TOKEN, build_demo
from sevdesk_mcp.safety import keychain
from sevdesk_mcp.safety.redact import REDACTOR, Secret
from tests.demo_account import DEMO_URL

TOKEN = "a" * 32
OTHER = "b" * 32


class MemoryKeyring(KeyringBackend):
    """keyring's backend interface, held in memory."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        del self.store[(service, username)]


@pytest.fixture
def memory() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


@pytest.fixture
def headless() -> Iterator[None]:
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]
    yield
    keyring.set_keyring(before)


class Checks:
    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.seen: list[str] = []

    async def __call__(self, token: Secret, config: Config) -> None:
        self.seen.append(token.reveal())
        if self.refuse:
            raise StartupError("sevDesk refused this token (401).")


def _set(env: dict[str, str], typed: str, checks: Checks) -> tuple[int, str]:
    out = io.StringIO()
    status = token_command(env, ["set"], ask=lambda _: typed, check=checks, out=out)
    return status, out.getvalue()


def test_token_set_checks_with_sevdesk_before_storing(memory: MemoryKeyring) -> None:
    checks = Checks()
    status, said = _set({}, f" {TOKEN}\n", checks)
    assert status == 0 and "stored it in keychain entry 'default'" in said
    assert checks.seen == [TOKEN]
    assert memory.store == {(keychain.SERVICE, "default"): TOKEN}
    assert TOKEN not in said


def test_a_token_sevdesk_refuses_is_not_stored(memory: MemoryKeyring) -> None:
    with pytest.raises(StartupError, match="refused"):
        _set({}, TOKEN, Checks(refuse=True))
    assert memory.store == {}


@pytest.mark.parametrize("typed", ["", "Bearer " + TOKEN, "short"])
def test_a_malformed_token_is_refused_before_sevdesk_is_asked(
    memory: MemoryKeyring, typed: str
) -> None:
    checks = Checks()
    with pytest.raises(ConfigError, match="token"):
        _set({}, typed, checks)
    assert checks.seen == [] and memory.store == {}


def test_token_check_and_delete(memory: MemoryKeyring) -> None:
    out = io.StringIO()
    checks = Checks()
    assert token_command({}, ["check"], check=checks, out=out) == 1
    memory.store[(keychain.SERVICE, "work")] = TOKEN
    env = {"SEVDESK_KEYCHAIN_ENTRY": "work"}
    assert token_command(env, ["check"], check=checks, out=out) == 0
    assert checks.seen == [TOKEN]
    assert token_command(env, ["delete"], out=out) == 0
    assert memory.store == {}
    assert token_command(env, ["delete"], out=out) == 1
    with pytest.raises(ConfigError, match="token set, token check or token delete"):
        token_command(env, ["show"], out=out)


def test_the_server_takes_the_token_from_the_keychain(memory: MemoryKeyring) -> None:
    memory.store[(keychain.SERVICE, "default")] = TOKEN
    assert require_token({}).reveal() == TOKEN
    assert TOKEN not in REDACTOR(f"x {TOKEN} y")
    assert require_token({"SEVDESK_API_TOKEN": OTHER}).reveal() == OTHER  # the variable wins


def test_an_empty_keychain_says_where_to_put_the_token(memory: MemoryKeyring) -> None:
    with pytest.raises(StartupError, match="token set"):
        require_token({})


def test_without_a_keychain_backend_the_message_says_what_to_do(headless: None) -> None:
    assert keychain.available() is False
    with pytest.raises(KeychainError, match="no OS keychain is available here"):
        token_command({}, ["set"], ask=lambda _: TOKEN, check=Checks(), out=io.StringIO())
    with pytest.raises(StartupError, match="SEVDESK_API_TOKEN is not set, and no OS keychain"):
        require_token({})
    with pytest.raises(KeychainError, match="SEVDESK_API_TOKEN_FILE"):
        require_token({"SEVDESK_KEYCHAIN_ENTRY": "work"})  # asked for explicitly


def test_a_token_in_the_environment_never_imports_a_keychain(headless: None) -> None:
    assert require_token({"SEVDESK_API_TOKEN": TOKEN}).reveal() == TOKEN


def test_entry_names_are_checked() -> None:
    with pytest.raises(KeychainError, match="entry name"):
        keychain.check_entry("../x")


@pytest.mark.anyio
async def test_check_with_sevdesk_accepts_the_right_token_and_refuses_another() -> None:
    config = load_config({"SEVDESK_API_URL": DEMO_URL})
    await check_with_sevdesk(Secret(DEMO_TOKEN), config, build_demo().transport())
    with pytest.raises(StartupError, match="refused this token"):
        await check_with_sevdesk(Secret(OTHER), config, build_demo().transport())


def test_a_locked_keychain_on_delete_is_a_clear_error(memory: MemoryKeyring) -> None:
    from keyring.errors import KeyringLocked

    from sevdesk_mcp.errors import KeychainError
    from sevdesk_mcp.safety import keychain

    memory.store[(keychain.SERVICE, "default")] = TOKEN

    def locked(service: str, username: str) -> None:
        raise KeyringLocked("locked")

    memory.delete_password = locked  # type: ignore[method-assign]
    with pytest.raises(KeychainError, match="unlock it and try again"):
        keychain.delete("default")


def test_token_set_with_no_input_is_a_clear_error(memory: MemoryKeyring) -> None:
    def closed(_: str) -> str:
        raise EOFError

    with pytest.raises(ConfigError, match="no token was typed"):
        token_command({}, ["set"], ask=closed, check=Checks(), out=io.StringIO())
    assert memory.store == {}


@pytest.mark.parametrize(
    "use", [keychain.read, keychain.delete, lambda: keychain.store(Secret(TOKEN))]
)
def test_an_install_without_keyring_is_told_what_to_set(
    monkeypatch: pytest.MonkeyPatch, use: Callable[[], object]
) -> None:
    """The container image leaves keyring out (ADR 0020): each use says what to set instead."""
    for name in ("keyring", "keyring.backends", "keyring.errors"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails
    assert keychain.available() is False
    with pytest.raises(KeychainError, match=r"no keyring package.*SEVDESK_API_TOKEN"):
        use()
