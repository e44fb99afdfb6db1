"""Secrets that must never be shown: a wrapper for the token and a redactor for text and logs."""

from __future__ import annotations

import logging
from typing import Final

MASK: Final = "[redacted]"
MIN_SECRET_CHARS: Final = 8


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


class Redactor:
    """Replaces every registered secret in text by :data:`MASK`."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()

    def add(self, secret: str) -> None:
        """Register a secret; very short strings are ignored (they would mask ordinary text)."""
        if len(secret) >= MIN_SECRET_CHARS:
            self._secrets.add(secret)

    def __call__(self, text: str) -> str:
        """:returns: ``text`` with every registered secret masked."""
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text


REDACTOR: Final = Redactor()


class RedactingFilter(logging.Filter):
    """A logging filter that masks registered secrets in messages and tracebacks."""

    def __init__(self, redactor: Redactor = REDACTOR) -> None:
        super().__init__()
        self._redact = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; always keep it."""
        record.msg = self._redact(record.getMessage())
        record.args = None
        if record.exc_info:
            formatter = logging.Formatter()
            record.exc_text = self._redact(formatter.formatException(record.exc_info))
            record.exc_info = None
        return True
