"""Client names and hosts as a human sees them: no bidi controls, no invisible characters.

A client names itself; ``U+202E`` in that name would reverse what follows it on the consent
page (``Claude <U+202E>moc.elgoog`` reads as "Claude google.com"). The rule is the one of write
arguments (``safety.fence.hidden_characters``), with the line feed added (a name is one line):
registration and metadata documents refuse such a name, and the consent page shows any that
reaches it as ``<U+202E>``.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.safety.fence import hidden_characters

MAX_LISTED: Final = 5


def hidden_in(text: str) -> str:
    """:returns: the hidden characters of ``text`` as ``U+202E, U+200B`` (the first
    :data:`MAX_LISTED`), or ``""`` when a human sees all of it."""
    return ", ".join([_code(c) for c in text if _hidden(c)][:MAX_LISTED])


def visible(text: str) -> str:
    """:returns: ``text`` with each hidden character shown as ``<U+XXXX>``."""
    return "".join(f"<{_code(c)}>" if _hidden(c) else c for c in text)


def _hidden(char: str) -> bool:
    return char == "\n" or bool(hidden_characters(char))


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"
