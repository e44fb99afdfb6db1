"""Filing an e-invoice as a receipt draft through the receipts flow: the file is read once,
checked, turned into positions (suggested or given accounts), and the plan uploads exactly
those bytes and creates the draft with them as its document."""

from __future__ import annotations

import anyio
import msgspec

from sevdesk_mcp.domain.documents.lifecycle import VoucherWritten
from sevdesk_mcp.domain.einvoice import report as reports
from sevdesk_mcp.domain.einvoice.model import Invoice
from sevdesk_mcp.domain.einvoice.values import date_of
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import drafts, upload
from sevdesk_mcp.domain.receipts.drafts import ReceiptDraft, ReceiptPlan
from sevdesk_mcp.domain.receipts.einvoice_voucher import (
    VoucherSuggestion,
    query_of,
    suggest_voucher,
    suggested_case,
)
from sevdesk_mcp.domain.receipts.lines import ReceiptLine
from sevdesk_mcp.domain.receipts.suppliers import SupplierQuery
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.files import FileAccess
from sevdesk_mcp.safety.preview import Fact, Preview, Said, fact, quoted, say


class Filing(msgspec.Struct, frozen=True):
    """What the caller asks: the file, accounts per position (else the suggested ones)."""

    path: str
    account_numbers: list[str] | None = None
    supplier_id: int | None = None
    allow_invalid: bool = False
    allow_duplicate: bool = False


class FilingPlan(msgspec.Struct, frozen=True):
    """The upload of the checked bytes, then the draft that takes them as its document."""

    upload: upload.UploadPlan
    draft: ReceiptPlan


async def prepare_filing(
    client: SevdeskPort, files: FileAccess, filing: Filing
) -> Prepared[FilingPlan]:
    """Read, check and plan (nothing is written).

    :returns: the preview (the e-invoice check, the file and the draft) and the plan.
    :raises FileAccessError: if the file may not be read.
    :raises EInvoiceRefusedError: if it is no safe, readable e-invoice.
    :raises ToolInputError: if it breaks EN 16931 rules (unless ``allow_invalid``) or cannot
        be drafted as is (currency, split tax rules, rounding, no account).
    :raises PreconditionError: as the receipt draft's checks.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    await _refuse_bookkeeping_1(client, filing.path)
    local = files.read(filing.path)
    read, result = await anyio.to_thread.run_sync(reports.read_local, local)  # CPU: a thread
    if not result.valid and not filing.allow_invalid:
        rules = ", ".join(sorted({f.rule for f in result.findings if f.severity == "error"}))
        raise ToolInputError(
            f"'{filing.path}' breaks EN 16931 rules ({rules}); read the findings with "
            "sevdesk_read_einvoice and ask the sender for a corrected invoice, or file it anyway "
            "with allow_invalid=true."
        )
    suggestion = await suggest_voucher(client, read.invoice)
    draft = _draft(filing, suggestion, read.invoice)
    prepared = await drafts.prepare_create(client, draft)
    checked = say(
        "{0} ({1}); {2} errors, {3} warnings",
        "{0} ({1}); {2} Fehler, {3} Warnungen",
        read.invoice.profile,
        read.container,
        result.errors,
        result.warnings,
    )
    uploaded = say("{0}, uploaded first", "{0}, wird zuerst hochgeladen", quoted(local.given))
    facts = [
        fact("E-invoice", "E-Rechnung", checked),
        fact("Tax case", "Steuerfall", suggested_case(read.invoice).said),
        *(_file_first(f, uploaded) for f in prepared.preview.facts),
        fact("SHA-256", "SHA-256", local.sha256),
    ]
    action = say(
        "Upload the e-invoice and create a receipt draft with it.",
        "Die E-Rechnung hochladen und damit einen Belegentwurf anlegen.",
    )
    preview = Preview(action=action, facts=facts, warnings=prepared.preview.warnings)
    return Prepared(preview, FilingPlan(upload.UploadPlan(local), prepared.plan))


def _file_first(item: Fact, uploaded: Said) -> Fact:
    """:returns: ``item``, or for the draft's file the e-invoice that is uploaded first."""
    return Fact(item.label, uploaded) if item.label.en == "File" else item


def _draft(filing: Filing, suggestion: VoucherSuggestion, invoice: Invoice) -> ReceiptDraft:
    positions = suggestion.positions
    accounts = filing.account_numbers or [p.account_number or "" for p in positions]
    problems = [
        p for p in suggestion.problems if filing.account_numbers is None or "account" not in p
    ]
    if len(accounts) != len(positions):
        problems.append(f"Give {len(positions)} account_numbers, one per position, in order.")
    if problems:
        raise ToolInputError(f"'{filing.path}' cannot be drafted as it is: " + " ".join(problems))
    lines = [
        ReceiptLine(account, p.tax_rate, p.net, p.gross, _plain(p.text))
        for account, p in zip(accounts, positions, strict=True)
    ]
    query = query_of(invoice)
    if filing.supplier_id is not None:
        query = SupplierQuery(contact_id=filing.supplier_id)
    return ReceiptDraft(
        kind=suggestion.kind,
        day=date_of(invoice.issue_date),
        receipt_number=invoice.number,
        supplier=query,
        tax_rule_id=suggestion.tax_rule_id,
        lines=lines,
        delivery_date=date_of(invoice.delivery_date) if invoice.delivery_date else None,
        payment_deadline=date_of(invoice.due_date) if invoice.due_date else None,
        allow_duplicate=filing.allow_duplicate,
    )


async def _refuse_bookkeeping_1(client: SevdeskPort, path: str) -> None:
    """Refuse on an account keeping bookkeeping 1.0, before the file is read.

    :raises PreconditionError: naming the way that works there.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if await client.system_version() == "2.0":
        return
    raise PreconditionError(
        f"'{path}' cannot be filed as it is: this sevDesk account keeps bookkeeping 1.0, where a "
        "receipt takes a tax type, not the tax rules the e-invoice's VAT breakdown maps to. "
        "Nothing was read or written. File it with ",
        Action.CREATE_RECEIPT_DRAFT,
        " instead: the e-invoice as its file, its positions and a tax_type.",
        field="path",
    )


def _plain(text: str | None) -> str | None:
    return None if text is None else text.strip("⟦⟧")[:200]


async def execute_filing(
    client: SevdeskPort, plan: FilingPlan, progress: Progress
) -> VoucherWritten:
    """Upload the checked bytes once, then create the draft with them (once).

    :returns: the receipt draft as sevDesk holds it.
    :raises UpstreamError: if the upload or the save fails (the upload alone is harmless).
    """
    sent = await upload.execute_upload(client, plan.upload, progress)
    body = dict(plan.draft.body)
    body["filename"] = sent.filename
    draft = msgspec.structs.replace(
        plan.draft,
        body=body,
        file_sha256=plan.upload.file.sha256,  # checked back
    )
    written = await drafts.execute_save(client, draft, progress)
    return msgspec.structs.replace(written, written=[*sent.written, *written.written])
