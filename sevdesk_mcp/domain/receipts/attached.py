"""The file attached to a receipt, as sevDesk holds it: ``GET /Document/{id}`` names it and
``GET /Document/{id}/download`` gives its bytes (base64), ``docs/sevdesk-api.md`` §2.7.

Finalizing a receipt reads it back in ``prepare`` and shows its name, size and SHA-256 in the
preview, so the approval binds the file itself: a file replaced in sevDesk after the human
approved (another upload on the draft, or new bytes behind the same document id) changes the
basis, and the action asks again instead of running. sevDesk sends no hash of its own; the
SHA-256 is computed here from the downloaded bytes, so it compares with the SHA-256 the upload
showed for the local file; a draft saved with a pinned SHA-256 is checked against it on read-back
(:func:`saved_file_line`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import ClassVar

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.safety.preview import Fact, Said, Words, fact, quoted, say
from sevdesk_mcp.safety.redact import Undisclosed
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path


class _Meta(msgspec.Struct, frozen=True):
    filename: str | None = None
    extension: str | None = None
    mimeType: str | None = None


class _Saved(msgspec.Struct, frozen=True):
    document: wire.Ref | None = None


class _Content(Undisclosed, msgspec.Struct, frozen=True):
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"content"})

    content: str
    base64Encoded: bool = True


class AttachedFile(msgspec.Struct, frozen=True):
    """A receipt's file as read back: its name in sevDesk, size, SHA-256 and type."""

    document_id: int
    name: str
    size: int
    sha256: str
    media_type: str | None

    def said(self) -> Said:
        """:returns: the file in one line for a preview; the name is third-party text."""
        kind = f", {self.media_type}" if self.media_type else ""
        return say(
            "{0} (document {1}), {2} bytes{3}",
            "{0} (Dokument {1}), {2} Bytes{3}",
            quoted(self.name),
            self.document_id,
            self.size,
            kind,
        )

    def shown(self) -> str:
        """:returns: the file in one line for the model (the name fenced)."""
        return Words("en", "model").text(self.said())


async def read_attached(client: SevdeskPort, document_id: int, where: str) -> AttachedFile:
    """Read a receipt's file back from sevDesk and hash it.

    :param where: the receipt in words, for errors (``Beleg (receipt) 800031``).
    :returns: its name, size, SHA-256 and type.
    :raises PreconditionError: if sevDesk's answer holds no readable content (too large for
        one answer, or not base64).
    :raises NotFoundError: if the document is gone.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    meta = wire.parse(one(await client.get(api_path("Document", document_id))), _Meta)
    try:
        answer = one(await client.get(api_path("Document", document_id, "download")))
        data = _decoded(wire.parse(answer, _Content))
    except (MalformedResponseError, binascii.Error, UnicodeEncodeError) as exc:
        raise PreconditionError(
            f"The file of {where} (Document {document_id}) cannot be read back from sevDesk "
            f"({exc}). A binding action on a receipt shows and binds the SHA-256 of its file, "
            "so nothing was done; check the file in sevDesk (a file over about 7 MiB does not "
            "fit in one answer), or finish this step in sevDesk itself.",
            record=where,
        ) from None
    return AttachedFile(
        document_id=document_id,
        name=_name(meta, document_id),
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        media_type=meta.mimeType,
    )


async def attached_of(
    client: SevdeskPort, document: wire.Ref | None, where: str
) -> AttachedFile | None:
    """:returns: the file of a receipt whose ``document`` ref is given, ``None`` without one.

    :raises PreconditionError: as :func:`read_attached`.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if document is None:
        return None
    return await read_attached(client, document.id, where)


def preview_facts(attached: AttachedFile | None) -> list[Fact]:
    """:returns: the preview lines of a receipt's file: ``File`` (name, document, size, type)
    and ``File SHA-256``; only ``File`` saying so when none is attached."""
    if attached is None:
        none = say("(none: no receipt file is attached)", "(keine: es hängt keine Belegdatei an)")
        return [fact("File", "Datei", none)]
    return [fact("File", "Datei", attached.said()), fact("File SHA-256", "SHA-256 der Datei",
            attached.sha256)]  # fmt: skip


async def saved_file_line(client: SevdeskPort, voucher_id: int, sha256: str | None) -> str:
    """Read back the file a receipt draft got from its save, and check it against ``sha256``
    (the SHA-256 the upload showed), when given.

    :returns: the written line naming the file, its size and SHA-256.
    :raises PreconditionError: if the receipt holds no file, or another one than ``sha256``.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    where = f"Beleg (receipt) draft {voucher_id}"
    saved = wire.parse(await read_raw(client, "Voucher", voucher_id), _Saved)
    try:
        attached = await attached_of(client, saved.document, where)
    except PreconditionError:  # read_attached says "nothing was done": here the draft exists
        raise PreconditionError(
            f"{where} was saved, but its file could not be read back from sevDesk to check "
            "it. Check the draft's file in sevDesk before finalizing it (finalizing reads it "
            "again and shows its SHA-256).",
            record=where,
        ) from None
    if attached is None:
        raise PreconditionError(
            f"{where} was saved, but sevDesk attached no file to it. Upload the receipt file "
            "again and update the draft with the new filename.",
            record=where,
        )
    if sha256 is not None and attached.sha256 != sha256.strip().lower():
        raise PreconditionError(
            f"{where} was saved, but the file sevDesk attached has SHA-256 {attached.sha256}, "
            f"not {sha256.strip().lower()} as uploaded. Check the draft's file; delete the "
            "draft, or update it with the right file, before finalizing it.",
            record=where,
        )
    return f"attached file {attached.shown()}, SHA-256 {attached.sha256}"


def _decoded(content: _Content) -> bytes:
    if not content.base64Encoded:
        return content.content.encode("latin-1")
    return base64.b64decode(content.content, validate=True)


def _name(meta: _Meta, document_id: int) -> str:
    name = (meta.filename or "").strip() or f"document_{document_id}"
    extension = (meta.extension or "").strip().lstrip(".")
    if extension and not name.lower().endswith(f".{extension.lower()}"):
        return f"{name}.{extension}"
    return name
