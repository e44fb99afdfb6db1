"""sevDesk's own exports (§2.9): the CSV lists of invoices, credit notes, receipts and bank
transactions, and the DATEV export job.

A CSV export is one GET with a ``sevQuery`` (model, and the period as a filter); the answer
carries the file base64-encoded in ``{filename, mimetype, base64Encoded, content}``. The DATEV
export is a job: started, polled (its progress reported to the call's observer), and the
finished file downloaded from the link sevDesk gives, through ``sevdesk/download.py`` (one
host, no credentials, no redirect, a size cap). Starting the job with ``enshrineDocuments``
needs the commit tier (``paths.minimum_tier``); this module never sets it on its own.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from typing import ClassVar, Final, Literal, TypeVar

import anyio
import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.errors import MalformedResponseError, OutcomeUnknownError, UpstreamError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.files import safe_name
from sevdesk_mcp.safety.redact import Undisclosed
from sevdesk_mcp.sevdesk import dates, download, wire
from sevdesk_mcp.sevdesk.envelope import many
from sevdesk_mcp.sevdesk.observe import OBSERVER
from sevdesk_mcp.sevdesk.paths import QueryValue

CsvKind = Literal["invoices", "credit_notes", "receipts", "transactions"]
CSV_EXPORTS: Final[dict[str, tuple[str, str]]] = {
    "invoices": ("invoiceCsv", "Invoice"),
    "credit_notes": ("creditNoteCsv", "CreditNote"),
    "receipts": ("voucherListCsv", "Voucher"),
    "transactions": ("transactionsCsv", "CheckAccountTransaction"),
}
MAX_POLLS: Final = 90
POLL_INTERVAL_S: Final = 2.0
START_PATH: Final = "/Export/createDatevCsvZipExportJob"
DATEV_SCOPE: Final = "EXTCD"  # earnings, expenditure, transactions, cash register, assets


class ExportFile(Undisclosed, msgspec.Struct, frozen=True):
    """A file sevDesk exported."""

    name: str
    media_type: str
    data: bytes


class _FileAnswer(Undisclosed, msgspec.Struct, frozen=True):
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"content"})

    filename: str | None = None
    mimetype: str | None = None
    base64Encoded: bool | None = None
    content: str | None = None


class _Progress(msgspec.Struct, frozen=True):
    current: int | None = None
    total: int | None = None
    hash: str | None = None


class _DownloadInfo(msgspec.Struct, frozen=True):
    filename: str | None = None
    link: str | None = None
    linkExpireDate: str | None = None


async def csv_export(client: SevdeskPort, kind: CsvKind, period: Period) -> ExportFile:
    """:returns: sevDesk's CSV export of ``kind`` for ``period``.

    :raises MalformedResponseError: if the answer holds no file.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    action, model = CSV_EXPORTS[kind]
    query: dict[str, QueryValue] = {
        "download": True,
        "sevQuery[modelName]": model,
        "sevQuery[objectName]": "SevQuery",
        "sevQuery[limit]": 1000,
        "sevQuery[filter][startDate]": period.start.isoformat(),
        "sevQuery[filter][endDate]": period.end.isoformat(),
    }
    answer = await client.get(f"/Export/{action}", query)
    return _file(answer, f"{kind}-{period.name}.csv", "text/csv")


def _file(answer: JsonValue, fallback: str, media_type: str) -> ExportFile:
    if not isinstance(answer, dict):
        raise MalformedResponseError(
            "sevDesk's export answer holds no file. Try again; if it persists, export it in "
            "sevDesk itself."
        )
    found = wire.parse(answer, _FileAnswer)
    if not found.content:
        raise MalformedResponseError(
            "sevDesk's export answer has no content; the period may hold nothing to export."
        )
    try:
        raw = found.content.encode()
        data = base64.b64decode(raw, validate=True) if found.base64Encoded is not False else raw
    except (binascii.Error, ValueError):
        raise MalformedResponseError(
            "sevDesk's export file is not valid base64. Try again; if it persists, export it in "
            "sevDesk itself."
        ) from None
    return ExportFile(safe_name(found.filename or fallback), found.mimetype or media_type, data)


class DatevJob(msgspec.Struct, frozen=True):
    """A finished DATEV export: its job id, the file, and when sevDesk's link expires."""

    job_id: str
    file: ExportFile
    link_expires: str | None
    polls: int


Wait = Callable[[float], Awaitable[None]]


async def datev_export(  # noqa: PLR0913 - the job's options, stated
    client: SevdeskPort,
    period: Period,
    *,
    images: bool,
    enshrine: bool = False,
    on_start: Callable[[str], None] | None = None,
    wait: Wait = anyio.sleep,
    max_polls: int = MAX_POLLS,
) -> DatevJob:
    """Run sevDesk's DATEV CSV export job for ``period`` and download its file.

    ``enshrine`` asks sevDesk to enshrine every exported document (irreversible): the job is
    then started as a write (sent once, never retried), which the gate refuses below the commit
    tier. ``on_start`` is told the job id as soon as the job runs.

    :raises UpstreamError: if sevDesk refuses the job (409: no data, or the export settings are
        missing) or does not finish it within ``max_polls`` polls.
    :raises DownloadRefusedError: if the file's link or download is refused.
    """
    query: dict[str, QueryValue] = {
        "startDate": dates.unix_start(period.start),
        "endDate": dates.unix_end(period.end),
        "scope": DATEV_SCOPE,
        "exportByPaydate": False,
        "includeEnshrined": True,
        "enshrineDocuments": enshrine,
        "includeDocumentImages": images,
    }
    job_id = _started(await _start(client, query, enshrine=enshrine), enshrine=enshrine)
    if on_start is not None:
        on_start(job_id)
    progress_hash = await _hash(client, job_id)
    for poll in range(1, max_polls + 1):
        await _report_progress(client, progress_hash)
        info = await _download_info(client, job_id)
        if info is not None and info.link:
            data = await download.fetch(info.link)  # its transport: download.FILE_TRANSPORT
            name = safe_name(info.filename or f"datev-{period.name}.zip")
            zipped = ExportFile(name, "application/zip", data)
            return DatevJob(job_id, zipped, info.linkExpireDate, poll)
        await wait(POLL_INTERVAL_S)
    raise UpstreamError(
        f"sevDesk's DATEV export job {job_id} did not finish within {max_polls} checks. Try "
        "again later, or download it in sevDesk under Export."
    )


async def _start(client: SevdeskPort, query: dict[str, QueryValue], *, enshrine: bool) -> JsonValue:
    if enshrine:  # it changes the books: a write, at most once
        return await client.send("GET", START_PATH, query=query)
    return await client.get(START_PATH, query)


def _started(answer: JsonValue, *, enshrine: bool) -> str:
    """:returns: the job id of the start's answer.

    :raises OutcomeUnknownError: with ``enshrine``, if the answer names no job (the period
        may be enshrined all the same).
    :raises MalformedResponseError: without it, if the answer names no job.
    """
    try:
        return _job_id(answer)
    except MalformedResponseError:
        if not enshrine:
            raise
    raise OutcomeUnknownError(
        "sevDesk answered the DATEV export with festschreiben without naming a job: the period "
        "may be enshrined now. Check Export and the documents' status in sevDesk before trying "
        "again."
    )


def _job_id(answer: JsonValue) -> str:
    if isinstance(answer, str) and answer.strip() and len(answer) <= 100:
        return answer.strip()
    raise MalformedResponseError("sevDesk started no DATEV export job (no job id in the answer).")


async def _hash(client: SevdeskPort, job_id: str) -> str | None:
    answer = await client.get("/Progress/generateDownloadHash", {"jobId": job_id})
    if isinstance(answer, str):
        return answer
    found = _first(answer, _Progress)
    return found.hash if found else None


async def _report_progress(client: SevdeskPort, progress_hash: str | None) -> None:
    if not progress_hash:
        return
    found = _first(await client.get("/Progress/getProgress", {"hash": progress_hash}), _Progress)
    observer = OBSERVER.get()
    if found is not None and found.current is not None and observer is not None:
        await observer.listed("the DATEV export", found.current, found.total)


async def _download_info(client: SevdeskPort, job_id: str) -> _DownloadInfo | None:
    return _first(await client.get("/ExportJob/jobDownloadInfo", {"jobId": job_id}), _DownloadInfo)


S = TypeVar("S", bound=msgspec.Struct)


def _first(answer: JsonValue, kind: type[S]) -> S | None:
    if answer is None or isinstance(answer, str | int | float | bool):
        return None
    items = many(answer)
    return wire.parse(items[0], kind) if items else None
