"""What an approval binds: every record ``prepare`` read and every line of the preview.

An approval given for one state of the books must never carry over to another. The basis of a
prepared write is the SHA-256 of the complete preview together with the digests of every
answer ``prepare`` read (the witness of the read-only client: the document with its positions,
texts, dates, contact, amounts, status and update time, and whatever else the checks read).
The approved retry prepares again, under the record locks, right before it executes; a
different basis asks the human again and :func:`changes` names what differs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Final

import msgspec

from sevdesk_mcp.safety.preview import Preview

SHORT: Final = 16  # hex characters kept per entry; only for naming what changed
MAX_NAMED: Final = 6
ACTION: Final = "(action)"


class Basis(msgspec.Struct, frozen=True, kw_only=True):
    """The bound state: one digest over everything, and short digests to name changes."""

    digest: str
    records: dict[str, str] = {}
    facts: dict[str, str] = {}


def basis_of(preview: Preview, records: Mapping[str, str]) -> Basis:
    """:returns: the basis of a preview and the full digests of the records behind it."""
    whole = msgspec.json.encode({"preview": preview, "records": records}, order="sorted")
    return Basis(
        digest=hashlib.sha256(whole).hexdigest(),
        records={k: v[:SHORT] for k, v in records.items()},
        facts=_fact_digests(preview),
    )


def changes(old: Basis, new: Basis) -> list[str]:
    """:returns: what differs between two bases, as short phrases for a human: the preview
    lines, then the sevDesk records (at most six named); empty if the bases are the same."""
    if old.digest == new.digest:
        return []
    lines = [f"'{k}'" for k in _differing(old.facts, new.facts) if k != ACTION]
    records = _differing(old.records, new.records)
    if len(records) > MAX_NAMED:
        records = [*records[:MAX_NAMED], f"{len(records) - MAX_NAMED} more"]
    found = [f"the preview lines {', '.join(lines)}"] if lines else []
    found += [f"the sevDesk records {', '.join(records)}"] if records else []
    return found or ["the preview"]


def _differing(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    return [k for k in {**old, **new} if old.get(k) != new.get(k)]


def _fact_digests(preview: Preview) -> dict[str, str]:
    out: dict[str, str] = {}
    for fact in preview.facts:
        label = fact.label.en
        data = out.get(label, "").encode() + b"\n" + msgspec.json.encode(fact.value, order="sorted")
        out[label] = hashlib.sha256(data).hexdigest()[:SHORT]
    action = msgspec.json.encode(preview.action, order="sorted")
    out[ACTION] = hashlib.sha256(action).hexdigest()[:SHORT]
    return out
