"""The local commands ``token set|check|delete`` (the token in the OS keychain) and
``profiles list``. The command line only dispatches here."""

from __future__ import annotations

import getpass
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Final, TextIO

import anyio
import httpx

from sevdesk_mcp.accounts.profiles import list_profiles, local_environment, profiles_dir
from sevdesk_mcp.config import KEYCHAIN_ENTRY, Config, load_config, load_token, setting
from sevdesk_mcp.errors import AuthenticationError, ConfigError, StartupError, UpstreamError
from sevdesk_mcp.safety import keychain
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate

PROG: Final = "mcp-server-sevdesk"
USAGE: Final = "use: token set, token check or token delete"
Checker = Callable[[Secret, Config], Awaitable[None]]


async def check_with_sevdesk(
    token: Secret, config: Config, transport: httpx.AsyncBaseTransport | None = None
) -> None:
    """Ask sevDesk whether it accepts ``token`` (``GET /Tools/bookkeepingSystemVersion``).

    :raises StartupError: if sevDesk refuses it or cannot be reached, saying what to do.
    """
    gate = WriteGate(tiers=frozenset({Tier.READ}), read_only=True)
    client = SevdeskClient(
        base_url=config.api_url, token=token, gate=gate, proxy=config.proxy, transport=transport
    )
    try:
        await client.system_version()
    except AuthenticationError:
        raise StartupError(
            "sevDesk refused this token (401). Copy it again from sevDesk: Settings > Users > "
            "API token."
        ) from None
    except UpstreamError as exc:
        raise StartupError(f"Could not check the token with sevDesk: {exc}") from None
    finally:
        await client.aclose()


def token_command(
    env: Mapping[str, str],
    operands: Sequence[str],
    *,
    ask: Callable[[str], str] = getpass.getpass,
    check: Checker = check_with_sevdesk,
    out: TextIO = sys.stdout,
) -> int:
    """``token set|check|delete``.

    :returns: the exit status: 0 done, 1 the keychain holds no token (check, delete).
    :raises ConfigError: for a usage error or a malformed token.
    :raises StartupError: if sevDesk refuses the token or cannot be reached.
    :raises KeychainError: if there is no keychain (headless Linux) or it refuses.
    """
    if len(operands) != 1 or operands[0] not in ("set", "check", "delete"):
        raise ConfigError("token", USAGE)
    local = local_environment(env)
    entry = keychain.check_entry(setting(local, KEYCHAIN_ENTRY) or keychain.DEFAULT_ENTRY)
    if operands[0] == "set":
        return _token_set(local, entry, ask, check, out)
    if operands[0] == "check":
        return _token_check(local, entry, check, out)
    found = keychain.delete(entry)
    print(f"{'Deleted' if found else 'There was no'} token in keychain entry {entry!r}.", file=out)
    return 0 if found else 1


def _token_set(
    env: Mapping[str, str], entry: str, ask: Callable[[str], str], check: Checker, out: TextIO
) -> int:
    keychain.read(entry)  # fails early, before asking, when there is no keychain
    try:
        typed = ask("sevDesk API token (not shown): ").strip()
    except (EOFError, KeyboardInterrupt):
        raise ConfigError(
            "token", "no token was typed (the input ended); nothing was stored"
        ) from None
    try:
        token = load_token({"SEVDESK_API_TOKEN": typed})
    except ConfigError as exc:
        raise ConfigError("token", str(exc).removeprefix("SEVDESK_API_TOKEN: ")) from None
    if token is None:
        raise ConfigError("token", "nothing was typed; paste the token from sevDesk")
    anyio.run(check, token, load_config(env))
    keychain.store(token, entry)
    print(f"sevDesk accepted the token; stored it in keychain entry {entry!r}.", file=out)
    return 0


def _token_check(env: Mapping[str, str], entry: str, check: Checker, out: TextIO) -> int:
    token = keychain.read(entry)
    if token is None:
        print(f"The keychain holds no token in entry {entry!r}; run: {PROG} token set", file=out)
        return 1
    anyio.run(check, token, load_config(env))
    print(f"sevDesk accepts the token in keychain entry {entry!r}.", file=out)
    return 0


def profiles_command(
    env: Mapping[str, str], operands: Sequence[str], *, out: TextIO = sys.stdout
) -> int:
    """``profiles list``: every profile and whether it can be used (or why not).

    :returns: 0.
    :raises ConfigError: for a usage error.
    """
    if list(operands) != ["list"]:
        raise ConfigError("profiles", "use: profiles list")
    found = list_profiles(env)
    if not found:
        print(f"No profiles in {profiles_dir(env)}.", file=out)
    for name, status in found:
        print(f"{name}\t{status}", file=out)
    return 0
