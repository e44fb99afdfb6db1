"""One JSON line per request on stderr, redacted at the sink.

A line carries the time, method, path (cut to :data:`MAX_PATH_CHARS`), status, bytes sent,
duration, client address and the notes the router and the MCP route add (route, MCP method,
refusal reason, each cut to :data:`MAX_NOTE_CHARS`).

Masking rule (threat F02):

1. Headers, bodies and query strings are never logged; the path is logged without its query.
2. Text the client chose (method, path, note values) is masked *before* it is cut to length, so
   a cut cannot leave a piece of a secret behind. A run of the characters secrets are made of
   (``A-Z a-z 0-9 . _ ~ + / = -`` and percent escapes, compared after decoding, ignoring case)
   is masked whole when it holds :data:`MIN_PIECE_CHARS` (8) or more consecutive characters of
   a configured bearer secret: the whole secret, a prefix, a suffix, any piece, anywhere.
3. A likely token is masked even when no configured secret matches it (a wrong or an old
   secret, a sevDesk token pasted into a URL): a run of :data:`MIN_TOKEN_CHARS` (16) or more
   such characters without ``/`` that mixes two of lower case, upper case and digits.
   ``/.well-known/oauth-protected-resource`` or ``notifications/initialized`` stay readable.
4. The finished line passes the process redactor, which knows every registered secret.

Bearer secrets are registered with :data:`SECRET_PIECES` where they are read
(``http.settings``), as they are with the redactor.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import unquote

import msgspec

from sevdesk_mcp.safety.redact import MASK, REDACTOR, Redactor

MAX_METHOD_CHARS: Final = 16
MAX_PATH_CHARS: Final = 200
MAX_NOTE_CHARS: Final = 64
MIN_PIECE_CHARS: Final = 8
MIN_TOKEN_CHARS: Final = 16
MIN_TOKEN_CLASSES: Final = 2  # of lower case, upper case, digits
_LOOKAHEAD_CHARS: Final = 64  # masked past the cut, so a run the cut ends is judged whole
LOGGER_NAME: Final = "sevdesk_mcp.http.access"
_SECRET_RUN: Final = re.compile(r"(?:[A-Za-z0-9._~+/=-]|%[0-9A-Fa-f]{2}){8,}")
_SEGMENT_RUN: Final = re.compile(r"(?:[A-Za-z0-9._~+=-]|%(?!2[Ff])[0-9A-Fa-f]{2}){16,}")
_TOKEN: Final = re.compile(rf"[A-Za-z0-9._~+=-]{{{MIN_TOKEN_CHARS},}}")
_CLASSES: Final = (re.compile("[a-z]"), re.compile("[A-Z]"), re.compile("[0-9]"))
_encoder = msgspec.json.Encoder()


class SecretPieces:
    """Every :data:`MIN_PIECE_CHARS`-character piece of the registered secrets (lower case)."""

    def __init__(self) -> None:
        self._pieces: frozenset[str] = frozenset()

    def add(self, secret: str) -> None:
        """Register a secret; one shorter than :data:`MIN_PIECE_CHARS` has no pieces."""
        lower = secret.lower()
        new = {lower[i : i + MIN_PIECE_CHARS] for i in range(len(lower) - MIN_PIECE_CHARS + 1)}
        self._pieces = self._pieces | new  # swapped whole: readers never see a half update

    def found_in(self, text: str) -> bool:
        """:returns: whether ``text`` holds a piece of a registered secret (ignoring case)."""
        pieces = self._pieces
        if not pieces:
            return False
        lower = text.lower()
        n = MIN_PIECE_CHARS
        return any(lower[i : i + n] in pieces for i in range(len(lower) - n + 1))


SECRET_PIECES: Final = SecretPieces()


def mask_client_text(text: str, max_chars: int, pieces: SecretPieces = SECRET_PIECES) -> str:
    """:returns: ``text`` masked by rules 2 and 3 of the module, then cut to ``max_chars``."""
    text = text[: max_chars + _LOOKAHEAD_CHARS]
    text = _SECRET_RUN.sub(lambda run: MASK if pieces.found_in(_decoded(run[0])) else run[0], text)
    text = _SEGMENT_RUN.sub(lambda run: MASK if _holds_token(_decoded(run[0])) else run[0], text)
    return text[:max_chars]


def _decoded(run: str) -> str:
    return unquote(run, errors="replace") if "%" in run else run


def _holds_token(text: str) -> bool:
    """:returns: whether ``text`` holds a likely token (rule 3)."""
    return any(
        sum(1 for cls in _CLASSES if cls.search(token)) >= MIN_TOKEN_CLASSES
        for token in _TOKEN.findall(text)
    )


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
    """Writes :class:`AccessRecord` s as JSON lines, masked by the rules of the module.

    :param sink: receives each finished line (the ``sevdesk_mcp.http.access`` logger by default).
    :param redactor: masks every registered secret in the finished line (rule 4).
    :param pieces: the pieces of the configured bearer secrets (rule 2).
    """

    def __init__(
        self,
        sink: Callable[[str], None] | None = None,
        redactor: Redactor = REDACTOR,
        pieces: SecretPieces = SECRET_PIECES,
    ) -> None:
        self._sink = sink or logging.getLogger(LOGGER_NAME).info
        self._redact = redactor
        self._pieces = pieces

    def write(self, record: AccessRecord) -> None:
        """Write one line."""
        notes = {
            name: mask_client_text(value, MAX_NOTE_CHARS, self._pieces)
            for name, value in record.notes.items()
        }
        line = {
            "ts": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            "method": mask_client_text(record.method, MAX_METHOD_CHARS, self._pieces),
            "path": mask_client_text(record.path, MAX_PATH_CHARS, self._pieces),
            "status": record.status,
            "bytes": record.sent_bytes,
            "ms": round(record.duration_s * 1000, 1),
            "client": record.client,
            **notes,
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
