"""Local files: reading receipts from the folders of ``SEVDESK_FILE_DIRS`` and delivering new
files to ``SEVDESK_OUTPUT_DIR``. Tools reach both only through the :class:`FileAccess` of their
context; no tool touches the file system otherwise.

Reading (:meth:`FileAccess.read`):

- only inside the configured folders (their resolved real paths); a path with ``..`` is
  refused, as is any path whose real path (symlinks followed) leaves the folders;
- the file is opened with ``O_NOFOLLOW`` (and ``O_NONBLOCK``, so a FIFO cannot hang the call),
  and the opened file's device and inode must be those of the real path checked before: a file
  swapped (or replaced by a symlink) between the check and the open is refused;
- regular files only (no FIFOs, devices, sockets or folders), at most :data:`MAX_FILE_BYTES`;
- the type comes from the content (PDF, PNG, JPEG, XML), never from the name; a name whose
  extension claims another type is refused, so a mixed-up file is noticed, not uploaded. XML
  need not start with its (optional) declaration: a comment, a processing instruction or the
  root element will do, never a DOCTYPE; what it may contain is the XML reader's to refuse
  (:mod:`sevdesk_mcp.domain.einvoice.safexml`: no DTD, no entities, capped depth and size);
- over HTTP there are no local folders: the server runs elsewhere, and reading is refused;
  an upload reference (``upload:<id>``, :mod:`sevdesk_mcp.safety.transfers`) is read instead,
  for the grant that requested it only. Its store may be shared (Redis), so the tool fetches it
  first (:meth:`FileAccess.fetch`, async) and ``read`` then answers from what was fetched.

A delivery is always a new file: created exclusively (never overwriting, never following a
symlink), mode 0600, with a name reduced to ``[A-Za-z0-9._-]`` so that text from sevDesk cannot
steer the path. If the name is taken, ``-1``, ``-2``, … is appended.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

import msgspec

from sevdesk_mcp.errors import FileAccessError, TransferRefusedError
from sevdesk_mcp.safety.redact import Undisclosed

MAX_ATTEMPTS: Final = 100
MAX_FILE_BYTES: Final = 20 * 1024 * 1024
MAX_PATH_CHARS: Final = 1024
SETTING: Final = "SEVDESK_FILE_DIRS"
NO_UPLOADS: Final = (
    "'{reference}' is an upload reference, and file transfer is not available on this connection."
)
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")
# XML may begin (after a UTF-8 BOM and whitespace) with its optional declaration or another
# processing instruction, a comment, or the root element: "<" then a name, ended by a space,
# "/" or ">". A DOCTYPE is not admitted in front (e-invoices never carry one).
_NAME: Final = rb"[A-Za-z_:\x80-\xff][-.\w:\x80-\xff]*"
_XML_START: Final = re.compile(
    rb"^(?:\xef\xbb\xbf)?[ \t\r\n]*(?:<\?"
    + _NAME
    + rb"[ \t\r\n?]|<!--|<"
    + _NAME
    + rb"[ \t\r\n/>])"
)
_BRACKET: Final = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t\r\n]*<")
_DOCTYPE: Final = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t\r\n]*<!DOCTYPE", re.IGNORECASE)
EXTENSIONS: Final = {
    "application/pdf": (".pdf",),
    "image/png": (".png",),
    "image/jpeg": (".jpg", ".jpeg"),
    "application/xml": (".xml",),
}
_KNOWN_EXTENSIONS: Final = {ext for exts in EXTENSIONS.values() for ext in exts}


class LocalFile(Undisclosed, msgspec.Struct, frozen=True):
    """A file read from a configured folder: the bytes, and what they were checked to be.

    :param given: the path as the caller gave it (for messages).
    :param path: the real path read.
    :param name: the file's safe name, its extension matching ``media_type``.
    """

    given: str
    path: Path
    name: str
    media_type: str
    data: bytes
    sha256: str

    @property
    def size(self) -> int:
        """:returns: the number of bytes."""
        return len(self.data)


def sniff(data: bytes) -> str | None:
    """:returns: the media type the content shows (PDF, PNG, JPEG, XML), or ``None``."""
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if _XML_START.match(data[:256]):
        return "application/xml"
    return None


class FileAccess(msgspec.Struct, frozen=True):
    """The local files a tool call may read and the folder it may deliver to.

    :param folders: the resolved real paths of ``SEVDESK_FILE_DIRS``.
    :param output_dir: ``SEVDESK_OUTPUT_DIR``, if set.
    :param remote: whether the server runs over HTTP (no local folders then).
    :param fetched: upload files fetched for this call (:meth:`fetch`).
    :param uploads: reads the upload behind ``upload:<id>`` for the current call (over HTTP:
        the transfer store's, given by the tool framework; without it there is none).
    """

    folders: tuple[Path, ...] = ()
    output_dir: Path | None = None
    remote: bool = False
    max_bytes: int = MAX_FILE_BYTES
    fetched: tuple[LocalFile, ...] = ()
    uploads: Callable[[str], Awaitable[LocalFile]] | None = None

    async def fetch(self, given: str) -> FileAccess:
        """Fetch the upload behind ``given`` (over HTTP, ``upload:<id>``) from its store, so
        that :meth:`read` can answer it; any other ``given`` is left to :meth:`read`.

        :returns: this access, with the upload fetched.
        :raises TransferRefusedError: for an upload reference that is not this grant's or not
            filled.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        if not (self.remote and _is_upload(given)):
            return self
        if self.uploads is None:
            raise TransferRefusedError(NO_UPLOADS.format(reference=given[:60]))
        return msgspec.structs.replace(self, fetched=(*self.fetched, await self.uploads(given)))

    def read(self, given: str) -> LocalFile:
        """Read one receipt file (over HTTP: an uploaded one, given as ``upload:<id>``).

        :raises TransferRefusedError: for an upload reference that was not fetched first.
        :raises FileAccessError: naming ``given`` and what to change, if it is outside the
            folders, no regular file, too large, of another type, or changed while being read.
        """
        if self.remote and _is_upload(given):  # HTTP: the human uploaded it
            return self._fetched(given)
        candidate = self._candidate(given)
        real = Path(os.path.realpath(candidate))
        if not any(real.is_relative_to(folder) for folder in self.folders):
            raise FileAccessError(
                f"'{given}' is outside the folders the server may read (it leads to a place "
                f"outside them, through a symlink or an absolute path). Move the file into one "
                f"of the folders of {SETTING}, or add its folder to {SETTING}."
            )
        data = _read_checked(given, real, self.max_bytes)
        media_type = sniff(data)
        if media_type is None:
            raise _unknown_type(given, data)
        suffix = real.suffix.lower()
        if suffix in _KNOWN_EXTENSIONS and suffix not in EXTENSIONS[media_type]:
            raise FileAccessError(
                f"'{given}' is named {suffix} but its content is {_word(media_type)}. Check that "
                "it is the right file, and rename it to match its content."
            )
        stem = safe_name(real.stem if suffix in _KNOWN_EXTENSIONS else real.name)
        name = f"{stem}{EXTENSIONS[media_type][0]}"
        digest = hashlib.sha256(data).hexdigest()
        return LocalFile(given, real, name, media_type, data, digest)

    def _fetched(self, given: str) -> LocalFile:
        for local in self.fetched:
            if local.given == given:
                return local
        raise TransferRefusedError(
            f"The upload '{given[:60]}' was not fetched before it was read (a tool must call "
            "FileAccess.fetch first); nothing was changed."
        )

    def deliver(self, name: str, data: bytes) -> Path | None:
        """Write ``data`` to a new file in ``SEVDESK_OUTPUT_DIR``.

        :returns: the path written, or ``None`` when no output folder is set.
        :raises FileAccessError: if the folder is not writable or no free name was found.
        """
        if self.output_dir is None:
            return None
        try:
            return deliver(self.output_dir, name, data)
        except OSError as exc:
            raise FileAccessError(
                f"Could not write {safe_name(name)} to SEVDESK_OUTPUT_DIR "
                f"({exc.strerror or exc}); check that the folder exists, is writable and has "
                "free space."
            ) from None

    def _candidate(self, given: str) -> Path:
        if self.remote:
            raise FileAccessError(
                f"'{given}' cannot be read: this server runs over HTTP, away from your "
                "computer, and has no local folders. Use a server started on your own machine "
                f"(stdio) with {SETTING} set, or upload the receipt in sevDesk itself."
            )
        if not self.folders:
            raise FileAccessError(
                f"'{given}' cannot be read: no folder is set up for receipt files. Set "
                f"{SETTING} to the absolute path of the folder holding your receipts (several "
                f"separated by '{os.pathsep}') and start the server again."
            )
        text = given.strip()
        if not text or "\x00" in text or len(text) > MAX_PATH_CHARS:
            raise FileAccessError("The file path is empty or malformed; give the file's path.")
        path = Path(text).expanduser()
        if ".." in path.parts:
            raise FileAccessError(
                f"'{given}' contains '..'; give the path inside one of the folders of "
                f"{SETTING} without '..'."
            )
        if path.is_absolute():
            return path
        for folder in self.folders:  # a relative path: the first folder that holds it
            if os.path.lexists(folder / path):
                return folder / path
        return self.folders[0] / path


def _read_checked(given: str, real: Path, cap: int) -> bytes:
    try:
        before = os.stat(real, follow_symlinks=False)
    except FileNotFoundError:
        raise FileAccessError(
            f"'{given}' does not exist. Check the name, or list the folder's files in your "
            "file manager."
        ) from None
    except OSError as exc:
        raise FileAccessError(f"'{given}' cannot be read ({exc.strerror}).") from None
    _refuse_special(given, before)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _changed(given) from None
        raise FileAccessError(f"'{given}' cannot be read ({exc.strerror}).") from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino):
            raise _changed(given)
        _refuse_special(given, opened)
        if opened.st_size > cap:
            raise _too_large(given, cap)
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise _too_large(given, cap)
    return data


def _refuse_special(given: str, info: os.stat_result) -> None:
    if stat.S_ISREG(info.st_mode):
        return
    what = "a folder" if stat.S_ISDIR(info.st_mode) else "no regular file (a pipe or device)"
    if stat.S_ISLNK(info.st_mode):
        what = "a symlink"
    raise FileAccessError(f"'{given}' is {what}; give the path of the receipt file itself.")


def _unknown_type(given: str, data: bytes) -> FileAccessError:
    """:returns: the refusal of content that :func:`sniff` did not recognise, saying what it
    looks like (a DTD in front, text starting with ``<``, anything else)."""
    head = data[:256]
    if _DOCTYPE.match(head):
        return FileAccessError(
            f"'{given}' begins with a DTD (<!DOCTYPE>), which e-invoices never need and attacks "
            "use; it is refused and was not read. Ask the sender for a standard XRechnung or "
            "ZUGFeRD file."
        )
    if _BRACKET.match(head):
        return FileAccessError(
            f"'{given}' starts with '<' but is no XML file: XML begins with its declaration "
            "(<?xml ...?>), a comment, a processing instruction or its root element (such as "
            "<Invoice ...>). Check that it is the invoice file and not a text or HTML note, or "
            "ask the sender for the XML again."
        )
    return FileAccessError(
        f"'{given}' is not a PDF, PNG, JPEG or XML file (judged by its content, not its "
        "name). Export the receipt as PDF or scan it as PNG or JPEG."
    )


def _changed(given: str) -> FileAccessError:
    return FileAccessError(
        f"'{given}' changed while it was being read (it was replaced or became a symlink). "
        "Nothing was read; make sure nothing else writes to the folder and try again."
    )


def _too_large(given: str, cap: int) -> FileAccessError:
    return FileAccessError(
        f"'{given}' is larger than {cap // (1024 * 1024)} MiB. Compress the scan or export "
        "the receipt as a smaller PDF."
    )


def _word(media_type: str) -> str:
    return {
        "application/pdf": "a PDF",
        "image/png": "a PNG image",
        "image/jpeg": "a JPEG image",
        "application/xml": "XML",
    }[media_type]


def safe_name(name: str) -> str:
    """:returns: ``name`` without any path and with only safe characters (never empty)."""
    base = _UNSAFE.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._")
    return base or "file"


def deliver(directory: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to a new file in ``directory``.

    :returns: the path written.
    :raises OSError: if the folder is not writable or no free name was found.
    """
    stem, dot, suffix = safe_name(name).rpartition(".")
    stem, suffix = (stem, f".{suffix}") if dot else (suffix, "")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for attempt in range(MAX_ATTEMPTS):
        path = directory / (f"{stem}{suffix}" if attempt == 0 else f"{stem}-{attempt}{suffix}")
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except OSError:
            path.unlink(missing_ok=True)  # no half-written file left behind (a full disk)
            raise
        return path
    raise FileExistsError(f"no free file name for {stem}{suffix} in the output folder")


def _is_upload(given: str) -> bool:
    return given.strip().startswith("upload:")
