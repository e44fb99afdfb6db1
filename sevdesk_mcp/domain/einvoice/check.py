"""All rules on one invoice: the EN 16931 rules for every profile (by what it carries), the
XRechnung CIUS rules for XRECHNUNG documents."""

from __future__ import annotations

import msgspec

from sevdesk_mcp.domain.einvoice import rules_codes, rules_core, rules_de, rules_sums, rules_vat
from sevdesk_mcp.domain.einvoice.findings import Finding
from sevdesk_mcp.domain.einvoice.model import Invoice


class CheckResult(msgspec.Struct, frozen=True, kw_only=True):
    """The rule results: ``valid`` when no error (EN 16931); ``xrechnung_valid`` when the
    BR-DE rules found no error either (``None`` for other profiles)."""

    valid: bool
    xrechnung_valid: bool | None
    errors: int
    warnings: int
    findings: list[Finding]


def check(invoice: Invoice, *, xrechnung: bool | None = None) -> CheckResult:
    """:returns: every finding, errors first (``xrechnung`` forces the BR-DE rules on or off;
    by default they run for XRECHNUNG documents)."""
    found = [
        *rules_core.check(invoice),
        *rules_codes.check(invoice),
        *rules_sums.check(invoice),
        *rules_vat.check(invoice),
    ]
    en_errors = sum(1 for f in found if f.severity == "error")
    de_on = invoice.is_xrechnung if xrechnung is None else xrechnung
    german = list(rules_de.check(invoice)) if de_on else []
    findings = sorted([*found, *german], key=lambda f: (f.severity != "error", f.rule))
    de_errors = sum(1 for f in german if f.severity == "error")
    return CheckResult(
        valid=en_errors == 0,
        xrechnung_valid=(de_errors == 0 and en_errors == 0) if de_on else None,
        errors=en_errors + de_errors,
        warnings=len(findings) - en_errors - de_errors,
        findings=findings,
    )
