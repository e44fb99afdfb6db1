"""Toolset ``vouchers``: ask the human for a file over HTTP (``SEVDESK_HTTP_FILES``).

``sevdesk_request_upload`` creates an empty upload slot for the calling grant and returns its
reference (``upload:<id>``) and the page where the human uploads the file; the model never sees
or sends the bytes and puts no text on that page. Tools that take a local path
(``sevdesk_upload_receipt``) take the reference instead, once the human has uploaded.
:func:`offer_download` turns a delivery (a PDF) into a short-lived download page of the account.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.safety.transfers import ACCEPTED, CALLER
from sevdesk_mcp.tools.define import Annotations, ToolContext, define_tool

UPLOAD_ANNOTATIONS = Annotations(
    read_only=False, destructive=False, idempotent=False, open_world=False
)
STDIO_FILES: Final = (
    "This server runs on your own machine (stdio), where files are given as local paths: put "
    "the file into a folder of SEVDESK_FILE_DIRS and give its path."
)
BEARER_FILES: Final = (
    "This server runs over HTTP in bearer mode, which has no file transfer: the upload and "
    "download pages need each person to sign in with their sevDesk account, and bearer mode "
    "has no such sign-in (one shared secret). File transfer needs OAuth mode "
    "(SEVDESK_HTTP_AUTH=oauth); or use a server on your own machine (stdio) with "
    "SEVDESK_FILE_DIRS and SEVDESK_OUTPUT_DIR, or sevDesk itself."
)
FILES_OFF: Final = (
    "This server runs over HTTP in OAuth mode with file transfer turned off by its operator "
    "(SEVDESK_HTTP_FILES=off); removing that setting turns it on. Otherwise use a server on "
    "your own machine (stdio), or sevDesk itself."
)


def no_transfer(account: AccountContext) -> str:
    """:returns: why no file can cross this connection, and what would change it, for the
    configuration at hand (stdio, bearer mode, or OAuth mode with ``SEVDESK_HTTP_FILES=off``)."""
    if account.principal == "local":
        return STDIO_FILES
    if account.principal == "bearer":
        return BEARER_FILES
    return FILES_OFF


class RequestUploadInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_request_upload``."""

    purpose: Literal["receipt"] = "receipt"


class UploadRequest(msgspec.Struct, frozen=True, kw_only=True):
    """Where the human uploads the file, and the reference to pass on afterwards."""

    reference: Annotated[str, msgspec.Meta(description="Pass as the path once uploaded")]
    upload_page: str
    expires_at: str
    max_bytes: int
    accepted_types: list[str]
    note: str


async def _request(args: RequestUploadInput, ctx: ToolContext) -> UploadRequest:
    caller = CALLER.get()
    if caller is None:  # not listed there; a test's own catalog may still call it
        raise ToolError(f"File transfer is not available here. {no_transfer(ctx.account)}")
    record = await caller.store.request_upload(caller.owner)
    expires = dt.datetime.fromtimestamp(record.expires, dt.UTC).isoformat(timespec="seconds")
    return UploadRequest(
        reference=record.reference,
        upload_page=caller.upload_url(record),
        expires_at=expires,
        max_bytes=caller.store.limits.max_upload_bytes,
        accepted_types=list(ACCEPTED),
        note=(
            "Give the user the upload page; they sign in with their sevDesk account and upload "
            "the file there. Then call sevdesk_upload_receipt with path set to the reference. "
            "You cannot upload or read the file yourself."
        ),
    )


def can_offer() -> bool:
    """:returns: whether this tool call can hand out download pages (HTTP with file transfer)."""
    return CALLER.get() is not None


async def offer_download(name: str, media_type: str, data: bytes) -> str | None:
    """:returns: the download page of a new delivery for the current grant, or ``None``
    without file transfer (stdio, or ``SEVDESK_HTTP_FILES=off``).

    :raises TransferRefusedError: if the account's limits are reached.
    :raises StateUnavailableError: if the shared state cannot be reached.
    """
    caller = CALLER.get()
    if caller is None:
        return None
    return caller.download_url(await caller.store.offer(caller.owner, name, media_type, data))


REQUEST_UPLOAD = define_tool(
    name="sevdesk_request_upload",
    title="Ask the user to upload a file",
    description=(
        "Over HTTP: makes a page where the user uploads a receipt file; pass the returned "
        "upload:<id> as path to sevdesk_upload_receipt within 30 minutes."
    ),
    toolset="vouchers",
    tier=Tier.WRITE,  # it serves the receipt upload (write); it changes nothing in sevDesk
    annotations=UPLOAD_ANNOTATIONS,
    input=RequestUploadInput,
    output=UploadRequest,
    handler=_request,
    needs_files="transfer",  # listed only over HTTP with file transfer on (registry)
)

TOOLS = (REQUEST_UPLOAD,)
