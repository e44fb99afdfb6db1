"""The fake's exports (§2.9): CSV files of the store's lists, DATEV export jobs with their
progress, and the export file storage the jobs' links point at.

Jobs live beside the store (one registry per store). A job advances by half on each
``getProgress``; ``jobDownloadInfo`` lists nothing until it is done, then the file's link on
:data:`STORAGE_HOST`. :class:`FileStorage` is an httpx transport serving those links without
any token, as the real storage does with its signed links.
"""

from __future__ import annotations

import base64
import csv
import io
import weakref
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Final

import httpx

from sevdesk_mcp.fake import datev, datev_books
from sevdesk_mcp.fake.documents import VOUCHER_DRAFT
from sevdesk_mcp.fake.models import CheckAccountTransaction
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import BERLIN
from sevdesk_mcp.jsontypes import JsonObject, JsonValue

STORAGE_HOST: Final = "sevexport-filestorage-fake.s3.eu-central-1.amazonaws.com"
STEP: Final = 50
DONE: Final = 100
BOOKED: Final = 400  # a booked bank transaction (§3.1)


@dataclass(slots=True)
class Job:
    """One DATEV export job."""

    id: str
    start: date
    end: date
    enshrine: bool
    current: int = 0
    filename: str = ""


@dataclass(slots=True)
class Exports:
    """The jobs and stored files of one fake account."""

    jobs: dict[str, Job] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    next_job: int = 1  # the number of the next job's id (a rehearsal's overlay starts higher)


_REGISTRY: weakref.WeakKeyDictionary[Store, Exports] = weakref.WeakKeyDictionary()


def exports_of(store: Store) -> Exports:
    """:returns: the jobs and files of ``store``'s account."""
    return _REGISTRY.setdefault(store, Exports())


def start_job(store: Store, start: date, end: date, *, enshrine: bool) -> Job:
    """Start a DATEV job; with ``enshrine`` everything it exports is enshrined at once.

    :returns: the job.
    """
    exports = exports_of(store)
    job = Job(f"0a0e1eff-9590-1bea-1195-{exports.next_job:012d}", start, end, enshrine)
    exports.next_job += 1
    exports.jobs[job.id] = job
    if enshrine:
        _enshrine(store, start, end)
    return job


def _enshrine(store: Store, start: date, end: date) -> None:
    """Enshrine the period (festschreiben): finalized invoices and credit notes, receipts that
    are no drafts and booked bank transactions; what was enshrined keeps its time. Afterwards
    they refuse every change (``lifecycle.ensure_not_enshrined``, ``voucher_saves``, the
    transaction routes, Q25)."""
    now = store.now()
    for doc in datev_books.documents(store, start, end):
        if getattr(doc, "enshrined", None) is None:
            doc.mark_enshrined(now)
            store.save(doc)
    for voucher in store.vouchers:
        day = voucher.voucherDate.astimezone(BERLIN).date()
        if voucher.status != VOUCHER_DRAFT and start <= day <= end and voucher.enshrined is None:
            voucher.enshrined = now
            store.save(voucher)
    for booked in store.transactions:
        if _locks(booked) and start <= booked.entryDate.astimezone(BERLIN).date() <= end:
            booked.enshrined = now
            store.save(booked)
    store.touch()


def _locks(transaction: CheckAccountTransaction) -> bool:
    return (
        transaction.status == BOOKED
        and transaction.deletedAt is None
        and transaction.enshrined is None
    )


def advance(store: Store, job: Job) -> None:
    """Move ``job`` on by one step; store its file once it is done."""
    job.current = min(DONE, job.current + STEP)
    if job.current == DONE and not job.filename:
        job.filename = (
            f"BITTE-ENTPACKEN_Buchungsstapel_und_Belegbilder_{job.start:%Y%m%d}_bis_"
            f"{job.end:%Y%m%d}.zip"
        )
        exports_of(store).files[f"/{job.id}/zip/{job.filename}"] = datev_zip(store, job)


def download_info(store: Store, job: Job) -> JsonValue:
    """:returns: nothing while ``job`` runs; then its file name, link and expiry."""
    if job.current < DONE:
        return []
    expiry = datetime.combine(store.today + timedelta(days=7), datetime.min.time(), BERLIN)
    return [
        {
            "filename": job.filename,
            "link": f"https://{STORAGE_HOST}/{job.id}/zip/{job.filename}?X-Amz-Expires=604800",
            "linkExpireDate": expiry.isoformat(),
        }
    ]


def datev_zip(store: Store, job: Job) -> bytes:
    """:returns: a ZIP holding the EXTF Buchungsstapel of the job's period
    (:mod:`~sevdesk_mcp.fake.datev`); Festschreibung 1 when the job enshrines."""
    data = datev.batch(store, job.start, job.end, locked=job.enshrine)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(datev.FILE_NAME, data)
    return buffer.getvalue()


def csv_file(rows: list[list[str]], filename: str) -> JsonObject:
    """:returns: the export answer of §2.9 holding ``rows`` as a CSV file."""
    out = io.StringIO()
    csv.writer(out, delimiter=";").writerows(rows)
    content = base64.b64encode(out.getvalue().encode("utf-8")).decode("ascii")
    return {"filename": filename, "mimetype": "text/csv", "base64Encoded": True, "content": content}


class FileStorage(httpx.AsyncBaseTransport):
    """The export file storage: answers GETs on :data:`STORAGE_HOST` from the stored files."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the file, or 404 for an unknown path or another host."""
        files = exports_of(self._store).files
        data = files.get(request.url.path) if request.url.host == STORAGE_HOST else None
        if data is None:
            return httpx.Response(404, content=b"NoSuchKey", request=request)
        headers = {"Content-Type": "application/zip", "Content-Length": str(len(data))}
        return httpx.Response(200, content=data, headers=headers, request=request)
