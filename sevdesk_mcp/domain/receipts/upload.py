"""Uploading a receipt file (``POST /Voucher/Factory/uploadTempFile``, multipart field ``file``,
``docs/sevdesk-api.md`` §2.7, §5.3).

``prepare`` reads the local file once, through the call's file access (folders, type, size) and
shows its SHA-256 in the preview; the plan holds exactly those bytes, so what is uploaded is what
was previewed, even if the file changes on disk afterwards. A caller may pin the content with the
SHA-256 of an earlier preview: a different file is then refused before anything is sent.
sevDesk answers with a temporary ``filename`` that a receipt draft takes; no OCR runs.
"""

from __future__ import annotations

from typing import Final, Protocol, runtime_checkable

import msgspec

from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import (
    OutcomeUnknownError,
    ToolError,
    ToolInputError,
)
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.files import FileAccess, LocalFile
from sevdesk_mcp.safety.preview import Preview, fact, quoted, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.client import Upload
from sevdesk_mcp.sevdesk.envelope import one

UPLOAD_PATH: Final = "/Voucher/Factory/uploadTempFile"


@runtime_checkable
class Uploader(Protocol):
    """A sevDesk client that can send a file (the account's client and its views)."""

    async def upload(self, path: str, file: Upload) -> JsonValue:
        """Send ``file`` as multipart; at most once.

        :raises UpstreamError: the classified failure.
        """
        ...


class UploadPlan(msgspec.Struct, frozen=True):
    """The file to send, as read and hashed in ``prepare``."""

    file: LocalFile


class UploadedFile(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt file in sevDesk's temporary storage: ``filename`` goes to a receipt draft."""

    filename: str
    sha256: str
    media_type: str
    size_bytes: int
    source: str
    written: list[str]


class _Answer(msgspec.Struct, frozen=True):
    filename: str
    contentHash: str | None = None


def prepare_upload(files: FileAccess, path: str, sha256: str | None) -> Prepared[UploadPlan]:
    """Read and check the file (nothing is sent).

    :returns: the preview (with the SHA-256) and the plan holding the bytes.
    :raises FileAccessError: if the file may not or cannot be read.
    :raises ToolInputError: if ``sha256`` is given and the file's content differs.
    """
    local = files.read(path)
    if sha256 is not None and sha256.strip().lower() != local.sha256:
        raise ToolInputError(
            f"'{path}' is not the file that was previewed: its SHA-256 is now {local.sha256}, "
            f"not {sha256.strip().lower()}. It was replaced or changed; check it, then preview "
            "it again. Nothing was sent."
        )
    facts = [
        fact("File", "Datei", quoted(local.given)),
        fact("Type", "Typ", say("{0} (by content)", "{0} (nach Inhalt)", local.media_type)),
        fact("Size", "Größe", say("{0} bytes", "{0} Bytes", local.size)),
        fact("SHA-256", "SHA-256", local.sha256),
    ]
    action = say(
        "Upload a receipt file to sevDesk (temporary: it joins the books only when a receipt "
        "draft uses it).",
        "Eine Belegdatei zu sevDesk hochladen (vorläufig: Sie kommt erst in die Buchhaltung, "
        "wenn ein Belegentwurf sie verwendet).",
    )
    preview = Preview(action=action, facts=facts)
    return Prepared(preview, UploadPlan(local))


async def execute_upload(client: object, plan: UploadPlan, progress: Progress) -> UploadedFile:
    """Send the planned bytes once.

    :returns: sevDesk's temporary file name and what was sent.
    :raises ToolError: if the client cannot upload files.
    :raises OutcomeUnknownError: if no answer came (a second upload is harmless: temp files).
    :raises UpstreamError: if sevDesk refuses the file.
    """
    if not isinstance(client, Uploader):
        raise ToolError("This connection to sevDesk cannot upload files.")
    local = plan.file
    sent = Upload(local.name, local.data, local.media_type)
    try:
        answer = wire.parse(one(await client.upload(UPLOAD_PATH, sent)), _Answer)
    except OutcomeUnknownError as exc:
        raise OutcomeUnknownError(
            f"{exc} The upload only fills sevDesk's temporary storage; uploading again is harmless."
        ) from None
    progress.done(f"uploaded {local.name} ({local.size} bytes)")
    return UploadedFile(
        filename=answer.filename,
        sha256=local.sha256,
        media_type=local.media_type,
        size_bytes=local.size,
        source=local.given,
        written=[f"uploaded {local.name} as {answer.filename}"],
    )
