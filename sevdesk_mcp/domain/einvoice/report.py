"""Reading and checking an e-invoice file for a tool: the invoice with its third-party text
fenced, the rule results, and where it came from."""

from __future__ import annotations

import re
from typing import Final

import msgspec

from sevdesk_mcp.domain.einvoice.check import CheckResult, check
from sevdesk_mcp.domain.einvoice.findings import Finding
from sevdesk_mcp.domain.einvoice.model import Invoice
from sevdesk_mcp.domain.einvoice.read import Read, read_bytes
from sevdesk_mcp.errors import EInvoiceRefusedError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.safety.files import LocalFile

_PLAIN: Final = re.compile(r"^([A-Z0-9]{1,3}|[+-]?\d*\.?\d+|\d{4}-\d{2}-\d{2}|ubl-\w+|cii)$")
_TAKEN: Final = frozenset({"application/pdf", "application/xml"})


class EInvoiceReport(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An e-invoice as read and checked. Text from the invoice is fenced in ⟦ ⟧."""

    file: str
    sha256: str
    container: str
    attachment: str | None = None
    profile: str
    valid: bool
    xrechnung_valid: bool | None = None
    errors: int
    warnings: int
    findings: list[Finding]
    invoice: Invoice


def read_local(local: LocalFile) -> tuple[Read, CheckResult]:
    """:returns: the invoice of a local file and its rule results.

    :raises EInvoiceRefusedError: if the file is no PDF or XML, or as :func:`read_bytes`.
    """
    if local.media_type not in _TAKEN:
        raise EInvoiceRefusedError(
            "not_invoice",
            f"'{local.given}' is an image; an e-invoice is an XML file or a ZUGFeRD PDF. File "
            "a scanned receipt with sevdesk_upload_receipt instead.",
        )
    read = read_bytes(local.data)
    return read, check(read.invoice)


def report(local: LocalFile, read: Read, result: CheckResult) -> EInvoiceReport:
    """:returns: the report of a checked file, third-party text fenced."""
    return EInvoiceReport(
        file=local.given,
        sha256=local.sha256,
        container=read.container,
        attachment=read.attachment,
        profile=read.invoice.profile,
        valid=result.valid,
        xrechnung_valid=result.xrechnung_valid,
        errors=result.errors,
        warnings=result.warnings,
        findings=result.findings,
        invoice=fenced(read.invoice),
    )


def fenced(invoice: Invoice) -> Invoice:
    """:returns: ``invoice`` with every free text (names, addresses, notes, ids) fenced;
    codes, amounts and dates stay as they are."""
    return msgspec.convert(_fence(msgspec.to_builtins(invoice)), Invoice, strict=False)


def _fence(value: JsonValue) -> JsonValue:
    if isinstance(value, str):
        return value if _PLAIN.match(value) else fence(value)
    if isinstance(value, list):
        return [_fence(v) for v in value]
    if isinstance(value, dict):
        return {k: _fence(v) if k not in {"syntax", "profile"} else v for k, v in value.items()}
    return value
