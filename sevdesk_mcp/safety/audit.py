"""The audit log (``SEVDESK_AUDIT_LOG``): one JSON line per event, append-only, mode 0600.

Each line starts with ``ts`` (UTC, ISO 8601) and the format version ``v``, then the event and
its fields; secrets are redacted. Writing the ``executing`` line comes before any request: if it
cannot be written, nothing is sent.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Final

import msgspec

from sevdesk_mcp.errors import SafetyError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.redact import REDACTOR

FORMAT_VERSION: Final = 1
_FLAGS: Final = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)


class AuditError(SafetyError):
    """The audit log could not be written."""


class AuditLog:
    """Appends events to a file, or does nothing when no file is configured."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def write(self, event: str, **fields: JsonValue) -> None:
        """Append one event.

        :raises AuditError: if the file cannot be written (the caller must not proceed).
        """
        if self.path is None:
            return
        stamp = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
        line = msgspec.json.encode({"ts": stamp, "v": FORMAT_VERSION, "event": event, **fields})
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
