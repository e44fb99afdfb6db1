"""Exports (§2.9): the CSV exports and the DATEV export job with its progress."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Final

from sevdesk_mcp.fake import exports
from sevdesk_mcp.fake.coerce import parse_datetime
from sevdesk_mcp.fake.listing import object_reply
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import BERLIN, FakeError

router = Router()
Rows = Callable[[Store, date, date], list[list[str]]]


def _day(ctx: Context, key: str) -> date | None:
    raw = ctx.query.get(key)
    if not raw:
        return None
    return parse_datetime(raw, key).astimezone(BERLIN).date()


def _window(ctx: Context) -> tuple[date, date]:
    start = _day(ctx, "sevQuery[filter][startDate]") or date.min
    return start, _day(ctx, "sevQuery[filter][endDate]") or date.max


def _documents(kind: str) -> Rows:
    def rows(store: Store, start: date, end: date) -> list[list[str]]:
        docs = store.invoices if kind == "invoice" else store.credit_notes
        head = ["Nummer", "Datum", "Status", "Netto", "Steuer", "Brutto"]
        return [head] + [
            [d.number or "", f"{d.date:%d.%m.%Y}", str(d.status),
             f"{d.sumNet:f}", f"{d.sumTax:f}", f"{d.sumGross:f}"]
            for d in docs
            if start <= d.date.date() <= end and getattr(d, "invoiceType", None) != "WKR"
        ]  # fmt: skip

    return rows


def _vouchers(store: Store, start: date, end: date) -> list[list[str]]:
    head = ["Belegnummer", "Datum", "Lieferant", "Netto", "Steuer", "Brutto"]
    return [head] + [
        [v.description or "", f"{v.voucherDate:%d.%m.%Y}", v.supplierName or "",
         f"{v.sumNet:f}", f"{v.sumTax:f}", f"{v.sumGross:f}"]
        for v in store.vouchers
        if start <= v.voucherDate.date() <= end
    ]  # fmt: skip


def _transactions(store: Store, start: date, end: date) -> list[list[str]]:
    head = ["Datum", "Betrag", "Empfänger/Auftraggeber", "Verwendungszweck"]
    return [head] + [
        [f"{t.valueDate:%d.%m.%Y}", f"{t.amount:f}", t.payeePayerName or "", t.paymtPurpose or ""]
        for t in store.transactions
        if t.deletedAt is None and start <= t.valueDate.date() <= end
    ]


CSV: Final[dict[str, tuple[str, Rows]]] = {
    "invoiceCsv": ("Invoice", _documents("invoice")),
    "creditNoteCsv": ("CreditNote", _documents("credit_note")),
    "voucherListCsv": ("Voucher", _vouchers),
    "transactionsCsv": ("CheckAccountTransaction", _transactions),
}


@router.route("GET", "/Export/{action}")
def export_csv(ctx: Context) -> Reply:
    """:returns: the CSV export of one list. :raises FakeError: 400 without ``sevQuery``."""
    action = ctx.params["action"]
    if action not in CSV:
        raise FakeError(404, f"Unknown export {action}")
    model, rows = CSV[action]
    if ctx.query.get("sevQuery[modelName]") != model:
        raise FakeError(400, "sevQuery[modelName] is required")
    start, end = _window(ctx)
    return object_reply(exports.csv_file(rows(ctx.store, start, end), f"{action[:-3]}.csv"))


@router.route("GET", "/Export/createDatevCsvZipExportJob")
def start_datev(ctx: Context) -> Reply:
    """:returns: the job id. :raises FakeError: 400 without dates or scope."""
    try:
        start = datetime.fromtimestamp(int(ctx.query["startDate"]), BERLIN).date()
        end = datetime.fromtimestamp(int(ctx.query["endDate"]), BERLIN).date()
    except (KeyError, ValueError):
        raise FakeError(400, "startDate and endDate (Unix seconds) are required") from None
    if not ctx.query.get("scope"):
        raise FakeError(400, "scope is required")
    job = exports.start_job(ctx.store, start, end, enshrine=ctx.flag("enshrineDocuments"))
    return object_reply(job.id)


def _job(ctx: Context, key: str) -> exports.Job:
    ident = ctx.query.get(key, "").split("_")[-1]
    job = exports.exports_of(ctx.store).jobs.get(ident)
    if job is None:
        raise FakeError(404, "Unknown export job")
    return job


@router.route("GET", "/Progress/generateDownloadHash")
def download_hash(ctx: Context) -> Reply:
    """:returns: the progress hash of a job."""
    job = _job(ctx, "jobId")
    return object_reply(f"22ae177d286f17aac5daac591c70164159b64c7f_{job.id}")


@router.route("GET", "/Progress/getProgress")
def progress(ctx: Context) -> Reply:
    """:returns: ``[{current, total}]``, one step further each time."""
    job = _job(ctx, "hash")
    exports.advance(ctx.store, job)
    return object_reply([{"current": job.current, "total": exports.DONE}])


@router.route("GET", "/ExportJob/jobDownloadInfo")
def job_download_info(ctx: Context) -> Reply:
    """:returns: ``[]`` while the job runs, then its file's link."""
    return object_reply(exports.download_info(ctx.store, _job(ctx, "jobId")))
