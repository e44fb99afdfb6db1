"""Files crossing the network in HTTP mode (``SEVDESK_HTTP_FILES``): uploads the human makes for
a tool, and deliveries (PDFs, exports) they download.

- An upload is first *requested* by a tool call (``sevdesk_request_upload``): the record belongs
  to the grant that asked (its principal), its account and the person whose sevDesk token made
  the call (the keyed fingerprint of the token, issue 35). The human fills it once on the upload
  page, signed in with that same token (:class:`Holder`; a colleague of the same account is
  answered as for a slot that does not exist); then ``upload:<id>`` works, for that grant only,
  wherever a tool takes a local path. The model never sees or sends the bytes, and chooses no
  text the page shows.
- A delivery is *offered* by a tool call; the same person downloads it once, signed in, within
  :data:`DOWNLOAD_TTL_S`. The link alone opens nothing.
- Limits per account (:data:`MAX_RECORDS_PER_ACCOUNT`, :data:`MAX_BYTES_PER_ACCOUNT`) and per
  grant (:data:`MAX_RECORDS_PER_GRANT`), whoever asked; every record expires.
- The bytes are sealed with AES-256-GCM under a key drawn per store (one per process), with the
  record id as associated data; they live in memory only and are gone after a restart.

:class:`TransferStore` is the seam, and :class:`Transfers` its one implementation: it makes the
records and takes every decision from :mod:`sevdesk_mcp.safety.transfer_table`, over a
:class:`TransferBackend` that only stores and fetches atomically: :class:`MemoryTransfers` keeps
the records of one process (:class:`MemoryTransferStore`, the default);
:mod:`sevdesk_mcp.safety.transfers_redis` shares them, bytes included, between instances.

The HTTP layer hands the tool call its :class:`Caller` (store, owner, public URL) through
:data:`CALLER`, a context variable; over stdio it is unset and nothing here is reachable.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Final, Literal, Protocol

import msgspec

from sevdesk_mcp.errors import TransferRefusedError
from sevdesk_mcp.safety import transfer_table as table
from sevdesk_mcp.safety.files import EXTENSIONS, LocalFile, safe_name, sniff
from sevdesk_mcp.safety.redact import Undisclosed
from sevdesk_mcp.safety.transfer_table import Action, Limit, Row

UPLOAD_PREFIX: Final = "upload:"
UPLOAD_TTL_S: Final = 30 * 60.0
DOWNLOAD_TTL_S: Final = 10 * 60.0
MAX_UPLOAD_BYTES: Final = 10 * 1024 * 1024
MAX_RECORDS_PER_ACCOUNT: Final = 20
MAX_RECORDS_PER_GRANT: Final = 10
MAX_BYTES_PER_ACCOUNT: Final = 50 * 1024 * 1024
ID_BYTES: Final = 24  # 192 bits
ACCEPTED: Final = tuple(EXTENSIONS)  # PDF, PNG, JPEG, XML
Kind = Literal["upload", "download"]
SLOT_GONE: Final = (
    "This upload link is not valid any more: it expired, was used already, or belongs to "
    "someone else. Ask your assistant for a new upload link."
)
NOT_YOURS: Final = (
    "'{reference}' is no upload reference of this connection (unknown, expired, or requested "
    "by another connection). Call sevdesk_request_upload and ask the user to upload the file on "
    "the page it names."
)
NOT_FILLED: Final = (
    "Nothing was uploaded for '{reference}' yet. Ask the user to upload the file on the upload "
    "page, then call the tool again."
)


class Owner(msgspec.Struct, frozen=True):
    """Who a record belongs to: the grant's principal, its sevDesk account and the person.

    :param person: the keyed fingerprint of the sevDesk token of the call that made it.
    """

    principal: str
    account: str
    person: str = ""


class Holder(msgspec.Struct, frozen=True):
    """Who the pages act for: the person signed in (the keyed fingerprint of the sevDesk token
    of the browser session) and their account."""

    account: str
    person: str

    def holds(self, record: Record) -> bool:
        """:returns: whether ``record`` is this person's (never for an empty person)."""
        owner = record.owner
        return bool(self.person) and owner.person == self.person and owner.account == self.account


class Record(msgspec.Struct, frozen=True):
    """One upload slot or delivery; the bytes stay sealed in the store."""

    id: str
    kind: Kind
    owner: Owner
    expires: float
    name: str = ""
    media_type: str = ""
    size: int = 0
    sha256: str = ""
    filled: bool = False

    @property
    def reference(self) -> str:
        """:returns: ``upload:<id>``, what a tool takes instead of a local path."""
        return UPLOAD_PREFIX + self.id


class Limits(msgspec.Struct, frozen=True):
    """The store's limits (the module's constants by default; tests shrink them)."""

    max_upload_bytes: int = MAX_UPLOAD_BYTES
    max_records_per_account: int = MAX_RECORDS_PER_ACCOUNT
    max_records_per_grant: int = MAX_RECORDS_PER_GRANT
    max_bytes_per_account: int = MAX_BYTES_PER_ACCOUNT
    upload_ttl_s: float = UPLOAD_TTL_S
    download_ttl_s: float = DOWNLOAD_TTL_S


class TransferStore(Protocol):
    """Where uploads and deliveries wait: this process's memory, or the shared state.

    Every method may raise :class:`~sevdesk_mcp.errors.StateUnavailableError` when the shared
    state cannot be reached.
    """

    @property
    def limits(self) -> Limits:
        """The store's limits."""
        ...

    async def request_upload(self, owner: Owner) -> Record:
        """:returns: a new, empty upload slot of ``owner``.

        :raises TransferRefusedError: if the grant or the account holds too many records.
        """
        ...

    async def offer(self, owner: Owner, name: str, media_type: str, data: bytes) -> Record:
        """:returns: a delivery of ``data`` for ``owner`` to download once.

        :raises TransferRefusedError: if a limit would be exceeded.
        """
        ...

    async def slot(self, record_id: str, holder: Holder) -> Record | None:
        """:returns: the unexpired, still empty upload slot ``record_id`` of ``holder``."""
        ...

    async def pending_uploads(self, holder: Holder) -> list[Record]:
        """:returns: the empty upload slots of ``holder``, oldest first."""
        ...

    async def fill(self, record_id: str, holder: Holder, upload: Upload) -> Record:
        """Store the human's file in the slot ``record_id`` of ``holder``, once.

        :raises TransferRefusedError: naming what was wrong: an unknown, expired, filled or
            foreign slot, a file over the size limit, an unknown type, a declared type or
            file name that does not match the content, or the account's byte limit (a slot of
            another person is refused as an unknown one).
        """
        ...

    async def read_upload(self, reference: str, principal: str) -> LocalFile:
        """:returns: the file behind ``upload:<id>`` for the grant ``principal``.

        :raises TransferRefusedError: if it is unknown, expired, still empty, or another
            grant's.
        """
        ...

    async def download(self, record_id: str, holder: Holder) -> tuple[Record, bytes] | None:
        """:returns: the delivery and its bytes, used up now (once, whichever instance asks);
        ``None`` if it is unknown, expired, downloaded already or another person's."""
        ...

    async def peek(self, record_id: str, holder: Holder) -> Record | None:
        """:returns: the unexpired delivery ``record_id`` of ``holder``, not using it up."""
        ...


class TransferBackend(Protocol):
    """Where records and their bytes wait; it decides nothing (the rows it checks come from
    :mod:`~sevdesk_mcp.safety.transfer_table`). Every method may raise
    :class:`~sevdesk_mcp.errors.StateUnavailableError`."""

    async def add(
        self, record: Record, data: bytes | None, ttl_s: float, rows: list[Row]
    ) -> tuple[Limit, int] | None:
        """Store ``record`` (with ``data``, sealed, for a delivery) for ``ttl_s``, atomically
        only if what its account and grant hold fits ``rows``.

        :returns: the first row refused and what it held, or ``None`` once stored.
        """
        ...

    async def get(self, record_id: str) -> Record | None:
        """:returns: the stored record ``record_id`` (whether it is live is the store's
        judgement), or ``None``."""
        ...

    async def listed(self, account: str) -> list[Record]:
        """:returns: the stored records of ``account``, oldest first."""
        ...

    async def put_file(
        self, found: Record, filled: Record, data: bytes, rows: list[Row]
    ) -> Literal["ok", "gone", "bytes"]:
        """Replace the slot ``found`` by ``filled`` with ``data``, only if it is still the
        empty slot fetched (else ``gone``) and the account's bytes fit ``rows`` (else
        ``bytes``)."""
        ...

    async def data(self, record_id: str) -> bytes | None:
        """:returns: the bytes of the record ``record_id``, or ``None``."""
        ...

    async def take(self, found: Record) -> bytes | None:
        """Remove the delivery ``found`` in one atomic step.

        :returns: its bytes if this call removed it, else ``None``.
        """
        ...


class Transfers:
    """The one :class:`TransferStore`: new records and every decision of
    :mod:`~sevdesk_mcp.safety.transfer_table`, over a :class:`TransferBackend`.

    :param clock: seconds since the epoch, by which a record's expiry is judged.
    """

    def __init__(
        self,
        backend: TransferBackend,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._backend = backend
        self.limits = limits or Limits()
        self._clock = clock

    async def request_upload(self, owner: Owner) -> Record:
        """See :meth:`TransferStore.request_upload`."""
        record = Record(_new_id(), "upload", owner, self._expiry("upload"))
        await self._add(record, None)
        return record

    async def offer(self, owner: Owner, name: str, media_type: str, data: bytes) -> Record:
        """See :meth:`TransferStore.offer`."""
        record = delivery(_new_id(), owner, self._expiry("download"), name, media_type, data)
        await self._add(record, data)
        return record

    async def slot(self, record_id: str, holder: Holder) -> Record | None:
        """See :meth:`TransferStore.slot`."""
        return await self._serving("slot", record_id, holder)

    async def pending_uploads(self, holder: Holder) -> list[Record]:
        """See :meth:`TransferStore.pending_uploads`."""
        now = self._clock()
        listed = await self._backend.listed(holder.account)
        return [r for r in listed if table.serves("slot", r, holder, now)]

    async def fill(self, record_id: str, holder: Holder, upload: Upload) -> Record:
        """See :meth:`TransferStore.fill`."""
        found = await self._serving("fill", record_id, holder)
        if found is None:
            raise TransferRefusedError(SLOT_GONE)
        filled = filled_slot(found, upload, self.limits)
        rows = table.filling(self.limits, filled.size)
        answer = await self._backend.put_file(found, filled, upload.data, rows)
        if answer == "bytes":
            raise too_many_bytes(self.limits)
        if answer != "ok":
            raise TransferRefusedError(SLOT_GONE)
        return filled

    async def read_upload(self, reference: str, principal: str) -> LocalFile:
        """See :meth:`TransferStore.read_upload`."""
        record_id = reference.strip().removeprefix(UPLOAD_PREFIX)
        record = await self._backend.get(record_id) if record_id else None
        answer = table.read(record, principal, self._clock())
        if answer == "not_yours" or record is None:
            raise TransferRefusedError(NOT_YOURS.format(reference=reference[:60]))
        data = await self._backend.data(record_id) if answer == "ok" else None
        if data is None:
            raise TransferRefusedError(NOT_FILLED.format(reference=reference[:60]))
        return local_file(reference, record, data)

    async def download(self, record_id: str, holder: Holder) -> tuple[Record, bytes] | None:
        """See :meth:`TransferStore.download`."""
        found = await self._serving("download", record_id, holder)
        data = await self._backend.take(found) if found is not None else None
        return (found, data) if found is not None and data is not None else None

    async def peek(self, record_id: str, holder: Holder) -> Record | None:
        """See :meth:`TransferStore.peek`."""
        return await self._serving("peek", record_id, holder)

    async def _serving(self, action: Action, record_id: str, holder: Holder) -> Record | None:
        record = await self._backend.get(record_id) if record_id else None
        return record if table.serves(action, record, holder, self._clock()) else None

    async def _add(self, record: Record, data: bytes | None) -> None:
        ttl = self._ttl(record.kind)
        full = await self._backend.add(record, data, ttl, table.admission(self.limits, record.size))
        if full is None:
            return
        what, held = full
        if what == "account":
            raise too_many_files(held, self.limits.max_records_per_account, "This account")
        if what == "grant":
            limit = self.limits.max_records_per_grant
            raise too_many_files(held, limit, "This connection (grant)")
        raise too_many_bytes(self.limits)

    def now(self) -> float:
        """:returns: the store's clock, by which every record's expiry is judged."""
        return self._clock()

    def _ttl(self, kind: Kind) -> float:
        return self.limits.upload_ttl_s if kind == "upload" else self.limits.download_ttl_s

    def _expiry(self, kind: Kind) -> float:
        return self._clock() + self._ttl(kind)


class MemoryTransfers:
    """The records of one process (:class:`TransferBackend`); every method holds the lock.
    The bytes are sealed under a key drawn for this backend.

    :param clock: seconds since the epoch, by which expired records are dropped.
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        # imported here: every tool module imports this one, and stdio or bearer mode never
        # makes a store (the cipher costs about 6 MiB of resident memory)
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: PLC0415

        self._aead = AESGCM(AESGCM.generate_key(bit_length=256))
        self._lock = threading.Lock()
        self._records: dict[str, Record] = {}
        self._sealed: dict[str, bytes] = {}

    async def add(
        self, record: Record, data: bytes | None, ttl_s: float, rows: list[Row]
    ) -> tuple[Limit, int] | None:
        """See :meth:`TransferBackend.add` (``ttl_s``: the record's own expiry decides)."""
        del ttl_s
        with self._lock:
            self._prune()
            mine = [r for r in self._records.values() if r.owner.account == record.owner.account]
            grant = sum(r.owner.principal == record.owner.principal for r in mine)
            held: dict[Limit, int] = {"account": len(mine), "grant": grant}
            held["bytes"] = sum(r.size for r in mine)
            full = table.refused(held, rows)
            if full is None:
                self._records[record.id] = record
                if data is not None:
                    self._sealed[record.id] = self._seal(record.id, data)
            return full

    async def get(self, record_id: str) -> Record | None:
        """See :meth:`TransferBackend.get`."""
        with self._lock:
            self._prune()
            return self._records.get(record_id)

    async def listed(self, account: str) -> list[Record]:
        """See :meth:`TransferBackend.listed`."""
        with self._lock:
            self._prune()
            return [r for r in self._records.values() if r.owner.account == account]

    async def put_file(
        self, found: Record, filled: Record, data: bytes, rows: list[Row]
    ) -> Literal["ok", "gone", "bytes"]:
        """See :meth:`TransferBackend.put_file`."""
        with self._lock:
            self._prune()
            if self._records.get(found.id) != found:
                return "gone"
            account = found.owner.account
            held = sum(r.size for r in self._records.values() if r.owner.account == account)
            if table.refused({"account": 0, "grant": 0, "bytes": held}, rows) is not None:
                return "bytes"
            self._records[found.id] = filled
            self._sealed[found.id] = self._seal(found.id, data)
            return "ok"

    async def data(self, record_id: str) -> bytes | None:
        """See :meth:`TransferBackend.data`."""
        with self._lock:
            self._prune()
            sealed = self._sealed.get(record_id)
        return None if sealed is None else self._open(record_id, sealed)

    async def take(self, found: Record) -> bytes | None:
        """See :meth:`TransferBackend.take`."""
        with self._lock:
            self._prune()
            if self._records.get(found.id) != found:
                return None
            del self._records[found.id]
            sealed = self._sealed.pop(found.id)
        return self._open(found.id, sealed)

    def _prune(self) -> None:
        now = self._clock()
        for record_id in [k for k, r in self._records.items() if not table.live(r.expires, now)]:
            del self._records[record_id]
            self._sealed.pop(record_id, None)

    def _seal(self, record_id: str, data: bytes) -> bytes:
        nonce = secrets.token_bytes(12)
        return nonce + self._aead.encrypt(nonce, data, record_id.encode())

    def _open(self, record_id: str, sealed: bytes) -> bytes:
        return self._aead.decrypt(sealed[:12], sealed[12:], record_id.encode())


class MemoryTransferStore(Transfers):
    """The uploads and deliveries of one process (:class:`TransferStore`).

    :param clock: seconds since the epoch (injectable for tests).
    """

    def __init__(
        self, limits: Limits | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        # the backend drops what the store's clock, read each time, says has expired
        super().__init__(MemoryTransfers(self.now), limits, clock)


def _new_id() -> str:
    return secrets.token_urlsafe(ID_BYTES)


def delivery(  # noqa: PLR0913, PLR0917 - the parts of a delivery
    record_id: str, owner: Owner, expires: float, name: str, media_type: str, data: bytes
) -> Record:
    """:returns: the record of a delivery of ``data``."""
    return Record(
        record_id,
        "download",
        owner,
        expires,
        name=safe_name(name),
        media_type=media_type,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        filled=True,
    )


def filled_slot(record: Record, upload: Upload, limits: Limits) -> Record:
    """:returns: the upload slot ``record`` filled with ``upload``.

    :raises TransferRefusedError: as :func:`checked_type`.
    """
    media_type = checked_type(upload, limits.max_upload_bytes)
    return msgspec.structs.replace(
        record,
        name=_file_name(upload.filename, media_type),
        media_type=media_type,
        size=len(upload.data),
        sha256=hashlib.sha256(upload.data).hexdigest(),
        filled=True,
    )


def local_file(reference: str, record: Record, data: bytes) -> LocalFile:
    """:returns: the uploaded file of ``record`` as a tool reads it."""
    name, media_type = record.name, record.media_type
    return LocalFile(reference, Path(reference), name, media_type, data, record.sha256)


def too_many_files(held: int, limit: int, who: str) -> TransferRefusedError:
    """:returns: the error for an account or grant (``who``) at its record limit."""
    return TransferRefusedError(
        f"{who} already holds {held} files waiting for upload or download, its limit of "
        f"{limit}. Let the user finish or let them expire (downloads after 10, uploads after 30 "
        "minutes), then try again."
    )


def too_many_bytes(limits: Limits) -> TransferRefusedError:
    """:returns: the error for an account whose files would exceed its byte limit."""
    limit = limits.max_bytes_per_account // (1024 * 1024)
    return TransferRefusedError(
        f"This account's files on the server would exceed {limit} MiB. Download or let the "
        "earlier files expire, then try again."
    )


class Upload(Undisclosed, msgspec.Struct, frozen=True):
    """A file as the browser sent it: the bytes, the type it claims and its name."""

    data: bytes
    declared_type: str
    filename: str


def checked_type(upload: Upload, max_bytes: int) -> str:
    """:returns: the media type the content shows.

    :raises TransferRefusedError: for an empty or oversized file, an unknown type, or a
        declared type or name extension that contradicts the content.
    """
    if not upload.data:
        raise TransferRefusedError("The file is empty. Choose the receipt file again.")
    if len(upload.data) > max_bytes:
        raise TransferRefusedError(
            f"The file is larger than {max_bytes // (1024 * 1024)} MiB. Compress the scan or "
            "export the receipt as a smaller PDF."
        )
    media_type = sniff(upload.data)
    if media_type is None:
        raise TransferRefusedError(
            "The file is not a PDF, PNG, JPEG or XML file (judged by its content). Export the "
            "receipt as PDF or scan it as PNG or JPEG."
        )
    declared = upload.declared_type.partition(";")[0].strip().lower()
    generic = ("", "application/octet-stream", "text/xml")
    if declared not in generic and declared != media_type:
        raise TransferRefusedError(
            f"The file claims to be {declared[:60]} but its content is {media_type}. Check "
            "that it is the right file."
        )
    suffix = Path(safe_name(upload.filename)).suffix.lower()
    known = {ext for exts in EXTENSIONS.values() for ext in exts}
    if suffix in known and suffix not in EXTENSIONS[media_type]:
        raise TransferRefusedError(
            f"The file is named {suffix} but its content is {media_type}. Rename it to match "
            "its content, or choose the right file."
        )
    return media_type


def _file_name(filename: str, media_type: str) -> str:
    stem = Path(safe_name(filename)).stem or "upload"
    return f"{safe_name(stem)[:80]}{EXTENSIONS[media_type][0]}"


class Caller(msgspec.Struct, frozen=True):
    """Who a tool call runs for over HTTP, and where its pages are.

    :param base_url: the server's public URL (upload and download pages hang below it).
    """

    store: TransferStore
    owner: Owner
    base_url: str

    def upload_url(self, record: Record) -> str:
        """:returns: the page where the human uploads the file of ``record``."""
        return f"{self.base_url}/upload?id={record.id}"

    def download_url(self, record: Record) -> str:
        """:returns: the page where the human downloads ``record`` (not a capability: it
        needs a signed-in browser session of the account)."""
        return f"{self.base_url}/download?id={record.id}"


CALLER: ContextVar[Caller | None] = ContextVar("sevdesk_transfer_caller", default=None)


async def read_upload(reference: str) -> LocalFile:
    """:returns: the uploaded file behind ``upload:<id>`` for the current tool call.

    :raises TransferRefusedError: without file transfer on this connection, or as
        :meth:`TransferStore.read_upload`.
    """
    caller = CALLER.get()
    if caller is None:
        raise TransferRefusedError(
            f"'{reference[:60]}' is an upload reference, and file transfer is not available "
            "on this connection (only a server over HTTP in OAuth mode with file transfer on "
            "has it). On a server on your own machine (stdio) give the file's local path in a "
            "folder of SEVDESK_FILE_DIRS instead."
        )
    return await caller.store.read_upload(reference, caller.owner.principal)
