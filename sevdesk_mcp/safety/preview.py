"""Previews of write actions: what a human approves, shown in full, warnings first.

The rendered text keeps the line breaks of fact values (indented under their label), is capped
only at 12,000 characters with an explicit marker, and is stripped of hidden characters. The
hash covers the complete raw preview, so an approval binds exactly what was shown and more.
"""

from __future__ import annotations

import hashlib
from typing import Final

import msgspec

from sevdesk_mcp.safety.fence import hidden_characters

MAX_PREVIEW_CHARS: Final = 12_000
IRREVERSIBLE_NOTE: Final = "This cannot be undone."


class Fact(msgspec.Struct, frozen=True):
    """One labelled value of a preview."""

    label: str
    value: str


class Preview(msgspec.Struct, frozen=True, kw_only=True):
    """What a write will do."""

    action: str
    facts: list[Fact] = []
    warnings: list[str] = []
    irreversible: bool = False


def digest(preview: Preview) -> str:
    """:returns: the SHA-256 (hex) of the complete preview as canonical JSON."""
    return hashlib.sha256(msgspec.json.encode(preview, order="sorted")).hexdigest()


def render(preview: Preview) -> str:
    """:returns: the preview as text for a human: warnings first, capped with a marker."""
    lines = [f"WARNING: {w}" for w in preview.warnings]
    if preview.irreversible:
        lines.append(f"WARNING: {IRREVERSIBLE_NOTE}")
    lines.append(preview.action)
    for fact in preview.facts:
        value = _visible(fact.value)
        if "\n" in value:
            lines.append(f"{fact.label}:")
            lines += [f"    {line}" for line in value.splitlines()]
        else:
            lines.append(f"{fact.label}: {value}")
    text = "\n".join(lines)
    if len(text) <= MAX_PREVIEW_CHARS:
        return text
    rest = len(text) - MAX_PREVIEW_CHARS
    return (
        f"{text[:MAX_PREVIEW_CHARS]}\n[… {rest} more characters not shown; open the dry run "
        "to see everything]"
    )


def _visible(value: str) -> str:
    hidden = {chr(int(code[2:], 16)) for code in hidden_characters(value)}
    return "".join(c for c in value if c not in hidden)
