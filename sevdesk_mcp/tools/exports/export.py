"""Tools of the ``reports`` toolset: sevDesk's CSV exports and its DATEV export, saved as
new files in ``SEVDESK_OUTPUT_DIR``. Over HTTP there is no local folder: with file transfer on
(``SEVDESK_HTTP_FILES``) the export becomes a short-lived download page of the account;
without it the tools refuse.

``sevdesk_export_datev_enshrined`` is the DATEV export that also enshrines its period: a tool
of its own at the commit tier (a tool has one tier, and the read export stays read-only), on the
write flow. Its ``prepare`` gets the books' today and the call's file access
(:class:`~sevdesk_mcp.tools.write_flow.WithContext`): it refuses a period that has not ended
yet, checks where the file can go and hands that access on in the plan (``execute`` has no tool
context); a download page over HTTP comes from the call's transfer context, which ``execute``
runs in as well.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports import enshrine, exports
from sevdesk_mcp.domain.reports.datev.check import DatevCheck, check_export
from sevdesk_mcp.domain.reports.datev.expected import Expected, read_expected
from sevdesk_mcp.domain.reports.period import PATTERN, parse_period
from sevdesk_mcp.domain.reports.period import Period as ReportPeriod
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import FileAccessError, ToolError, UpstreamError
from sevdesk_mcp.safety.files import FileAccess
from sevdesk_mcp.safety.preview import Said, say
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.receipts.upload import can_offer, no_transfer, offer_download
from sevdesk_mcp.tools.reports.tax import Period, period_of
from sevdesk_mcp.tools.vocabulary import BINDING_ANNOTATIONS, READ_ANNOTATIONS, DryRun
from sevdesk_mcp.tools.write_flow import PrepareContext, WithContext, define_write_tool

SETTING: Final = "SEVDESK_OUTPUT_DIR"
NO_TRANSFER: Final = (
    "This server runs over HTTP without file transfer (bearer mode has none: it needs OAuth "
    "mode, SEVDESK_HTTP_AUTH=oauth; OAuth mode has it unless SEVDESK_HTTP_FILES=off). Run the "
    "export on a server on your own machine (stdio) with "
    f"{SETTING} set, or in sevDesk itself."
)


class CsvInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_export_csv``."""

    kind: Literal["invoices", "credit_notes", "receipts", "transactions"] = "invoices"
    period: Period | None = None


class DatevInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_export_datev``."""

    period: Period | None = None
    images: bool = False


class SavedFile(msgspec.Struct, frozen=True, kw_only=True):
    """A file saved in the output folder, or offered for download over HTTP."""

    saved_to: str | None = None
    download_page: (
        Annotated[str, msgspec.Meta(description="Over HTTP: for the user, once")] | None
    ) = None
    file_name: str | None = None
    size_bytes: int | None = None
    media_type: str | None = None
    note: str


def _folder(files: FileAccess, account: AccountContext | None = None) -> bool:
    """:returns: whether the export has somewhere to go: the output folder, or over HTTP a
        download page.

    :raises FileAccessError: over HTTP without file transfer, where it has nowhere to go
        (the text says why for the configuration at hand: bearer mode, or files off).
    """
    if files.remote:
        if can_offer():
            return True
        why = NO_TRANSFER if account is None else no_transfer(account)
        raise FileAccessError(f"The export has nowhere to go. {why}")
    return files.output_dir is not None


NO_FOLDER: Final = (
    f"Nothing was saved: no folder is set up for exports. Set {SETTING} to an absolute path "
    "of a writable folder and start the server again."
)


async def _save(files: FileAccess, found: exports.ExportFile, note: str) -> SavedFile:
    """:returns: where ``found`` went: a download page over HTTP, else a new file.

    :raises FileAccessError: if the output folder cannot take the file.
    :raises TransferRefusedError: if the account's download limits are reached.
    """
    if files.remote:
        page = await offer_download(found.name, found.media_type, found.data)
        return SavedFile(
            download_page=page,
            file_name=found.name,
            size_bytes=len(found.data),
            media_type=found.media_type,
            note=f"{note} Give the user the download page: it works once, for 10 minutes.",
        )
    path = files.deliver(found.name, found.data)
    return SavedFile(
        saved_to=None if path is None else str(path),
        file_name=found.name,
        size_bytes=len(found.data),
        media_type=found.media_type,
        note=note,
    )


class DatevFile(SavedFile, frozen=True, kw_only=True):
    """The DATEV export as delivered, and what its file says: checked after saving, never
    changed; a problem is a warning, and the file is delivered all the same."""

    check: (
        Annotated[
            DatevCheck,
            msgspec.Meta(
                description="Facts about the file (header, period, columns, encoding, the "
                "period's documents by Belegfeld 1) and warnings; names from it fenced in ⟦ ⟧"
            ),
        ]
        | None
    ) = None


CHECKED: Final = " The saved file was checked, not changed (check: facts and warnings)."


def _checked_what(saved: SavedFile) -> str:
    """:returns: the fact saying which bytes were checked: those delivered, unchanged (the
    output folder's new file is written from them whole, ``FileAccess.deliver``; tool modules
    do not open files themselves)."""
    if saved.saved_to is None:
        return "Checked: the file as downloaded from sevDesk and offered for download."
    return "Checked: the file as saved in the output folder (the bytes written, unchanged)."


def _checked(
    saved: SavedFile, found: exports.ExportFile, period: ReportPeriod, expected: Expected | None
) -> DatevFile:
    """:returns: ``saved`` with the check of its file."""
    check = check_export(found.data, period, expected)
    check = msgspec.structs.replace(check, facts=[_checked_what(saved), *check.facts])
    fields = msgspec.structs.asdict(saved)
    return DatevFile(**{**fields, "note": saved.note + CHECKED}, check=check)


async def _expected(client: SevdeskPort, period: ReportPeriod) -> Expected | None:
    """:returns: the period's documents for the check, or ``None`` if they cannot be read
    (the file is delivered already; the check then says so)."""
    try:
        return await read_expected(client, period)
    except (ToolError, UpstreamError):
        return None


async def _csv(args: CsvInput, ctx: ToolContext) -> SavedFile:
    if not _folder(ctx.files, ctx.account):
        return SavedFile(note=NO_FOLDER)
    client = ctx.account.require_client()
    found = await exports.csv_export(client, args.kind, period_of(args.period, ctx))
    return await _save(ctx.files, found, "sevDesk's own CSV export, unchanged.")


async def _datev(args: DatevInput, ctx: ToolContext) -> DatevFile:
    if not _folder(ctx.files, ctx.account):
        return DatevFile(note=f"{NO_FOLDER} The DATEV export was not started.")
    client = ctx.account.require_client()
    period = period_of(args.period, ctx)
    job = await exports.datev_export(client, period, images=args.images)
    note = f"DATEV job {job.job_id}; sevDesk's link expires {job.link_expires or 'soon'}."
    saved = await _save(ctx.files, job.file, note)
    return _checked(saved, job.file, period, await _expected(client, period))


EXPORT_CSV = define_tool(
    name="sevdesk_export_csv",
    title="CSV export of invoices, receipts, transactions",
    description=(
        "Saves sevDesk's CSV export of invoices, credit notes, receipts or transactions of a "
        "period in SEVDESK_OUTPUT_DIR."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=CsvInput,
    output=SavedFile,
    handler=_csv,
    local_files="write",
    needs_files="file",  # without a folder or file transfer the export has nowhere to go
)

EXPORT_DATEV = define_tool(
    name="sevdesk_export_datev",
    title="DATEV export for the accountant",
    description=(
        "Saves sevDesk's DATEV export (ZIP) of a period in SEVDESK_OUTPUT_DIR and checks it; "
        "enshrines nothing (the commit-tier export does)."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=DatevInput,
    output=DatevFile,
    handler=_datev,
    local_files="write",
    needs_files="file",
)


class EnshrineInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_export_datev_enshrined``: the period is always named."""

    period: Annotated[
        str,
        msgspec.Meta(pattern=PATTERN, max_length=7, description="An ended month, quarter or year"),
    ]
    images: bool = False
    dryRun: DryRun = False


class LockedCounts(msgspec.Struct, frozen=True, kw_only=True):
    """What the export enshrined, as the approval counted it (not counting those already
    enshrined before)."""

    documents: int
    receipts: int
    bookings: int


class EnshrinedExport(msgspec.Struct, frozen=True, kw_only=True):
    """The enshrining DATEV export: its period and job, what it locked, and its file."""

    period: str
    job_id: str
    enshrined: LockedCounts
    file: DatevFile


DOWNLOAD_PAGE: Final = Said(
    "a download page for you (once, for 10 minutes)",
    "eine Download-Seite für Sie (einmal, für 10 Minuten)",
)
NEW_FILE: Final = say(
    "a new file in the output folder ({0})", "eine neue Datei im Ausgabeordner ({0})", SETTING
)
NOWHERE: Final = say(
    "nowhere: no output folder ({0}) is set up, so the real call is refused until it is",
    "nirgendwohin: Es ist kein Ausgabeordner ({0}) eingerichtet, daher wird der echte Aufruf "
    "abgelehnt, bis einer eingerichtet ist",
    SETTING,
)


def _destination(files: FileAccess, *, dry_run: bool) -> Said:
    """:returns: where the file will go, as the preview says it.

    :raises FileAccessError: if it has nowhere to go (no output folder, or HTTP without file
        transfer), before anyone is asked and before anything is enshrined; a dry run says so.
    """
    try:
        somewhere = _folder(files)
    except FileAccessError:
        if dry_run:
            return NOWHERE
        raise
    if somewhere:
        return DOWNLOAD_PAGE if files.remote else NEW_FILE
    if dry_run:
        return NOWHERE
    raise FileAccessError(
        f"{NO_FOLDER} Nothing was exported or enshrined: the DATEV file must have somewhere to "
        "go before the period is locked."
    )


def _refuse_unfinished(period: ReportPeriod, today: dt.date) -> None:
    """Refuse a period that has not ended before the books' today (Europe/Berlin).

    :raises ToolError: for a running or future period, before anything is read or asked.
    """
    if period.end < today:
        return
    if period.start > today:
        what = f"{period.name} has not even begun"
    else:
        what = f"{period.name} has not ended yet: it runs until {period.end:%d.%m.%Y}"
    raise ToolError(
        f"{what} (today is {today:%d.%m.%Y}, Europe/Berlin). Nothing was exported or enshrined: "
        "festschreiben would lock every invoice, credit note, receipt and booking of the period "
        "for good, including those still to be written or booked in it. Wait until the period "
        f"has ended (from {period.end + dt.timedelta(days=1):%d.%m.%Y}), or export it now "
        "without festschreiben with sevdesk_export_datev."
    )


Plan = enshrine.EnshrinePlan[FileAccess]


async def _prepare_enshrined(
    args: EnshrineInput, client: SevdeskPort, context: PrepareContext
) -> Prepared[Plan]:
    period = parse_period(args.period)
    _refuse_unfinished(period, context.today)
    where = _destination(context.files, dry_run=args.dryRun)
    return await enshrine.prepare_enshrined_export(
        client, period, images=args.images, delivery=context.files, delivered_as=where
    )


async def _execute_enshrined(
    args: EnshrineInput, plan: Plan, client: SevdeskPort, progress: Progress
) -> EnshrinedExport:
    job = await enshrine.run_enshrined_export(client, plan, progress)
    note = (
        f"DATEV job {job.job_id}; {plan.period.name} is enshrined (festgeschrieben). sevDesk's "
        f"link expires {job.link_expires or 'soon'}."
    )
    locked = plan.locked
    return EnshrinedExport(
        period=plan.period.name,
        job_id=job.job_id,
        enshrined=LockedCounts(
            documents=locked.documents.new,
            receipts=locked.receipts.new,
            bookings=locked.bookings.new,
        ),
        file=_checked(
            await _save(plan.delivery, job.file, note), job.file, plan.period, locked.expected
        ),
    )


EXPORT_DATEV_ENSHRINED = dataclasses.replace(
    define_write_tool(
        name="sevdesk_export_datev_enshrined",
        title="DATEV export with festschreiben (enshrine)",
        description=(
            "The DATEV export of an ended period that also enshrines (festschreiben) all its "
            "documents and bookings; irreversible. Only when the user asks for festschreiben."
        ),
        toolset="reports",
        tier=Tier.COMMIT,
        annotations=BINDING_ANNOTATIONS,
        input=EnshrineInput,
        output=EnshrinedExport,
        prepare=WithContext(_prepare_enshrined),
        execute=_execute_enshrined,
        locks=lambda a: ("exports/datev",),
    ),
    local_files="write",  # it reads no local file: prepare takes the access only to deliver
    needs_files="file",  # a place to deliver the file to, or nothing is started
)

TOOLS = (EXPORT_CSV, EXPORT_DATEV, EXPORT_DATEV_ENSHRINED)
