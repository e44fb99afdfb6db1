"""Secrets that must never be shown: a wrapper for secret values, the process's one redactor,
and a mixin that keeps file content and credentials out of a Struct's repr.

Every secret is registered with :data:`REDACTOR` where it is loaded (the sevDesk token in
``config.load_token`` and the client, the HTTP bearer secrets, current and previous, in
``http.settings``, keys with :meth:`Redactor.add_key`). Every text that leaves the process
passes it at the sink: JSON-RPC answers and server-to-client messages (the dispatcher), log
records (:class:`RedactingFilter`), the HTTP access log and the audit log.

A registered secret is masked

- in the forms it takes when it is quoted: as is, JSON-escaped and percent-encoded, in any case
  (sevDesk echoes headers in error texts, sometimes behind ``Bearer`` or ``Authorization:``);
- in pieces: any run of secret characters holding :data:`FRAGMENT_CHARS` consecutive characters
  of a secret is masked whole, so a secret cut off by a length cap or split in two is masked too.

Text a client chose (the HTTP access log's method, path and notes) is masked more strictly, before
it is cut to length (:meth:`Redactor.mask_client_text`):

- a run of secret characters (percent escapes decoded, case ignored) holding
  :data:`CLIENT_PIECE_CHARS` (8) consecutive characters of a registered secret is masked whole:
  a client may send a prefix, a suffix or any piece of a secret it guessed or was given;
- a likely token is masked even when no registered secret matches it (a wrong or an old secret,
  a sevDesk token pasted into a URL): a run of :data:`MIN_TOKEN_CHARS` (16) or more such
  characters without ``/`` that mixes two of lower case, upper case and digits.
  ``/.well-known/oauth-protected-resource`` or ``notifications/initialized`` stay readable.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final
from urllib.parse import quote, quote_plus, unquote

import msgspec

from sevdesk_mcp.jsontypes import JsonObject, JsonValue

MASK: Final = "[redacted]"
MIN_SECRET_CHARS: Final = 8
FRAGMENT_CHARS: Final = 16
PROBE_CHARS: Final = FRAGMENT_CHARS // 2
_RUN: Final = re.compile(rf"[A-Za-z0-9_.~+/=-]{{{FRAGMENT_CHARS},}}")  # what secrets are made of
CLIENT_PIECE_CHARS: Final = 8
MIN_TOKEN_CHARS: Final = 16
MIN_TOKEN_CLASSES: Final = 2  # of lower case, upper case, digits
CLIENT_LOOKAHEAD_CHARS: Final = 64  # masked past the cut, so a run the cut ends is judged whole
CLIENT_CACHE_SIZE: Final = 256  # masked client texts remembered (a log line repeats most)
CLEAN_CACHE_BYTES: Final = 1024 * 1024  # encoded texts remembered as clean, in all
CLEAN_ENTRY_BYTES: Final = 64 * 1024  # the largest text remembered (a whole tools/list fits)
_SECRET_RUN: Final = re.compile(r"(?:[A-Za-z0-9._~+/=-]|%[0-9A-Fa-f]{2}){8,}")
_SEGMENT_RUN: Final = re.compile(r"(?:[A-Za-z0-9._~+=-]|%(?!2[Ff])[0-9A-Fa-f]{2}){16,}")
_TOKEN: Final = re.compile(rf"[A-Za-z0-9._~+=-]{{{MIN_TOKEN_CHARS},}}")
_CLASSES: Final = (re.compile("[a-z]"), re.compile("[A-Z]"), re.compile("[0-9]"))


class Undisclosed:
    """A mixin for msgspec Structs that carry file content or credentials: their ``repr`` and
    rich's view show a byte string as its length and leave out the fields in ``HIDDEN``
    (msgspec's own show every field, so a logged upload or lease would carry its content)."""

    __slots__ = ()
    HIDDEN: ClassVar[frozenset[str]] = frozenset()

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        names = getattr(type(self), "__struct_fields__", ())
        shown = [(name, getattr(self, name)) for name in names if name not in self.HIDDEN]
        return [(name, _Size(len(v)) if isinstance(v, bytes) else v) for name, v in shown]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.__rich_repr__())
        return f"{type(self).__name__}({shown})"


class _Size(int):
    """A byte string's length, shown as such."""

    def __repr__(self) -> str:
        return f"<{int(self)} bytes>"


class Secret:
    """A secret string whose ``repr`` and ``str`` never reveal it; ``reveal()`` does."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """:returns: the secret itself, for the one place that must send it."""
        return self._value

    def __repr__(self) -> str:
        return f"Secret({MASK})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


class _CleanTexts:
    """Encoded texts found clean under one set of rules, at most :data:`CLEAN_CACHE_BYTES`.

    The same text under the same rules is clean again, so a repeated answer (``tools/list``,
    a status, a reference list) is looked up, not searched: hashing 2 KB costs about 1 µs, the
    probes about 1 µs each.
    """

    __slots__ = ("_seen", "_size")

    def __init__(self) -> None:
        self._seen: dict[bytes, None] = {}
        self._size = 0

    def __contains__(self, data: bytes) -> bool:
        return data in self._seen

    def add(self, data: bytes) -> None:
        """Remember ``data`` as clean (a text over :data:`CLEAN_ENTRY_BYTES` is not kept)."""
        if len(data) > CLEAN_ENTRY_BYTES:
            return
        if self._size + len(data) > CLEAN_CACHE_BYTES:
            self._seen.clear()
            self._size = 0
        self._seen[data] = None
        self._size += len(data)


@dataclass(frozen=True, slots=True)
class _Rules:
    """What the redactor knows, swapped whole when a secret is added (readers never lock)."""

    forms: frozenset[str] = frozenset()
    fragments: frozenset[str] = frozenset()
    probes: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None
    client_pieces: frozenset[str] = frozenset()
    client_masked: dict[tuple[str, int], str] = field(default_factory=dict, compare=False)
    clean: _CleanTexts = field(default_factory=_CleanTexts, compare=False)


class Redactor:
    """Replaces every registered secret in text by :data:`MASK`; safe to use from any thread.

    Text that holds none of the probes (the first :data:`PROBE_CHARS` characters of each form
    and every :data:`PROBE_CHARS`-aligned block of each secret, lower case) cannot hold a
    secret or a piece of one: that check is a few substring searches, so clean text, however
    long (a PDF as base64), costs little; only text with a probe is searched properly.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules = _Rules()

    def add(self, secret: str) -> None:
        """Register a secret; very short strings are ignored (they would mask ordinary text)."""
        if len(secret) < MIN_SECRET_CHARS:
            return
        forms = _quoted_forms(secret)
        with self._lock:
            rules = self._rules
            if forms <= rules.forms:
                return
            every = rules.forms | forms
            ordered = sorted(every, key=len, reverse=True)  # the longest form wins
            fragments = rules.fragments | _fragments(secret)
            self._rules = _Rules(
                forms=every,
                fragments=fragments,
                probes=tuple(sorted(set(rules.probes) | _probes(secret, forms))),
                pattern=re.compile("|".join(map(re.escape, ordered)), re.IGNORECASE),
                client_pieces=rules.client_pieces | _client_pieces(secret),
            )

    def add_key(self, key: bytes) -> None:
        """Register a binary key in the text forms it could be shown in: hex and base64
        (standard and URL-safe, with and without padding)."""
        for text in (
            key.hex(),
            base64.b64encode(key).decode("ascii"),
            base64.urlsafe_b64encode(key).decode("ascii"),
        ):
            self.add(text)
            self.add(text.rstrip("="))  # the unpadded form, as tokens and URLs carry it

    def __call__(self, text: str) -> str:
        """:returns: ``text`` with every registered secret, and every piece of one, masked."""
        rules = self._rules
        if rules.pattern is None or not _probed(text, rules.probes):
            return text
        text = rules.pattern.sub(MASK, text)
        fragments = rules.fragments
        return _RUN.sub(lambda run: MASK if _holds(run[0], fragments) else run[0], text)

    def mask_client_text(self, text: str, max_chars: int) -> str:
        """:returns: text a client chose, masked by the client rules of the module, then cut to
        ``max_chars`` (the same text is masked once, until a secret is added)."""
        text = text[: max_chars + CLIENT_LOOKAHEAD_CHARS]
        rules = self._rules
        masked = rules.client_masked.get((text, max_chars))
        if masked is None:
            masked = _mask_client_text(text, rules.client_pieces)[:max_chars]
            if len(rules.client_masked) >= CLIENT_CACHE_SIZE:
                rules.client_masked.clear()
            rules.client_masked[text, max_chars] = masked
        return masked

    def finds(self, text: str) -> bool:
        """:returns: whether ``text`` holds a registered secret or a piece of one."""
        return self(text) != text

    def scrub(self, value: JsonValue) -> JsonValue:
        """:returns: a copy of JSON data with every string (keys too) redacted."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            return [self.scrub(item) for item in value]
        if isinstance(value, dict):
            return self.scrub_object(value, deep=True)
        return value

    def scrub_object(self, obj: JsonObject, *, deep: bool = False) -> JsonObject:
        """:returns: ``obj`` itself if its JSON text holds no secret, else a redacted copy.

        The check runs once over the encoded text (secret characters are never escaped, and
        the escaped forms are registered too), so a clean answer costs one scan, not a walk.

        :param deep: walk without checking first (the caller already found a secret).
        """
        if not deep:
            if self._rules.pattern is None:
                return obj
            try:
                if not self.finds(msgspec.json.encode(obj).decode("utf-8")):
                    return obj
            except (TypeError, msgspec.EncodeError):
                pass  # not plain JSON data: walk it
        return {self(key): self.scrub(item) for key, item in obj.items()}

    def scrub_encoded(
        self, obj: JsonObject, encode: Callable[[JsonObject], bytes]
    ) -> tuple[JsonObject, bytes]:
        """:returns: ``obj`` and ``encode(obj)`` if that JSON text holds no secret, else a
        redacted copy and its encoding: a clean object is encoded once, for the check and for
        sending (as :meth:`scrub_object` checks it, on the encoded text). A text found clean
        before, under the same secrets, is not searched again.

        :raises TypeError: (or ``msgspec.EncodeError``) if the copy cannot be encoded either.
        """
        try:
            data = encode(obj)
        except (TypeError, msgspec.EncodeError):
            obj = self.scrub_object(obj, deep=True)  # not plain JSON data: walk it
            return obj, encode(obj)
        rules = self._rules
        if rules.pattern is None or data in rules.clean:
            return obj, data
        if self.finds(data.decode("utf-8")):
            obj = self.scrub_object(obj, deep=True)
            return obj, encode(obj)
        rules.clean.add(data)
        return obj, data


def _quoted_forms(secret: str) -> frozenset[str]:
    """:returns: ``secret`` as is, JSON-escaped and percent-encoded."""
    return frozenset(
        {
            secret,
            json.dumps(secret)[1:-1],
            json.dumps(secret, ensure_ascii=False)[1:-1],
            quote(secret, safe=""),
            quote_plus(secret, safe=""),
        }
    )


def _fragments(secret: str) -> frozenset[str]:
    """:returns: every piece of :data:`FRAGMENT_CHARS` characters of the secret's runs, lower
    case (runs of the characters secrets are made of; other characters end a piece)."""
    pieces: set[str] = set()
    for run in _RUN.findall(secret.lower()):
        pieces.update(run[i : i + FRAGMENT_CHARS] for i in range(len(run) - FRAGMENT_CHARS + 1))
    return frozenset(pieces)


def _probes(secret: str, forms: frozenset[str]) -> set[str]:
    """:returns: the start of each form and each aligned block of the secret's runs, lower
    case. Every form starts with its probe; every piece of :data:`FRAGMENT_CHARS` characters
    of a run holds one whole block, as blocks are at most half that long."""
    probes = {form[:PROBE_CHARS].lower() for form in forms}
    for run in _RUN.findall(secret.lower()):
        probes.update(
            run[i : i + PROBE_CHARS] for i in range(0, len(run) - PROBE_CHARS + 1, PROBE_CHARS)
        )
    return probes


def _client_pieces(secret: str) -> frozenset[str]:
    """:returns: every piece of :data:`CLIENT_PIECE_CHARS` characters of ``secret``, lower case."""
    lower, n = secret.lower(), CLIENT_PIECE_CHARS
    return frozenset(lower[i : i + n] for i in range(len(lower) - n + 1))


def _mask_client_text(text: str, pieces: frozenset[str]) -> str:
    text = _SECRET_RUN.sub(
        lambda run: MASK if _has_piece(_decoded(run[0]), pieces) else run[0], text
    )
    return _SEGMENT_RUN.sub(lambda run: MASK if _holds_token(_decoded(run[0])) else run[0], text)


def _decoded(run: str) -> str:
    return unquote(run, errors="replace") if "%" in run else run


def _has_piece(text: str, pieces: frozenset[str]) -> bool:
    """:returns: whether ``text`` holds one of ``pieces`` (ignoring case)."""
    if not pieces:
        return False
    lower, n = text.lower(), CLIENT_PIECE_CHARS
    return any(lower[i : i + n] in pieces for i in range(len(lower) - n + 1))


def _holds_token(text: str) -> bool:
    """:returns: whether ``text`` holds a likely token."""
    return any(
        sum(1 for cls in _CLASSES if cls.search(token)) >= MIN_TOKEN_CLASSES
        for token in _TOKEN.findall(text)
    )


def _probed(text: str, probes: tuple[str, ...]) -> bool:
    """:returns: whether ``text`` holds one of ``probes`` in any case."""
    lower = text.lower()
    return any(probe in lower for probe in probes)


def _holds(run: str, fragments: frozenset[str]) -> bool:
    """:returns: whether ``run`` contains one of ``fragments`` (compared in lower case)."""
    if not fragments:
        return False
    lower = run.lower()
    return any(
        lower[i : i + FRAGMENT_CHARS] in fragments for i in range(len(lower) - FRAGMENT_CHARS + 1)
    )


REDACTOR: Final = Redactor()


class RedactingFilter(logging.Filter):
    """A logging filter that masks registered secrets in messages, tracebacks and stacks."""

    def __init__(self, redactor: Redactor = REDACTOR) -> None:
        super().__init__()
        self._redact = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; always keep it."""
        record.msg = self._redact(record.getMessage())
        record.args = None
        if record.exc_info:
            formatter = logging.Formatter()
            record.exc_text = formatter.formatException(record.exc_info)
            record.exc_info = None
        if record.exc_text:
            record.exc_text = self._redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self._redact(record.stack_info)
        return True
