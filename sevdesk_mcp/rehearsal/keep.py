"""Keeping a rehearsal in a file of the user's: the overlay's store, the records written, the
uploaded files and the change log, encrypted with AES-256-GCM under a 32-byte key (Part B takes
it from the keychain), and bound to one sevDesk account.

A file is ``MAGIC | key check | account check | nonce (12 bytes) | ciphertext and tag``. The
associated data is the magic and ``bound_to`` (the account's identity, which the state holds as
well), so a file of another format or of another account does not open; the two checks
(HMAC-SHA256 under the key, of the magic and of the magic and ``bound_to``) only tell which of
the key and the account a file that does not open was made with, for the message.

Inside is a pickle of the overlay's state. It is unpickled only after the tag proved that the
key's holder wrote it, and then only with the exact classes a rehearsal's state is made of
(:data:`ALLOWED`) and no function, so a file forged by the key's holder can build instances of
these classes but call no other code (no ``eval``, no ``getattr`` chain). The one function a
default pickle of the state needs (``getattr``, for ``ZoneInfo._unpickle``) is avoided: time
zones are pickled by their key and Enum members by their value (:class:`_Pickler`), both rebuilt
by calling their class. Files are written with mode 0600, synced and replaced atomically.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import io
import os
import pickle
import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final, cast
from zoneinfo import ZoneInfo

from sevdesk_mcp.errors import StartupError
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.voucher_saves import TempFile, files_of
from sevdesk_mcp.rehearsal.seed import Key
from sevdesk_mcp.safety.rehearsal import RehearsalChange

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC: Final = b"sevdesk-rehearsal\x02"
_FAMILY: Final = b"sevdesk-rehearsal"  # the magic of every version of the format
KEY_BYTES: Final = 32
NONCE_BYTES: Final = 12
CHECK_BYTES: Final = 32
_HEADER: Final = len(MAGIC) + 2 * CHECK_BYTES
ANOTHER_ACCOUNT: Final = (
    "this rehearsal file belongs to another sevDesk account or token: delete it to start a new "
    "rehearsal, or use the account it was made with"
)
# every class a rehearsal's state is built from (found by unpickling a month-end's state and
# collecting what it asks for; tests/rehearsal/test_keep.py checks that it still covers one)
ALLOWED: Final = frozenset(
    {
        ("datetime", "date"),
        ("datetime", "datetime"),
        ("datetime", "timedelta"),
        ("datetime", "timezone"),
        ("decimal", "Decimal"),
        ("zoneinfo", "ZoneInfo"),
        ("sevdesk_mcp.fake.account_rules", "Account"),
        ("sevdesk_mcp.fake.legacy", "AccountingType"),
        ("sevdesk_mcp.fake.documents", "CreditNote"),
        ("sevdesk_mcp.fake.documents", "CreditNotePos"),
        ("sevdesk_mcp.fake.documents", "Invoice"),
        ("sevdesk_mcp.fake.documents", "InvoicePos"),
        ("sevdesk_mcp.fake.documents", "Order"),
        ("sevdesk_mcp.fake.documents", "OrderPos"),
        ("sevdesk_mcp.fake.models", "CheckAccount"),
        ("sevdesk_mcp.fake.models", "CheckAccountTransaction"),
        ("sevdesk_mcp.fake.models", "CheckAccountTransactionLog"),
        ("sevdesk_mcp.fake.models", "CommunicationWay"),
        ("sevdesk_mcp.fake.models", "Contact"),
        ("sevdesk_mcp.fake.models", "ContactAddress"),
        ("sevdesk_mcp.fake.models", "Part"),
        ("sevdesk_mcp.fake.models", "SevClient"),
        ("sevdesk_mcp.fake.models", "SevUser"),
        ("sevdesk_mcp.fake.models", "Tag"),
        ("sevdesk_mcp.fake.models", "TagRelation"),
        ("sevdesk_mcp.fake.receipts", "Voucher"),
        ("sevdesk_mcp.fake.receipts", "VoucherPos"),
        ("sevdesk_mcp.fake.records", "DocumentLog"),
        ("sevdesk_mcp.fake.records", "Email"),
        ("sevdesk_mcp.fake.store", "Store"),
        ("sevdesk_mcp.fake.store", "Table"),
        ("sevdesk_mcp.fake.voucher_saves", "TempFile"),
        ("sevdesk_mcp.fake.wire", "Ref"),
        ("sevdesk_mcp.rehearsal.keep", "Kept"),
        ("sevdesk_mcp.safety.rehearsal", "RehearsalChange"),
    }
)


@dataclass(slots=True)
class Kept:
    """What a kept rehearsal holds."""

    token: str
    store: Store | None  # None: nothing was read or written yet
    temp_files: dict[str, TempFile]
    documents: dict[int, TempFile]
    next_document: int
    written: set[Key]
    changes: list[RehearsalChange]
    bound_to: bytes = b""  # the account's identity (also in the file's associated data)


class _Pickler(pickle.Pickler):
    """Pickles time zones by key and Enum members by value: rebuilt by calling their class,
    where a default pickle calls ``getattr`` (which the unpickler does not have)."""

    def reducer_override(self, obj: object) -> tuple[type, tuple[object, ...]]:
        if isinstance(obj, ZoneInfo) and obj.key is not None:
            return ZoneInfo, (obj.key,)
        if isinstance(obj, enum.Enum):
            return type(obj), (obj.value,)
        return cast("tuple[type, tuple[object, ...]]", NotImplemented)  # the default pickle


class _Unpickler(pickle.Unpickler):
    """Builds only the classes of :data:`ALLOWED`."""

    def find_class(self, module: str, name: str) -> object:
        if (module, name) in ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a kept rehearsal")


def pickled(state: object) -> bytes:
    """:returns: ``state`` (a :class:`Kept`) as a pickle :class:`_Unpickler` can read."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
    return out.getvalue()


def unpickled(plain: bytes) -> object:
    """:returns: what the pickle ``plain`` holds, built from :data:`ALLOWED` only.

    :raises pickle.UnpicklingError: when it names anything else.
    """
    return _Unpickler(io.BytesIO(plain)).load()


# what a store holds since the overlay follows the real number ranges and chart
_STORE_STATE: Final = ("number_formats", "own_accounts", "own_accounting_types")


def _current(store: Store | None) -> bool:
    """:returns: whether a kept store has every part this version's overlay uses."""
    if store is None:
        return True
    return isinstance(store, Store) and all(hasattr(store, name) for name in _STORE_STATE)


def kept_of(
    token: str, store: Store | None, written: set[Key], changes: list[RehearsalChange]
) -> Kept:
    """:returns: the state of a rehearsal, with the uploaded files of its store."""
    if store is None:
        return Kept(token, None, {}, {}, 0, set(written), list(changes))
    files = files_of(store)
    return Kept(
        token, store, dict(files.temp), dict(files.documents), files.next_document,
        set(written), list(changes),
    )  # fmt: skip


def restore_files(kept: Kept) -> None:
    """Give the kept store its uploaded files again."""
    if kept.store is None:
        return
    files = files_of(kept.store)
    files.temp.update(kept.temp_files)
    files.documents.update(kept.documents)
    files.next_document = kept.next_document


def _aead(key: bytes) -> AESGCM:
    """:returns: the cipher for ``key``. :raises StartupError: unless it has 32 bytes."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: PLC0415 - on use

    if len(key) != KEY_BYTES:
        raise StartupError(
            f"The rehearsal key has {len(key)} bytes; it must have {KEY_BYTES} (AES-256): "
            "delete the keychain entry rehearsal-file-key and the rehearsal file, then start "
            "again."
        )
    return AESGCM(key)


def _checks(key: bytes, bound_to: bytes) -> bytes:
    """:returns: the key check and the account check of a file (see the module's text)."""
    mac = hmac.new(key, MAGIC, hashlib.sha256)
    key_check = mac.digest()
    mac.update(bound_to)
    return key_check + mac.digest()


def seal(key: bytes, bound_to: bytes, plain: bytes) -> bytes:
    """:returns: ``plain`` encrypted under ``key`` for the account ``bound_to``, as a file.

    :raises StartupError: for a key that is not 32 bytes long.
    """
    aead = _aead(key)
    nonce = secrets.token_bytes(NONCE_BYTES)
    sealed = aead.encrypt(nonce, plain, MAGIC + bound_to)
    return MAGIC + _checks(key, bound_to) + nonce + sealed


def save(path: Path, key: bytes, kept: Kept, bound_to: bytes) -> None:
    """Write ``kept`` to ``path``, encrypted under ``key`` and bound to the account
    ``bound_to`` (mode 0600, synced, replaced atomically; no temporary file is left behind).

    :raises StartupError: for a key that is not 32 bytes long.
    :raises OSError: when the file cannot be written.
    """
    sealed = seal(key, bound_to, pickled(replace(kept, bound_to=bound_to)))
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(sealed)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def load(path: Path, key: bytes, bound_to: bytes) -> Kept:
    """:returns: the rehearsal kept in ``path`` for the account ``bound_to``.

    :raises StartupError: when the file is not a kept rehearsal, was written under another
        key, for another account, or was changed since (the message names what to do).
    :raises OSError: when the file cannot be read.
    """
    plain = _opened(path, key, bound_to)
    try:  # authenticated: written by the key's holder, and built from known classes only
        kept = unpickled(plain)
    except Exception:  # a forged pickle may fail in any allowed class's constructor
        kept = None
    if not isinstance(kept, Kept) or not _current(kept.store):
        raise StartupError(
            f"{path} holds no rehearsal this version can read; start a new rehearsal."
        )
    if not isinstance(kept.bound_to, bytes) or not hmac.compare_digest(kept.bound_to, bound_to):
        raise StartupError(f"{path}: {ANOTHER_ACCOUNT}")
    return kept


def _opened(path: Path, key: bytes, bound_to: bytes) -> bytes:
    """:returns: the plain text of the file ``path``.

    :raises StartupError: as :func:`load`.
    :raises OSError: when the file cannot be read.
    """
    from cryptography.exceptions import InvalidTag  # noqa: PLC0415 - on use

    aead = _aead(key)
    sealed = path.read_bytes()
    if not sealed.startswith(MAGIC):
        if sealed.startswith(_FAMILY):
            raise StartupError(
                f"{path} holds no rehearsal this version can read; start a new rehearsal."
            )
        raise StartupError(f"{path} is not a kept rehearsal; name the file a rehearsal saved.")
    nonce = sealed[_HEADER : _HEADER + NONCE_BYTES]
    try:
        return aead.decrypt(nonce, sealed[_HEADER + NONCE_BYTES :], MAGIC + bound_to)
    except InvalidTag:
        pass
    checks, expected = sealed[len(MAGIC) : _HEADER], _checks(key, bound_to)
    if hmac.compare_digest(checks[:CHECK_BYTES], expected[:CHECK_BYTES]) and not (
        hmac.compare_digest(checks[CHECK_BYTES:], expected[CHECK_BYTES:])
    ):
        raise StartupError(f"{path}: {ANOTHER_ACCOUNT}")
    raise StartupError(
        f"The kept rehearsal {path} does not open: it was saved under another key or "
        "changed since. Use the key it was saved with, or start a new rehearsal."
    )
