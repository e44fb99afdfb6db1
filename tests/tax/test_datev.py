"""The DATEV export job against the fake: its lifecycle with progress, and the download
guard refusing another host, credentials in the link, a redirect and an oversized file."""

from __future__ import annotations

import io
import zipfile

import anyio
import httpx
import pytest

from sevdesk_mcp.domain.port import observed
from sevdesk_mcp.domain.reports import exports
from sevdesk_mcp.domain.reports.datev.extf import read_extf
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.errors import DownloadRefusedError, WriteRefusedError
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.exports import STORAGE_HOST, FileStorage
from sevdesk_mcp.fake.tax_year import TaxYearFacts
from sevdesk_mcp.sevdesk import download
from sevdesk_mcp.sevdesk.client import SevdeskClient

pytestmark = pytest.mark.anyio
OCTOBER = parse_period("2026-10")
LINK = f"https://{STORAGE_HOST}/job/zip/file.zip"


class Recorder:
    """Records what an observer is told."""

    def __init__(self) -> None:
        self.progress: list[tuple[str, int, int | None]] = []
        self.paths: list[str] = []

    async def answered(self, method: str, path: str) -> None:
        self.paths.append(path)

    async def listed(self, path: str, read: int, total: int | None) -> None:
        self.progress.append((path, read, total))


async def _no_wait(_: float) -> None:
    await anyio.lowlevel.checkpoint()


async def test_the_job_runs_reports_progress_and_downloads(
    year: tuple[FakeSevdesk, TaxYearFacts], client: SevdeskClient
) -> None:
    fake, _ = year
    recorder = Recorder()
    token = download.FILE_TRANSPORT.set(FileStorage(fake.store))
    try:
        with observed(recorder):
            job = await exports.datev_export(client, OCTOBER, images=False, wait=_no_wait)
    finally:
        download.FILE_TRANSPORT.reset(token)
    assert recorder.progress == [("the DATEV export", 50, 100), ("the DATEV export", 100, 100)]
    assert "/Export/createDatevCsvZipExportJob" in recorder.paths
    assert job.file.name.endswith("20261001_bis_20261031.zip")
    with zipfile.ZipFile(io.BytesIO(job.file.data)) as archive:
        batch = read_extf(archive.read("EXTF_Buchungsstapel.csv"))
    belege = {row[10] for row in batch.rows}  # Belegfeld 1
    assert "RE-T-1001" in belege and "RE-T-0902" not in belege
    started = [r for r in fake.requests if r.path == "/Export/createDatevCsvZipExportJob"]
    assert started[0].query["enshrineDocuments"] == "false"


async def test_enshrining_needs_the_commit_tier(client: SevdeskClient) -> None:
    with pytest.raises(WriteRefusedError, match="Refused GET /Export/createDatevCsvZipExportJob"):
        await exports.datev_export(client, OCTOBER, images=False, enshrine=True, wait=_no_wait)


async def test_a_job_that_never_finishes_is_named(
    year: tuple[FakeSevdesk, TaxYearFacts], client: SevdeskClient
) -> None:
    with pytest.raises(Exception, match="did not finish within 1 checks"):
        await exports.datev_export(client, OCTOBER, images=False, wait=_no_wait, max_polls=1)


@pytest.mark.parametrize(
    ("link", "words"),
    [
        ("https://evil.example.com/file.zip", "not to sevDesk's export file storage"),
        (f"https://user:secret@{STORAGE_HOST}/f.zip", "carries credentials"),
        (f"http://{STORAGE_HOST}/f.zip", "not a plain https link"),
        (f"https://{STORAGE_HOST}:8443/f.zip", "not a plain https link"),
        (f"https://{STORAGE_HOST}.evil.example/f.zip", "not to sevDesk's export file storage"),
    ],
)
async def test_links_are_refused_before_anything_is_sent(link: str, words: str) -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, content=b"x")

    with pytest.raises(DownloadRefusedError, match=words):
        await download.fetch(link, transport=httpx.MockTransport(handler))
    assert sent == []


async def test_a_redirect_is_not_followed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"Location": "https://evil.example.com/x"})

    with pytest.raises(DownloadRefusedError, match="redirect"):
        await download.fetch(LINK, transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("declared", [True, False])
async def test_an_oversized_file_is_refused(declared: bool) -> None:
    body = b"z" * 2048

    def handler(request: httpx.Request) -> httpx.Response:
        response = httpx.Response(200, content=body)
        if not declared:
            del response.headers["Content-Length"]
        return response

    with pytest.raises(DownloadRefusedError, match="larger than"):
        await download.fetch(LINK, transport=httpx.MockTransport(handler), max_bytes=1024)


async def test_the_download_sends_no_token() -> None:
    seen: list[httpx.Headers] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        return httpx.Response(200, content=b"PK")

    assert await download.fetch(LINK, transport=httpx.MockTransport(handler)) == b"PK"
    assert "authorization" not in seen[0]
