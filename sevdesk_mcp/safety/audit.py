"""The audit log (``SEVDESK_AUDIT_LOG``): one JSON line per event, append-only, mode 0600.

Each line starts with ``ts`` (UTC, ISO 8601) and the format version ``v``, then the event, in
bearer mode who acted (``actor``: the auth mode and the sevDesk account's id and name), and
the event's fields; secrets are redacted (every field, then the line). Writing the
``executing`` line comes before any request: if it cannot be written, nothing is sent.

The file is checked when the log is built, at start-up, not at the first write:

- a symbolic link is refused (:class:`~sevdesk_mcp.errors.ConfigError`, exit status 2): whoever
  can change the link could point the log at another file we would append to, or at a place
  others can read, and no mode we set on the link's target would help;
- an existing regular file readable or writable by others (mode wider than 0600) is **narrowed
  to 0600**, with a warning on stderr. Narrowing is chosen over refusing because the condition
  is safely repairable by us: the file is opened without following links (``O_NOFOLLOW``),
  checked to be the file inspected, and changed through that descriptor (``os.fchmod``), so no
  other file can be hit; refusing would stop the server for something its operator would fix
  the same way. Lines already written may have been read while the mode was wider; the warning
  says so. When the mode cannot be changed (another user owns the file) start-up is refused.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import stat
from pathlib import Path
from typing import Final

import msgspec

from sevdesk_mcp.errors import ConfigError, SafetyError
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.redact import REDACTOR

FORMAT_VERSION: Final = 1
FILE_MODE: Final = 0o600
VARIABLE: Final = "SEVDESK_AUDIT_LOG"
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_FLAGS: Final = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW
_NARROW_FLAGS: Final = os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | _NOFOLLOW
log = logging.getLogger("sevdesk_mcp")


class AuditError(SafetyError):
    """The audit log could not be written."""


class AuditLog:
    """Appends events to a file, or does nothing when no file is configured.

    :raises ConfigError: naming ``SEVDESK_AUDIT_LOG`` if the path is a symbolic link, or an
        existing file wider than 0600 that cannot be narrowed.
    """

    def __init__(self, path: Path | None, *, rehearsal: bool = False) -> None:
        self.path = path
        self.actor: JsonObject = {}
        self.rehearsal = rehearsal  # every line then says so: nothing of it reached sevDesk
        if path is not None:
            check_file(path)

    def attribute(self, **actor: JsonValue) -> None:
        """Name who acts in every line from now on, as ``actor`` after the event: where one
        account serves the whole process (bearer mode: the auth mode and the sevDesk account
        id and name read at start-up). Called once at start-up, before the first line."""
        self.actor = dict(actor)

    def write(self, event: str, **fields: JsonValue) -> None:
        """Append one event.

        :raises AuditError: if the file cannot be written (the caller must not proceed).
        """
        if self.path is None:
            return
        stamp = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
        record: JsonObject = {"ts": stamp, "v": FORMAT_VERSION, "event": event}
        if self.actor:
            record["actor"] = self.actor
        if self.rehearsal:
            record["rehearsal"] = True
        record.update(fields)
        line = msgspec.json.encode(REDACTOR.scrub_object(record, deep=True))
        data = REDACTOR(line.decode("utf-8")).encode("utf-8") + b"\n"
        try:
            fd = os.open(self.path, _FLAGS, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            raise AuditError(
                f"The audit log (SEVDESK_AUDIT_LOG) could not be written ({exc.strerror}); "
                "check the file's folder, permissions and free space."
            ) from None


def check_file(path: Path) -> None:
    """Refuse a symbolic link and narrow an existing file that others may read to 0600.

    A missing file is fine: the first write creates it with mode 0600.

    :raises ConfigError: naming ``SEVDESK_AUDIT_LOG`` for a link, a path that cannot be
        inspected, or a wide mode that cannot be narrowed.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(
            VARIABLE,
            f"the file cannot be inspected ({exc.strerror}); check its folder's permissions",
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(
            VARIABLE,
            "the path is a symbolic link, which is refused (the link could redirect the log); "
            "set it to the real file's path, or to a new file in a folder only you can write",
        )
    mode = stat.S_IMODE(info.st_mode)
    if os.name == "posix" and stat.S_ISREG(info.st_mode) and mode & ~FILE_MODE:
        _narrow(path, info, mode)


def _narrow(path: Path, info: os.stat_result, mode: int) -> None:
    """Set the file inspected as ``info`` to mode 0600 through a descriptor opened without
    following links, and warn.

    :raises ConfigError: if it cannot be opened or changed, or was replaced meanwhile.
    """
    refused = f"the file has mode {mode:04o}, wider than {FILE_MODE:04o}, and"
    try:
        fd = os.open(path, _NARROW_FLAGS)
    except OSError as exc:
        raise ConfigError(
            VARIABLE,
            f"{refused} cannot be opened to narrow it ({exc.strerror}); run chmod 600 on it",
        ) from None
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            raise ConfigError(VARIABLE, "the file was replaced while it was checked; start again")
        os.fchmod(fd, FILE_MODE)
    except OSError as exc:
        raise ConfigError(
            VARIABLE, f"{refused} cannot be narrowed ({exc.strerror}); run chmod 600 on it"
        ) from None
    finally:
        os.close(fd)
    log.warning(
        "%s: the audit log had mode %04o, wider than %04o; it is now %04o. If others could "
        "read it, they may have read the lines written before.",
        VARIABLE,
        mode,
        FILE_MODE,
        FILE_MODE,
    )
