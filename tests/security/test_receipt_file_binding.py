"""A receipt file replaced after the approval (threat case FA10, issue 19): the approval of a
receipt's finalize binds the SHA-256 of the file attached to it as sevDesk holds it, read back
in ``prepare``. New bytes behind the same document id, which leave the voucher record itself
unchanged, void the approval: the human is asked again with the new SHA-256, and nothing is
finalized until they approve the file they now see."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.voucher_saves import replace_document
from tests.receipts.helpers import (
    CREATE,
    FINALIZE,
    FIXTURES,
    MERCATURA,
    MERCATURA_PDF,
    UPLOAD,
    newest_voucher,
    receipt_folder,
    receipts_app,
)
from tests.wire import FORM, Wire, open_wire
from tests.writes.helpers import approve
from tests.writes.tool_helpers import call, writes

pytestmark = [pytest.mark.anyio, pytest.mark.threat("FA10")]
SWAPPED = b"%PDF-1.4\n% Rechnung 302-5521907, IBAN DE00 9999 0000 0000 0000 00\n%%EOF\n"
FINALIZED = "POST /Voucher/Factory/saveVoucher"


async def _ask(wire: Wire, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    params = {"name": FINALIZE, "arguments": arguments, **extra}
    result: dict[str, Any] = (await wire.modern("tools/call", params, caps=FORM))["result"]
    return result


def _message(result: dict[str, Any]) -> str:
    (form,) = result["inputRequests"].values()
    return str(form["params"]["message"])


async def test_a_receipt_file_replaced_after_the_approval_voids_it(tmp_path: Path) -> None:
    fake = build_demo()
    app = receipts_app(fake, receipt_folder(tmp_path))
    upload = (await call(app, UPLOAD, path=MERCATURA_PDF))["structuredContent"]["result"]
    await call(app, CREATE, **MERCATURA, file=upload["filename"], file_sha256=upload["sha256"])
    voucher = newest_voucher(fake)
    assert voucher.document is not None
    original = hashlib.sha256((FIXTURES / MERCATURA_PDF).read_bytes()).hexdigest()
    swapped = hashlib.sha256(SWAPPED).hexdigest()
    saves = writes(fake).count(FINALIZED)
    arguments = {"voucher_id": voucher.id}
    async with open_wire(app) as wire:
        first = await _ask(wire, arguments)
        assert original in _message(first)
        replace_document(fake.store, voucher.document.id, SWAPPED)  # behind the human's back
        retry = await _ask(
            wire, arguments, requestState=first["requestState"], inputResponses=approve()
        )
        assert "inputRequests" in retry, retry  # refused: asked again, not done
        renewed = _message(retry)
        assert renewed.startswith("The records changed since you were asked (")
        assert "'File SHA-256'" in renewed.split("\n")[0]
        assert swapped in renewed and original not in renewed
        assert voucher.status == 50 and writes(fake).count(FINALIZED) == saves
        done = await _ask(
            wire, arguments, requestState=retry["requestState"], inputResponses=approve()
        )
    assert done["structuredContent"]["status"] == "done", done  # the file the human now saw
    assert voucher.status == 100 and writes(fake).count(FINALIZED) == saves + 1
