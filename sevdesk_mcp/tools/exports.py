"""Tools of the ``reports`` toolset: sevDesk's CSV exports and its DATEV export, saved as
new files in ``SEVDESK_OUTPUT_DIR``. Over HTTP there is no local folder: with file transfer on
(``SEVDESK_HTTP_FILES``) the export becomes a short-lived download page of the account;
without it the tools refuse.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.domain.reports import exports
from sevdesk_mcp.errors import FileAccessError, ToolError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.files import can_offer, offer_download
from sevdesk_mcp.tools.tax import Period, period_of
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS

SETTING: Final = "SEVDESK_OUTPUT_DIR"


class CsvInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_export_csv``."""

    kind: Annotated[
        Literal["invoices", "credit_notes", "receipts", "transactions"],
        msgspec.Meta(description="Which list to export"),
    ] = "invoices"
    period: Period | None = None


class DatevInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_export_datev``."""

    period: Period | None = None
    images: Annotated[bool, msgspec.Meta(description="Include receipt images")] = False


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


def _folder(ctx: ToolContext) -> bool:
    """:returns: whether the export has somewhere to go: the output folder, or over HTTP a
        download page.

    :raises FileAccessError: over HTTP without file transfer, where it has nowhere to go.
    """
    files = ctx.files
    if files.remote:
        if can_offer():
            return True
        raise FileAccessError(
            "This server runs over HTTP without file transfer, so the export has nowhere to go. "
            "The operator turns file transfer on with SEVDESK_HTTP_FILES=on; or run the export "
            f"on a server on your own machine (stdio) with {SETTING} set, or in sevDesk itself."
        )
    return files.output_dir is not None


NO_FOLDER: Final = (
    f"Nothing was saved: no folder is set up for exports. Set {SETTING} to an absolute path "
    "of a writable folder and start the server again."
)


def _save(ctx: ToolContext, found: exports.ExportFile, note: str) -> SavedFile:
    if ctx.files.remote:
        page = offer_download(found.name, found.media_type, found.data)
        return SavedFile(
            download_page=page,
            file_name=found.name,
            size_bytes=len(found.data),
            media_type=found.media_type,
            note=f"{note} Give the user the download page: it works once, for 10 minutes.",
        )
    try:
        path = ctx.files.deliver(found.name, found.data)
    except OSError as exc:
        raise ToolError(
            f"Could not write {found.name} to {SETTING} ({exc.strerror or exc}); check that the "
            "folder exists, is writable and has free space."
        ) from None
    return SavedFile(
        saved_to=str(path),
        file_name=found.name,
        size_bytes=len(found.data),
        media_type=found.media_type,
        note=note,
    )


async def _csv(args: CsvInput, ctx: ToolContext) -> SavedFile:
    if not _folder(ctx):
        return SavedFile(note=NO_FOLDER)
    client = ctx.account.require_client()
    found = await exports.csv_export(client, args.kind, period_of(args.period, ctx))
    return _save(ctx, found, "sevDesk's own CSV export, unchanged.")


async def _datev(args: DatevInput, ctx: ToolContext) -> SavedFile:
    if not _folder(ctx):
        return SavedFile(note=f"{NO_FOLDER} The DATEV export was not started.")
    client = ctx.account.require_client()
    period = period_of(args.period, ctx)
    job = await exports.datev_export(client, period, images=args.images)
    note = f"DATEV job {job.job_id}; sevDesk's link expires {job.link_expires or 'soon'}."
    return _save(ctx, job.file, note)


EXPORT_CSV = define_tool(
    name="sevdesk_export_csv",
    title="CSV export of invoices, receipts, transactions",
    description=(
        "Saves sevDesk's own CSV export of invoices, credit notes, receipts or bank "
        "transactions for a month, quarter or year as a new file in the output folder "
        "(SEVDESK_OUTPUT_DIR); without one nothing is saved. Not available over HTTP."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=CsvInput,
    output=SavedFile,
    handler=_csv,
    local_files="write",
)

EXPORT_DATEV = define_tool(
    name="sevdesk_export_datev",
    title="DATEV export for the accountant",
    description=(
        "Runs sevDesk's DATEV export (booking batch as CSV in a ZIP) for a period, reports "
        "progress while it runs, and saves the ZIP as a new file in the output folder "
        "(SEVDESK_OUTPUT_DIR). Downloads only from sevDesk's export storage. Does not enshrine "
        "anything. Without an output folder it does not run. Not available over HTTP."
    ),
    toolset="reports",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=DatevInput,
    output=SavedFile,
    handler=_datev,
    local_files="write",
)

TOOLS = (EXPORT_CSV, EXPORT_DATEV)
