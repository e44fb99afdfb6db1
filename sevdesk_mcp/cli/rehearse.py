"""``--rehearse`` (``SEVDESK_REHEARSE=on``): the account's client gets a rehearsal as its
transport, in front of the real one (the network to sevDesk, or with ``--demo`` the demo books).
Reads reach the real account; every write stays in the rehearsal's overlay on this machine
(``sevdesk_mcp.rehearsal``), and the account context keeps the rehearsal's log for the report.

A rehearsal is per process: over stdio and in bearer mode one account is served, and its one
rehearsal lives as long as the process, in memory; with ``SEVDESK_REHEARSE_FILE`` it is kept in
that file when the process ends and continued from it at the next start, encrypted (AES-256-GCM)
under a key kept in the OS keychain (entry ``rehearsal-file-key``), never in the file's folder,
and bound to the account it was made with (:func:`account_of`: the API's address and token).
OAuth mode, which serves many accounts, refuses a rehearsal, and so do several instances
sharing state (``SEVDESK_HTTP_STATE_URL``).
"""

from __future__ import annotations

import atexit
import datetime as dt
import hashlib
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.config import Config
from sevdesk_mcp.errors import ConfigError, KeychainError, StartupError
from sevdesk_mcp.safety import keychain
from sevdesk_mcp.safety.redact import REDACTOR, Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer

if TYPE_CHECKING:
    import httpx

    from sevdesk_mcp.rehearsal.transport import Rehearsal

KEY_ENTRY: Final = "rehearsal-file-key"
KEY_BYTES: Final = 32
BANNER: Final = (
    "REHEARSAL MODE: reads come from {source}, every write stays on this machine and is "
    "gone at the end; nothing is sent to sevDesk or to anyone. {tiers}; {approvals}."
)


def network_transport(config: Config) -> httpx.AsyncBaseTransport:
    """:returns: the transport to sevDesk the client would build itself: certificates checked
    with the process's TLS context, through ``SEVDESK_PROXY`` when one is configured (the
    client is then given no proxy: httpx would route around a given transport to reach it)."""
    import httpx  # noqa: PLC0415 - rehearsal only

    from sevdesk_mcp.sevdesk.client import tls_context  # noqa: PLC0415

    return httpx.AsyncHTTPTransport(verify=tls_context(), proxy=config.proxy)


def account_of(api_url: str, token: Secret) -> bytes:
    """:returns: the identity a kept rehearsal is bound to: the SHA-256 of the API's address
    and the token (the token is revealed only to be hashed, and never kept)."""
    return hashlib.sha256(f"{api_url}\0{token.reveal()}".encode()).digest()


def rehearsal_of(
    real: httpx.AsyncBaseTransport,
    config: Config,
    today: Callable[[], dt.date] | None = None,
    *,
    api_url: str,
    token: Secret,
) -> Rehearsal:
    """:returns: a rehearsal in front of ``real``, the account of ``token`` at ``api_url``: the
    transport to give the client, and the log the account context keeps; ``today`` is the
    books' date (the demo books have their own). With ``SEVDESK_REHEARSE_FILE`` it continues
    the rehearsal kept there (if the file exists, and is this account's) and is kept there
    again when the process ends.

    :raises StartupError: if the file's key cannot be had from the keychain, the file does not
        open under it, or it was made with another account or token.
    """
    from sevdesk_mcp.rehearsal.transport import Rehearsal  # noqa: PLC0415 - rehearsal only

    day = today or _today
    path = config.rehearse_file
    if path is None:
        return Rehearsal(real, today=day)
    key, bound_to = file_key(), account_of(api_url, token)
    try:
        kept = Rehearsal.load(path, key, bound_to, real, today=day) if path.exists() else None
    except OSError as exc:
        raise StartupError(
            f"SEVDESK_REHEARSE_FILE {path} cannot be read ({exc.strerror}): check it, or "
            "remove it to start a new rehearsal"
        ) from None
    rehearsal = kept or Rehearsal(real, today=day)
    atexit.register(keep, rehearsal, path, key, bound_to)
    return rehearsal


def _today() -> dt.date:
    """:returns: today in Europe/Berlin, the books' date of a real account."""
    from sevdesk_mcp.safety.locale import BERLIN  # noqa: PLC0415

    return dt.datetime.now(BERLIN).date()


def route_downloads(rehearsal: Rehearsal, real: httpx.AsyncBaseTransport | None = None) -> None:
    """Send this process's export downloads through the rehearsal: the file of an export the
    overlay ran comes from the overlay, every other one from ``real`` (the demo books'
    storage, or by default the network as a download outside a rehearsal goes). Set before the
    event loop starts, so every task sees it."""
    import httpx  # noqa: PLC0415 - rehearsal only

    from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT  # noqa: PLC0415

    FILE_TRANSPORT.set(rehearsal.files(real or httpx.AsyncHTTPTransport()))


def file_key() -> bytes:
    """:returns: the key the kept rehearsal is encrypted with, from the OS keychain; a new one,
    stored there, the first time.

    :raises StartupError: if there is no usable keychain, or its entry holds no key of ours.
    """
    try:
        stored = keychain.read(KEY_ENTRY)
        if stored is None:
            fresh = secrets.token_hex(KEY_BYTES)
            REDACTOR.add(fresh)
            keychain.store(Secret(fresh), KEY_ENTRY)
            return bytes.fromhex(fresh)
        key = bytes.fromhex(stored.reveal())
    except KeychainError as exc:
        raise StartupError(
            f"SEVDESK_REHEARSE_FILE keeps the rehearsal encrypted with a key from the OS "
            f"keychain, and: {exc} Or unset SEVDESK_REHEARSE_FILE (the rehearsal then lives "
            "in memory)."
        ) from None
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise StartupError(
            f"the keychain entry {KEY_ENTRY} (service {keychain.SERVICE}) holds no key of "
            "this server's: delete that entry and the rehearsal file, then start again"
        )
    return key


def keep(rehearsal: Rehearsal, path: Path, key: bytes, bound_to: bytes) -> None:
    """Keep ``rehearsal`` in ``path``, bound to the account ``bound_to`` (at the process's end);
    a failure is said in one line on stderr (the rehearsal is then gone, as one without a file
    would be)."""
    try:
        rehearsal.save(path, key, bound_to)
    except (OSError, StartupError) as exc:
        print(  # noqa: T201
            f"mcp-server-sevdesk: the rehearsal could not be kept in {path} ({exc}); it is gone",
            file=sys.stderr,
        )


def real_reader(rehearsal: Rehearsal, base_url: str, token: Secret, pacer: Pacer) -> SevdeskClient:
    """:returns: a client reading the real account past the rehearsal's overlay (its real
    transport refuses anything but a plain read; so does this client's gate). The real
    transport carries the proxy and the TLS context already."""
    gate = WriteGate(tiers=frozenset({Tier.READ}), read_only=True)
    return SevdeskClient(
        base_url=base_url, token=token, gate=gate, pacer=pacer, transport=rehearsal.real_transport()
    )


def announce(config: Config, source: str, prog: str) -> None:
    """Write the rehearsal's start-up banner on stderr after ``prog``, naming where reads come
    from, what the enabled tiers are and whether approvals are asked."""
    print(f"{prog}: {banner(config, source)}", file=sys.stderr)  # noqa: T201


def banner(config: Config, source: str) -> str:
    """:returns: the start-up banner of a rehearsal reading from ``source``."""
    writes = [str(t) for t in Tier if t is not Tier.READ and config.allows(t)]
    tiers = (
        f"Enabled tiers: read, {', '.join(writes)}"
        if writes
        else "Only the read tier is enabled, so nothing can be rehearsed: set SEVDESK_ALLOW "
        "(e.g. read,write,commit) to rehearse writes"
    )
    if config.dry_run:
        tiers += " (SEVDESK_DRY_RUN is on: write tools only preview)"
    approvals = (
        "approvals are not asked (SEVDESK_REHEARSE_CONFIRM=off)"
        if config.confirm == "off"
        else f"approvals are asked as for real (SEVDESK_CONFIRM={config.confirm})"
    )
    return BANNER.format(source=source, tiers=tiers, approvals=approvals)


def refuse_in_oauth(config: Config) -> None:
    """:raises ConfigError: if a rehearsal is asked for in OAuth mode (many accounts, each
    signing in and out: a rehearsal is one process's, of one account)."""
    if config.rehearse:
        raise ConfigError(
            "SEVDESK_REHEARSE",
            "a rehearsal serves one account per process: use it over stdio or in bearer mode "
            "(SEVDESK_HTTP_AUTH=bearer), not in OAuth mode",
        )


def refuse_shared(config: Config, *, shared: bool) -> None:
    """:raises ConfigError: if a rehearsal is asked for with state shared by several instances
    (``SEVDESK_HTTP_STATE_URL``): each instance would rehearse on a copy of its own."""
    if config.rehearse and shared:
        raise ConfigError(
            "SEVDESK_REHEARSE",
            "a rehearsal lives in one process, and SEVDESK_HTTP_STATE_URL shares the server "
            "between several: unset one of them",
        )
