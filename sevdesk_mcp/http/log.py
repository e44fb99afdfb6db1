"""One JSON line per request on stderr, redacted at the sink.

A line carries the time, method, path (cut to :data:`MAX_PATH_CHARS`), status, bytes sent,
duration, client address and the notes the router and the MCP route add (route, MCP method,
refusal reason). It never carries headers, bodies or query strings, and every registered secret
is masked before the line is written, in case one arrives somewhere unexpected (a path).
"""

from __future__ import annotations

import datetime as dt
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import msgspec

from sevdesk_mcp.safety.redact import REDACTOR, Redactor

MAX_PATH_CHARS: Final = 200
LOGGER_NAME: Final = "sevdesk_mcp.http.access"
_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class AccessRecord:
    """What one log line says about one request."""

    method: str
    path: str
    status: int
    sent_bytes: int
    duration_s: float
    client: str
    notes: dict[str, str] = field(default_factory=dict)


class AccessLog:
    """Writes :class:`AccessRecord` s as JSON lines.

    :param sink: receives each finished line (the ``sevdesk_mcp.http.access`` logger by default).
    """

    def __init__(
        self, sink: Callable[[str], None] | None = None, redactor: Redactor = REDACTOR
    ) -> None:
        self._sink = sink or logging.getLogger(LOGGER_NAME).info
        self._redact = redactor

    def write(self, record: AccessRecord) -> None:
        """Write one line."""
        line = {
            "ts": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            "method": record.method[:16],
            "path": record.path[:MAX_PATH_CHARS],
            "status": record.status,
            "bytes": record.sent_bytes,
            "ms": round(record.duration_s * 1000, 1),
            "client": record.client,
            **record.notes,
        }
        self._sink(self._redact(_encoder.encode(line).decode("utf-8")))


def install_access_logger() -> None:
    """Send access lines to stderr as bare JSON, one per line, with nothing else on the line."""
    logger = logging.getLogger(LOGGER_NAME)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.handlers = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False
