"""The check of a DATEV export: the ZIP sevDesk made, read (never changed) and reported on.

:func:`check_export` opens the ZIP, reads every file named ``EXTF_….csv`` (at most
:data:`MAX_BATCH_BYTES` each, so a ZIP bomb is refused), checks each Buchungsstapel among them
(:mod:`~sevdesk_mcp.domain.reports.datev.batch`) and tells how many of the period's documents
appear by Belegfeld 1, naming those that do not (up to :data:`MAX_NAMED`). Each fact is a plain
sentence and each problem a warning: the file is delivered whatever they say.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Final

import msgspec

from sevdesk_mcp.domain.reports.datev.batch import BOOKING_BATCH, check_batch
from sevdesk_mcp.domain.reports.datev.expected import Expected
from sevdesk_mcp.domain.reports.datev.extf import ExtfError, ExtfFile, read_extf
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.safety.fence import fence

MAX_BATCH_BYTES: Final = 64 * 1024 * 1024
MAX_MEMBERS: Final = 10_000
MAX_NAMED: Final = 20
PREFIX: Final = "EXTF_"


class DatevCheck(msgspec.Struct, frozen=True, kw_only=True):
    """What the DATEV file says about itself and about the period's documents."""

    files: list[str] = msgspec.field(default_factory=list)
    facts: list[str] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class _Found(msgspec.Struct):
    facts: list[str]
    warnings: list[str]
    belege: set[str]
    batches: int = 0


def _extf_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    members = archive.infolist()[:MAX_MEMBERS]
    return [
        info
        for info in members
        if not info.is_dir()
        and info.filename.replace("\\", "/").rsplit("/", 1)[-1].upper().startswith(PREFIX)
        and info.filename.lower().endswith(".csv")
    ]


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | None:
    """:returns: the member's bytes, or ``None`` if it is larger than :data:`MAX_BATCH_BYTES`."""
    with archive.open(info) as member:
        data = member.read(MAX_BATCH_BYTES + 1)
    return None if len(data) > MAX_BATCH_BYTES else data


def _one_file(name: str, data: bytes | None, period: Period, found: _Found) -> None:
    label = fence(name) or "an unnamed file"
    if data is None:
        found.warnings.append(f"{label} is larger than {MAX_BATCH_BYTES:,} bytes; not checked.")
        return
    try:
        file: ExtfFile = read_extf(data)
    except ExtfError as exc:
        found.warnings.append(
            f"{label} cannot be read as a DATEV file: {exc}. The ZIP was saved as sevDesk "
            "delivered it; look at that line in a text editor, and run the export again in "
            "sevDesk if the file is damaged, before handing it to the accountant."
        )
        return
    if file.header.category != BOOKING_BATCH:
        found.facts.append(
            f"{label} is data category {file.header.category} "
            f"({fence(file.header.format_name) or 'no name'}), not a Buchungsstapel; not checked."
        )
        return
    batch = check_batch(file, period)
    found.facts += [f"{label}: {fact}" for fact in batch.facts]
    found.warnings += [f"{label}: {warning}" for warning in batch.warnings]
    found.belege |= batch.belege
    found.batches += 1


def _documents(expected: Expected, belege: set[str]) -> tuple[list[str], list[str]]:
    """:returns: the fact of how many documents appear by Belegfeld 1, and a warning naming
    those that do not."""
    present = {b.upper() for b in belege}
    missing = [n for n in expected.numbers if n.upper() not in present]
    appear = len(expected.numbers) - len(missing)
    facts = [
        f"Documents of the period (finalized invoices and credit notes, receipts that are no "
        f"drafts) in the file by Belegfeld 1: {appear} of {expected.total}."
    ]
    warnings = []
    if missing:
        named = ", ".join(fence(n) or "?" for n in missing[:MAX_NAMED])
        more = f" and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else ""
        warnings.append(f"Not in the file by Belegfeld 1: {named}{more}.")
    if expected.unnumbered:
        warnings.append(
            f"{expected.unnumbered} documents of the period have no number, so the file "
            "cannot show them by Belegfeld 1."
        )
    return facts, warnings


def check_export(data: bytes, period: Period, expected: Expected | None) -> DatevCheck:
    """:returns: the facts and warnings about the DATEV export ``data`` (a ZIP) for ``period``;
    without ``expected`` (the period's documents could not be read) no document is compared."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = _extf_members(archive)
            found = _Found([], [], set())
            for info in members:
                _one_file(info.filename, _read_member(archive, info), period, found)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError, ValueError):
        return DatevCheck(warnings=["The file is not a readable ZIP; its content was not checked."])
    names = [fence(info.filename) or "?" for info in members]
    if not members:
        return DatevCheck(
            warnings=["The ZIP holds no EXTF file (no file named EXTF_….csv): no booking batch."]
        )
    if not found.batches:
        found.warnings.append("The ZIP holds no Buchungsstapel (EXTF data category 21).")
        return DatevCheck(files=names, facts=found.facts, warnings=found.warnings)
    facts: list[str]
    warnings: list[str]
    if expected is None:
        facts, warnings = [], ["The period's documents could not be read: none was compared."]
    else:
        facts, warnings = _documents(expected, found.belege)
    return DatevCheck(files=names, facts=found.facts + facts, warnings=found.warnings + warnings)
