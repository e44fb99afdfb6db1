"""One JSON line per request on stderr, redacted at the sink.

A line carries the time, method, path (cut to :data:`MAX_PATH_CHARS`), status, bytes sent,
duration, client address and the notes the router and the MCP route add (route, MCP method,
refusal reason, each cut to :data:`MAX_NOTE_CHARS`).

Masking rule (threat F02):

1. Headers, bodies and query strings are never logged; the path is logged without its query.
2. Text the client chose (method, path, note values) is masked *before* it is cut to length, so
   a cut cannot leave a piece of a secret behind, by the process redactor's client rules
   (:meth:`~sevdesk_mcp.safety.redact.Redactor.mask_client_text`): a run of the characters
   secrets are made of (``A-Z a-z 0-9 . _ ~ + / = -`` and percent escapes, compared after
   decoding, ignoring case) is masked whole when it holds :data:`MIN_PIECE_CHARS` (8) or more
   consecutive characters of a registered secret: the whole secret, a prefix, a suffix, any
   piece, anywhere.
3. A likely token is masked even when no registered secret matches it (a wrong or an old
   secret, a sevDesk token pasted into a URL): a run of :data:`MIN_TOKEN_CHARS` (16) or more
   such characters without ``/`` that mixes two of lower case, upper case and digits.
   ``/.well-known/oauth-protected-resource`` or ``notifications/initialized`` stay readable.
4. The finished line passes the process redactor, which knows every registered secret.

Secrets are registered once, with the redactor (:data:`~sevdesk_mcp.safety.redact.REDACTOR`),
where they are read; the redactor holds the pieces of rule 2 too.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import sys
import time
from collections.abc import Callable
from typing import Final

import msgspec

from sevdesk_mcp.safety.redact import (
    CLIENT_PIECE_CHARS,
    MIN_TOKEN_CHARS,
    REDACTOR,
    Redactor,
)

__all__ = [
    "LOGGER_NAME",
    "MAX_METHOD_CHARS",
    "MAX_NOTE_CHARS",
    "MAX_PATH_CHARS",
    "MIN_PIECE_CHARS",
    "MIN_TOKEN_CHARS",
    "AccessLineHandler",
    "AccessLog",
    "AccessRecord",
    "install_access_logger",
    "mask_client_text",
]

MAX_METHOD_CHARS: Final = 16
MAX_PATH_CHARS: Final = 200
MAX_NOTE_CHARS: Final = 64
MIN_PIECE_CHARS: Final = CLIENT_PIECE_CHARS
LOGGER_NAME: Final = "sevdesk_mcp.http.access"
_encoder = msgspec.json.Encoder()


def mask_client_text(text: str, max_chars: int, redactor: Redactor = REDACTOR) -> str:
    """:returns: ``text`` masked by rules 2 and 3 of the module, then cut to ``max_chars``."""
    return redactor.mask_client_text(text, max_chars)


class AccessRecord(msgspec.Struct, frozen=True):
    """What one log line says about one request."""

    method: str
    path: str
    status: int
    sent_bytes: int
    duration_s: float
    client: str
    notes: dict[str, str] = msgspec.field(default_factory=dict)


class _Clock:
    """The line's UTC time to the millisecond, as ``isoformat`` writes it; the part up to the
    second is formatted once a second."""

    __slots__ = ("_prefix", "_second")

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def stamp(self) -> str:
        now = time.time()
        second = int(now)
        if second != self._second:
            moment = dt.datetime.fromtimestamp(second, dt.UTC)
            self._prefix, self._second = moment.isoformat()[:19], second
        return f"{self._prefix}.{int((now - second) * 1000):03d}+00:00"


class AccessLog:
    """Writes :class:`AccessRecord` s as JSON lines, masked by the rules of the module.

    :param sink: receives each finished line (the ``sevdesk_mcp.http.access`` logger, at info
        level, by default).
    :param redactor: masks client text (rules 2 and 3) and every registered secret in the
        finished line (rule 4).
    """

    def __init__(
        self, sink: Callable[[str], None] | None = None, redactor: Redactor = REDACTOR
    ) -> None:
        self._sink = sink or _logger_sink(logging.getLogger(LOGGER_NAME))
        self._redact = redactor
        self._clock = _Clock()

    def write(self, record: AccessRecord) -> None:
        """Write one line."""
        mask = self._redact.mask_client_text
        line = {
            "ts": self._clock.stamp(),
            "method": mask(record.method, MAX_METHOD_CHARS),
            "path": mask(record.path, MAX_PATH_CHARS),
            "status": record.status,
            "bytes": record.sent_bytes,
            "ms": round(record.duration_s * 1000, 1),
            "client": record.client,
            **{name: mask(value, MAX_NOTE_CHARS) for name, value in record.notes.items()},
        }
        self._sink(self._redact(_encoder.encode(line).decode("utf-8")))


def _logger_sink(logger: logging.Logger) -> Callable[[str], None]:
    """:returns: a sink that hands each line to ``logger`` at info level, as ``logger.info``
    does. When the logger is set up as :func:`install_access_logger` leaves it (its one
    handler an :class:`AccessLineHandler`, no filters, no propagation), the line goes to that
    handler's stream directly: nothing else would see the log record."""

    def sink(line: str) -> None:
        if not logger.isEnabledFor(logging.INFO):
            return
        handler = _sole_line_handler(logger)
        if handler is not None:
            handler.write_line(line)
        else:
            logger.handle(logger.makeRecord(logger.name, logging.INFO, "", 0, line, (), None))

    return sink


def _sole_line_handler(logger: logging.Logger) -> AccessLineHandler | None:
    handlers = logger.handlers
    if len(handlers) != 1 or logger.propagate or logger.filters:
        return None
    handler = handlers[0]
    if not isinstance(handler, AccessLineHandler) or handler.filters:
        return None
    return handler if handler.level <= logging.INFO else None


class AccessLineHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes each access line as it is, one per line: the line is finished JSON."""

    def emit(self, record: logging.LogRecord) -> None:
        """Write the record's message and a newline."""
        self.write_line(record.getMessage(), record)

    def write_line(self, line: str, record: logging.LogRecord | None = None) -> None:
        """Write ``line`` and a newline, and flush; a failing stream is reported as logging
        reports it (``handleError``), never raised."""
        try:
            with self.lock or contextlib.nullcontext():
                self.stream.write(line + "\n")
                self.flush()
        except Exception:  # logging's own rule: a log line never raises
            self.handleError(record or logging.makeLogRecord({"msg": line}))


def install_access_logger() -> None:
    """Send access lines to stderr as bare JSON, one per line, with nothing else on the line."""
    logger = logging.getLogger(LOGGER_NAME)
    logger.handlers = [AccessLineHandler(sys.stderr)]
    logger.setLevel(logging.INFO)
    logger.propagate = False
