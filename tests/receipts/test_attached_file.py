"""The file of a receipt as sevDesk holds it: the fake's ``GET /Document/{id}`` and
``/download`` (D-083), the draft tools carrying the upload's SHA-256 through, and the finalize
showing and binding the attached file's name, size and SHA-256 (a file replaced after the
approval asks again; nothing is finalized)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.receipts import Voucher
from sevdesk_mcp.fake.voucher_saves import replace_document
from sevdesk_mcp.mcp.app import McpApp
from tests.documents.commit_helpers import VOUCHER_DRAFT, approved, facts
from tests.fake.helpers import api, assert_error
from tests.receipts.helpers import (
    CREATE,
    FINALIZE,
    FIXTURES,
    MERCATURA,
    MERCATURA_PDF,
    UPDATE,
    UPLOAD,
    newest_voucher,
    receipt_folder,
    receipts_app,
)
from tests.wire import FORM, open_wire
from tests.writes.helpers import approve
from tests.writes.tool_helpers import call, error_text, said, writes

pytestmark = pytest.mark.anyio
PDF_BYTES = (FIXTURES / MERCATURA_PDF).read_bytes()
PDF_SHA = hashlib.sha256(PDF_BYTES).hexdigest()
OTHER_PDF = b"%PDF-1.4\n% another supplier's invoice, same name\n%%EOF\n"
SAVED = "POST /Voucher/Factory/saveVoucher"


async def _drafted(app: McpApp, fake: FakeSevdesk, **extra: Any) -> Voucher:
    upload = (await call(app, UPLOAD, path=MERCATURA_PDF))["structuredContent"]["result"]
    created = await call(app, CREATE, **MERCATURA, file=upload["filename"], **extra)
    assert created["structuredContent"]["status"] == "done", created
    return newest_voucher(fake)


async def _setup(tmp_path: Path) -> tuple[FakeSevdesk, McpApp, Voucher]:
    fake = build_demo()
    app = receipts_app(fake, receipt_folder(tmp_path))
    return fake, app, await _drafted(app, fake)


async def _ask_change_approve(
    app: McpApp, voucher: Voucher, change: Callable[[], Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ask to finalize, let ``change`` run behind the human's back, then retry approved.

    :returns: the first and the retried result.
    """
    params = {"name": FINALIZE, "arguments": {"voucher_id": voucher.id}}
    async with open_wire(app) as wire:
        first = (await wire.modern("tools/call", params, caps=FORM))["result"]
        assert "inputRequests" in first, first
        await change()
        again = {**params, "requestState": first["requestState"], "inputResponses": approve()}
        retry = (await wire.modern("tools/call", again, caps=FORM))["result"]
    return first, retry


def _message(result: dict[str, Any]) -> str:
    (form,) = result["inputRequests"].values()
    return str(form["params"]["message"])


async def test_the_fake_serves_a_vouchers_file_by_its_document(tmp_path: Path) -> None:
    fake, _, voucher = await _setup(tmp_path)
    assert voucher.document is not None
    ident = voucher.document.id
    async with api(fake) as client:
        (meta,) = (await client.get(f"/Document/{ident}")).json()["objects"]
        download = (await client.get(f"/Document/{ident}/download")).json()["objects"]
        assert_error(await client.get("/Document/4711"), 404, 151)
        assert_error(await client.get("/Document/4711/download"), 404, 151)
    assert meta["objectName"] == "Document" and meta["id"] == str(ident)
    assert (meta["filename"], meta["extension"]) == (MERCATURA_PDF, "pdf")
    assert (meta["filesize"], meta["mimeType"]) == (str(len(PDF_BYTES)), "application/pdf")
    assert download["base64Encoded"] is True
    assert base64.b64decode(download["content"]) == PDF_BYTES


async def test_a_replaced_document_keeps_its_id_and_shows_the_new_bytes(tmp_path: Path) -> None:
    fake, _, voucher = await _setup(tmp_path)
    assert voucher.document is not None
    before = voucher.update
    replace_document(fake.store, voucher.document.id, OTHER_PDF)
    async with api(fake) as client:
        download = (await client.get(f"/Document/{voucher.document.id}/download")).json()
    assert base64.b64decode(download["objects"]["content"]) == OTHER_PDF
    assert voucher.update == before  # the voucher itself does not change


async def test_the_draft_carries_the_uploads_sha256_through(tmp_path: Path) -> None:
    fake = build_demo()
    app = receipts_app(fake, receipt_folder(tmp_path))
    upload = (await call(app, UPLOAD, path=MERCATURA_PDF))["structuredContent"]["result"]
    assert upload["sha256"] == PDF_SHA
    created = await call(
        app, CREATE, **MERCATURA, file=upload["filename"], file_sha256=PDF_SHA.upper()
    )
    done = created["structuredContent"]
    assert done["status"] == "done", created
    assert facts(done["preview"])["File"] == (
        f"⟦{upload['filename']}⟧, SHA-256 {PDF_SHA} (checked after saving)"
    )
    (line,) = [w for w in done["result"]["written"] if w.startswith("attached file")]
    assert MERCATURA_PDF in line and f"{len(PDF_BYTES)} bytes" in line and PDF_SHA in line


async def test_a_draft_whose_saved_file_differs_from_the_pin_is_reported(tmp_path: Path) -> None:
    fake = build_demo()
    app = receipts_app(fake, receipt_folder(tmp_path))
    upload = (await call(app, UPLOAD, path=MERCATURA_PDF))["structuredContent"]["result"]
    wrong = "0" * 64
    text = error_text(
        await call(app, CREATE, **MERCATURA, file=upload["filename"], file_sha256=wrong)
    )
    assert f"has SHA-256 {PDF_SHA}, not {wrong}" in text
    assert "Already changed before the failure: created receipt draft" in text
    assert newest_voucher(fake).status == 50  # a draft, still to be checked; nothing binding


async def test_a_sha256_without_a_file_is_refused_before_any_request() -> None:
    fake = build_demo()
    text = error_text(
        await call(receipts_app(fake, None), CREATE, **MERCATURA, file_sha256=PDF_SHA)
    )
    assert "file_sha256 was given without file" in text
    assert writes(fake) == []


async def test_the_finalize_preview_shows_the_file_as_sevdesk_holds_it(tmp_path: Path) -> None:
    _, app, voucher = await _setup(tmp_path)
    message, done = await approved(app, FINALIZE, voucher_id=voucher.id)
    shown = facts(done["structuredContent"]["preview"])
    assert voucher.document is not None
    assert shown["File"] == (
        f"⟦{MERCATURA_PDF}⟧ (document {voucher.document.id}), {len(PDF_BYTES)} bytes, "
        "application/pdf"
    )
    assert shown["File SHA-256"] == PDF_SHA
    assert PDF_SHA in message and MERCATURA_PDF in message
    assert voucher.status == 100


async def test_a_finalize_without_a_file_says_so() -> None:
    fake = build_demo()
    _, done = await approved(receipts_app(fake, None), FINALIZE, voucher_id=VOUCHER_DRAFT)
    preview = done["structuredContent"]["preview"]
    assert facts(preview)["File"] == "(none: no receipt file is attached)"
    assert "File SHA-256" not in facts(preview)
    assert "No receipt file is attached to this receipt." in said(preview)[1]


async def test_a_file_replaced_in_sevdesk_after_the_approval_asks_again(tmp_path: Path) -> None:
    fake, app, voucher = await _setup(tmp_path)
    assert voucher.document is not None
    document = voucher.document.id
    saves = writes(fake).count(SAVED)

    async def replace() -> None:
        replace_document(fake.store, document, OTHER_PDF)

    first, retry = await _ask_change_approve(app, voucher, replace)
    assert PDF_SHA in _message(first)
    assert "inputRequests" in retry, retry  # asked again, not done
    renewed = _message(retry)
    assert "'File'" in renewed.split("\n")[0] and "'File SHA-256'" in renewed.split("\n")[0]
    assert hashlib.sha256(OTHER_PDF).hexdigest() in renewed
    assert voucher.status == 50
    assert writes(fake).count(SAVED) == saves  # nothing finalized


async def test_another_upload_on_the_draft_after_the_approval_asks_again(tmp_path: Path) -> None:
    fake, app, voucher = await _setup(tmp_path)
    folder = tmp_path / "belege"
    (folder / "andere.pdf").write_bytes(OTHER_PDF)
    saves = writes(fake).count(SAVED)

    async def upload_another() -> None:
        upload = (await call(app, UPLOAD, path="andere.pdf"))["structuredContent"]["result"]
        changed = await call(
            app, UPDATE, **MERCATURA, voucher_id=voucher.id, file=upload["filename"]
        )
        assert changed["structuredContent"]["status"] == "done", changed

    _, retry = await _ask_change_approve(app, voucher, upload_another)
    assert "inputRequests" in retry, retry
    assert hashlib.sha256(OTHER_PDF).hexdigest() in _message(retry)
    assert voucher.status == 50
    assert writes(fake).count(SAVED) == saves + 1  # the update only, no finalize
