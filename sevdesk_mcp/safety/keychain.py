"""The sevDesk token in the OS keychain, through ``keyring`` (macOS Keychain, Windows
Credential Locker, the Secret Service on Linux desktops).

``keyring`` is imported on first use only: finding its backends takes time that a start-up
with the token in the environment should not spend. An install without ``keyring`` (the
container image, which has no keychain: ADR 0020) is told what to set instead. Every token
read is registered with the redactor before anything else happens to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

from sevdesk_mcp.errors import KeychainError
from sevdesk_mcp.safety.redact import REDACTOR, Secret

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

T = TypeVar("T")
SERVICE: Final = "mcp-server-sevdesk"
DEFAULT_ENTRY: Final = "default"
ENTRY: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
NO_BACKEND: Final = (
    "no OS keychain is available here (on Linux without a desktop session there is no Secret "
    "Service). Set SEVDESK_API_TOKEN or SEVDESK_API_TOKEN_FILE instead, or install and unlock a "
    "keychain (such as gnome-keyring) for this user."
)

NO_KEYRING: Final = (
    "this install has no keyring package (the container image leaves it out: it has no "
    "keychain). Set SEVDESK_API_TOKEN or SEVDESK_API_TOKEN_FILE instead."
)


def check_entry(entry: str) -> str:
    """:returns: ``entry`` if it is a valid keychain entry name.

    :raises KeychainError: otherwise, saying the allowed form.
    """
    if not ENTRY.match(entry):
        raise KeychainError(
            "The keychain entry name must be 1 to 64 letters, digits and . _ @ -, starting "
            "with a letter or digit."
        )
    return entry


def available() -> bool:
    """:returns: whether a usable keychain backend exists."""
    try:
        _backend()
    except KeychainError:
        return False
    return True


def read(entry: str = DEFAULT_ENTRY) -> Secret | None:
    """:returns: the token stored under ``entry``, or ``None`` if there is none.

    :raises KeychainError: if there is no keychain or it refuses to answer.
    """
    backend = _backend()
    value = _call(lambda: backend.get_password(SERVICE, check_entry(entry)))
    if not value:
        return None
    REDACTOR.add(value)
    return Secret(value.strip())


def store(token: Secret, entry: str = DEFAULT_ENTRY) -> None:
    """Store ``token`` under ``entry``, replacing what was there.

    :raises KeychainError: if there is no keychain or it refuses to store.
    """
    backend = _backend()
    _call(lambda: backend.set_password(SERVICE, check_entry(entry), token.reveal()))


def delete(entry: str = DEFAULT_ENTRY) -> bool:
    """Delete the token stored under ``entry``.

    :returns: whether there was one.
    :raises KeychainError: if there is no keychain or it refuses.
    """
    backend = _backend()
    from keyring.errors import PasswordDeleteError  # noqa: PLC0415 - keyring is lazy

    check_entry(entry)
    if _call(lambda: backend.get_password(SERVICE, entry)) is None:
        return False

    def remove() -> bool:
        try:
            backend.delete_password(SERVICE, entry)
        except PasswordDeleteError:  # gone meanwhile
            return False
        return True

    return _call(remove)  # any other refusal (a locked keychain) is a KeychainError


def _backend() -> KeyringBackend:
    """:raises KeychainError: if ``keyring`` is not installed or finds no usable backend."""
    try:
        import keyring  # noqa: PLC0415 - finding the backends is slow; only when asked
        from keyring.backends import chainer, fail, null  # noqa: PLC0415
    except ImportError:
        raise KeychainError(f"Cannot use the keychain: {NO_KEYRING}") from None

    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring | null.Keyring):
        raise KeychainError(f"Cannot use the keychain: {NO_BACKEND}")
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        raise KeychainError(f"Cannot use the keychain: {NO_BACKEND}")
    return backend


def _call(action: Callable[[], T]) -> T:
    from keyring.errors import KeyringError  # noqa: PLC0415 - keyring is lazy

    try:
        return action()
    except KeyringError as exc:
        raise KeychainError(
            f"The keychain refused the request ({type(exc).__name__}); unlock it and try "
            "again, or set SEVDESK_API_TOKEN instead."
        ) from None
