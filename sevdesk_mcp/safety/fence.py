"""Untrusted text: what third parties can write into sevDesk (names, descriptions, purposes).

Such text may carry prompt injection. Before it reaches the model it is

- **cleaned**: control characters, invisible and bidi controls (Unicode format characters and
  other default-ignorable code points) are removed, so what the model reads is what a human
  would see; line breaks and tabs become spaces;
- **fenced**: wrapped in ``⟦`` and ``⟧``, with any fence characters inside replaced, so the text
  cannot end its own fence. The server instructions tell the model that fenced text is data.

It is never interpolated into error messages or instructions.
"""

from __future__ import annotations

import unicodedata
from typing import Final

OPEN: Final = "⟦"
CLOSE: Final = "⟧"
MAX_UNTRUSTED_CHARS: Final = 2000

# Default-ignorable code points that are not category Cf (Unicode DerivedCoreProperties).
_IGNORABLE: Final = frozenset(
    [
        0x034F,
        0x115F,
        0x1160,
        0x17B4,
        0x17B5,
        0x3164,
        0xFFA0,
        *range(0x180B, 0x1810),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
    ]
)
_WHITESPACE: Final = frozenset("\n\r\t\u2028\u2029\x0b\x0c\x85")


def hidden_characters(text: str) -> list[str]:
    """:returns: the code points (as ``U+XXXX``) a human would not see, in order of appearance.

    Control characters (including CR and tab), format characters (bidi controls, zero-width
    characters) and other default-ignorable code points count; the line feed does not.
    """
    return [f"U+{ord(c):04X}" for c in text if c != "\n" and _hidden(c)]


def _hidden(char: str) -> bool:
    category = unicodedata.category(char)
    return category in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp") or ord(char) in _IGNORABLE


def clean(text: str) -> str:
    """:returns: ``text`` without hidden characters, line breaks as spaces, trimmed and capped."""
    out = []
    for char in text:
        if char in _WHITESPACE:
            out.append(" ")
        elif not _hidden(char):
            out.append(char)
    cleaned = " ".join("".join(out).split())
    if len(cleaned) > MAX_UNTRUSTED_CHARS:
        cleaned = cleaned[:MAX_UNTRUSTED_CHARS] + "…"
    return cleaned


def fence(text: str | None) -> str | None:
    """:returns: the cleaned text inside ``⟦ ⟧``, or ``None`` for no or blank text."""
    if text is None:
        return None
    cleaned = clean(text).replace(OPEN, "(").replace(CLOSE, ")")
    return f"{OPEN}{cleaned}{CLOSE}" if cleaned else None


def unfenced(text: str) -> str:
    """:returns: ``text`` without one enclosing ``⟦ ⟧`` pair: a value copied from an earlier
    result back into an argument means the text inside, not the marks (fenced text never holds
    fence characters inside)."""
    inner = text.strip()
    if len(inner) > 1 and inner[0] == OPEN and inner[-1] == CLOSE:
        body = inner[1:-1]
        if OPEN not in body and CLOSE not in body:
            return body
    return text
