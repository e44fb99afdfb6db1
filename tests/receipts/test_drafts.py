"""The receipt draft tools on the demo books: create, update, delete and finalize through the
whole write flow, every refusal before a request, and sevDesk's codes when the books changed
between the check and the write."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.errors import WriteRefusedError
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.paths import minimum_tier
from tests.documents.commit_helpers import (
    EXPENSE,
    VOUCHER_DRAFT,
    ChangeBefore,
    approved,
    commit_app,
)
from tests.receipts.helpers import (
    CREATE,
    DELETE,
    FINALIZE,
    MERCATURA,
    SUGGEST,
    UPDATE,
    UPLOAD,
    newest_voucher,
    receipts_app,
)
from tests.writes.helpers import approve
from tests.writes.tool_helpers import body, call, error_text, facts, person_said, undo, writes

pytestmark = pytest.mark.anyio
SAVE = "/Voucher/Factory/saveVoucher"


def _with(**changes: Any) -> dict[str, Any]:
    position = {**MERCATURA["positions"][0], **changes.pop("position", {})}
    return {**MERCATURA, "positions": [position], **changes}


async def test_create_sends_all_three_sums_and_reads_back() -> None:
    fake = build_demo()
    result = (await call(commit_app(fake), CREATE, **MERCATURA))["structuredContent"]
    assert result["status"] == "done"
    assert result["result"]["status"] == "Entwurf (draft)"
    sent = body(fake, "POST", SAVE)
    (pos,) = sent["voucherPosSave"]
    assert (pos["sumNet"], pos["sumTax"], pos["sumGross"]) == ("75.62", "14.37", "89.99")
    assert pos["accountDatev"] == {"id": 3494, "objectName": "AccountDatev"}
    assert sent["voucher"]["status"] == 50 and sent["voucher"]["creditDebit"] == "C"
    assert sent["voucher"]["voucherDate"] == "20.10.2026"


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"tax_rule_id": 12}, "does not take tax rule 12 at 19 %"),
        ({"position": {"account_number": "8400"}}, "takes only revenue receipts"),
        ({"position": {"account_number": "9999"}}, "has no receipt guidance"),
        ({"position": {"account_number": "4955"}}, "has no receipt guidance"),  # hidden
        ({"position": {"gross": "90.00"}}, "gives tax 14.37 and gross 89.99, not 90.00"),
        ({"position": {"gross": "-89.99"}}, "same sign"),
        ({"supplier_name": None}, "give supplier_id or supplier_name"),
        ({"supplier_id": 999999}, "There is no contact 999999"),
    ],
)
async def test_create_refuses_before_any_request(changes: dict[str, Any], said: str) -> None:
    fake = build_demo()
    text = error_text(await call(commit_app(fake), CREATE, **_with(**changes)))
    assert said in text
    assert writes(fake) == []


async def test_the_supplier_is_matched_by_iban_or_vat_id() -> None:
    fake = build_demo()
    contact = next(c for c in fake.store.contacts if c.bankAccount)
    args = _with(supplier_name="Someone Else", supplier_iban=contact.bankAccount)
    result = (await call(commit_app(fake), CREATE, **args, dryRun=True))["structuredContent"]
    shown = facts(result["preview"])
    assert f"(contact {contact.id}, matched by IBAN)" in shown["Supplier"]
    assert undo(result["preview"]) == "Way back: delete the draft again (delete the receipt draft)."
    assert person_said(result["preview"])[0] == (
        "Einen Belegentwurf in sevDesk anlegen; er lässt sich danach noch ändern oder löschen."
    )


async def test_a_lookalike_receipt_is_refused_unless_allowed() -> None:
    fake = build_demo()
    app = commit_app(fake)
    assert (await call(app, CREATE, **MERCATURA))["structuredContent"]["status"] == "done"
    text = error_text(await call(app, CREATE, **MERCATURA))
    assert "the same supplier and receipt number" in text
    again = _with(receipt_number="302-5521908")
    assert "the same supplier, date and gross" in error_text(await call(app, CREATE, **again))
    allowed = await call(app, CREATE, **MERCATURA, allow_duplicate=True)
    assert allowed["structuredContent"]["status"] == "done"


async def test_update_replaces_every_position_of_a_draft() -> None:
    fake = build_demo()
    app = commit_app(fake)
    result = await call(app, UPDATE, **MERCATURA, voucher_id=VOUCHER_DRAFT)
    assert result["structuredContent"]["status"] == "done", result
    sent = body(fake, "POST", SAVE)
    assert sent["voucher"]["id"] == VOUCHER_DRAFT
    assert [p["objectName"] for p in sent["voucherPosDelete"]] == ["VoucherPos"]
    voucher = fake.store.vouchers.get(VOUCHER_DRAFT)
    assert voucher.sumGross == Decimal("89.99")
    assert len(fake.store.voucher_positions_of(voucher)) == 1


async def test_open_receipts_are_neither_changed_nor_deleted() -> None:
    fake = build_demo()
    app = commit_app(fake)
    text = error_text(await call(app, UPDATE, **MERCATURA, voucher_id=EXPENSE))
    assert "is no draft (status 100)" in text
    assert "is no draft" in error_text(await call(app, DELETE, voucher_id=EXPENSE))
    assert "is no draft" in error_text(await call(app, FINALIZE, voucher_id=EXPENSE))
    assert writes(fake) == []


def _finalize_meanwhile(store: Store) -> None:
    store.vouchers.get(VOUCHER_DRAFT).status = 100


async def test_code_90400_when_the_draft_was_finalized_meanwhile() -> None:
    fake = build_demo()
    app = commit_app(fake, transport=ChangeBefore(fake, "POST", SAVE, _finalize_meanwhile))
    text = error_text(await call(app, UPDATE, **MERCATURA, voucher_id=VOUCHER_DRAFT))
    assert "sevDesk refused (code 90400)" in text


async def test_code_159_when_the_draft_was_finalized_before_the_delete() -> None:
    fake = build_demo()
    path = f"/Voucher/{VOUCHER_DRAFT}"
    app = commit_app(fake, transport=ChangeBefore(fake, "DELETE", path, _finalize_meanwhile))
    text = error_text(await call(app, DELETE, voucher_id=VOUCHER_DRAFT))
    assert "sevDesk refused (code 159)" in text


async def test_delete_removes_a_draft() -> None:
    fake = build_demo()
    result = await call(commit_app(fake), DELETE, voucher_id=VOUCHER_DRAFT)
    assert result["structuredContent"]["result"]["written"] == [
        f"deleted receipt draft {VOUCHER_DRAFT}"
    ]
    assert fake.store.vouchers.find(VOUCHER_DRAFT) is None


async def test_finalize_asks_the_human_and_checks_the_guidance_again() -> None:
    fake = build_demo()
    app = commit_app(fake)
    fake.store.vouchers.get(VOUCHER_DRAFT).taxRule = fake.store.vouchers.get(EXPENSE).taxRule
    message, result = await approved(app, FINALIZE, voucher_id=VOUCHER_DRAFT)
    assert "WARNING: This cannot be undone." in message
    assert "No receipt file is attached" in message
    assert result["structuredContent"]["result"]["status"] == "offen (open)"
    sent = body(fake, "POST", SAVE)
    assert sent["voucher"]["status"] == 100 and sent["voucherPosSave"][0]["id"]


async def test_finalize_refuses_a_combination_the_guidance_does_not_allow() -> None:
    fake = build_demo()
    draft = fake.store.vouchers.get(VOUCHER_DRAFT)  # 4940 at 7 %
    draft.taxRule = type(draft.taxRule)("TaxRule", 12)  # type: ignore[misc]
    text = error_text(await call(commit_app(fake), FINALIZE, voucher_id=VOUCHER_DRAFT))
    assert "does not take tax rule 12 at 7 %" in text
    assert writes(fake) == []


def test_a_save_voucher_that_finalizes_needs_the_commit_tier() -> None:
    draft: JsonObject = {"voucher": {"status": 50}}
    assert minimum_tier("POST", SAVE, {}, draft) is Tier.WRITE
    final: JsonObject = {"voucher": {"status": 100}}
    assert minimum_tier("POST", SAVE, {}, final) is Tier.COMMIT
    assert minimum_tier("POST", SAVE, {}, None) is Tier.COMMIT
    assert minimum_tier("POST", "/Voucher/Factory/uploadTempFile", {}) is Tier.WRITE
    gate = WriteGate(tiers=frozenset({Tier.READ, Tier.WRITE}))
    with pytest.raises(WriteRefusedError, match="needs the commit tier"):
        gate.check("POST", SAVE, {}, Tier.WRITE, final)


async def test_a_declined_finalize_changes_nothing() -> None:
    fake = build_demo()
    _, declined = await approved(
        commit_app(fake), FINALIZE, approve(False), voucher_id=VOUCHER_DRAFT
    )
    assert declined["structuredContent"]["status"] == "declined"
    assert writes(fake) == []


async def test_upload_without_folders_names_the_setting(tmp_path: Path) -> None:
    fake = build_demo()
    text = error_text(await call(receipts_app(fake, None), UPLOAD, path="beleg.pdf"))
    assert "SEVDESK_FILE_DIRS" in text


async def test_suggestions_give_reasons_and_never_guess() -> None:
    fake = build_demo()
    app = commit_app(fake)
    found = (await call(app, SUGGEST, description="Druckerpapier und Ordner", tax_rate=19))[
        "structuredContent"
    ]
    first = found["suggestions"][0]
    assert first["account_number"] == "4930"
    assert "typical for office supplies (SKR03 4930" in first["reason"]
    assert (first["tax_rule_id"], first["tax_rate"], first["confidence"]) == (9, "19", "medium")
    assert first["rate_fits"] is True and "tax rule 9" in first["allowed"]
    none = (await call(app, SUGGEST, description="xyzzy qwerty"))["structuredContent"]
    assert none["suggestions"] == [] and "nothing is guessed" in none["note"]
    assert "give the receipt's text" in none["missing"]
    assert writes(fake) == []


async def test_the_created_receipt_is_the_newest() -> None:
    fake = build_demo()
    await call(commit_app(fake), CREATE, **MERCATURA)
    assert newest_voucher(fake).description == "302-5521907"
