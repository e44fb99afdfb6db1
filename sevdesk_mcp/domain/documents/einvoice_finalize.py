"""Finalizing a draft invoice as an e-invoice (``docs/sevdesk-api.md`` §2.4, §5.2, Q23, Q35).

sevDesk marks an invoice as e-invoice with ``propertyIsEInvoice`` on the invoice, which the
API takes only when a draft is saved (``POST /Invoice/Factory/saveInvoice``, with the draft's
``id`` to change it); ``sendBy``, which finalizes, has no such parameter. So finalizing as an
e-invoice is: the outgoing preflight (:mod:`.einvoice_preflight`) must pass, then the draft is saved
with the flag (its other fields sent back as they are; positions untouched), then finalized.
sevDesk then embeds the XRechnung XML in the PDF (ZUGFeRD); ``getXml`` serves it once the
invoice is enshrined. It refuses the flag without a payment method (code 830).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.einvoice_preflight import NOT_CHECKED, checked, is_flagged
from sevdesk_mcp.domain.einvoice.findings import Finding
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.domain.writes import ref
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.preview import Fact, Plain, Said, fact, quoted, say
from sevdesk_mcp.sevdesk import dates
from sevdesk_mcp.sevdesk.wire_documents import Document

SAVE_PATH: Final = "/Invoice/Factory/saveInvoice"
MISSING_CODE: Final = 830
MISSING: Final = (
    "sevDesk lacks information the e-invoice needs: a payment method on the invoice, the "
    "invoice address (street, post code, city, country), the buyer's reference (Leitweg-ID) "
    "and e-mail on the contact, or your own company data (address, IBAN, BIC, e-mail, phone, "
    "tax number) in sevDesk's settings. Complete them, then finalize again."
)
_REFS: Final = ("contact", "contactPerson", "taxRule", "paymentMethod", "addressCountry")
_SHOWN: Final = 5
# What the marking save must leave as it was: it sends only the required fields (D-085), and
# what sevDesk does with the others under mapAll is not confirmed, so they are read back.
KEPT: Final = (
    *_REFS,
    "header",
    "headText",
    "footText",
    "addressName",
    "addressStreet",
    "addressZip",
    "addressCity",
    "invoiceDate",
    "deliveryDate",
    "timeToPay",
    "showNet",
    "taxText",
    "discount",
    "sumNet",
    "sumGross",
)


NOT_CHECKED_SAID: Final = Said(
    NOT_CHECKED,
    "Ihre eigenen Angaben als Verkäufer (Name, Anschrift, Ansprechpartner mit Telefon und "
    "E-Mail, USt-IdNr. oder Steuernummer, IBAN) stammen aus den Einstellungen von sevDesk, die "
    "die API nicht zeigt: Prüfen Sie sie dort (BR-06, BR-08, BR-CO-26, BR-DE-2 bis BR-DE-7, "
    "BR-DE-16, BR-DE-23-a). Die Rechnungsnummer wird beim Abschließen vergeben.",
)
BINDING_XML: Final = Said(
    "An e-invoice is binding in its XML form as well: the buyer's system reads the data, not "
    "the layout. Check the buyer reference (Leitweg-ID) and your own company data in sevDesk's "
    "settings, which this check cannot see.",
    "Eine E-Rechnung ist auch in ihrer XML-Form verbindlich: Das System des Käufers liest die "
    "Daten, nicht das Layout. Prüfen Sie die Käuferreferenz (Leitweg-ID) und Ihre eigenen "
    "Firmendaten in den Einstellungen von sevDesk, die diese Prüfung nicht sieht.",
)


class EInvoiceStep(msgspec.Struct, frozen=True):
    """What finalizing as an e-invoice adds to the plan: preview facts and warnings, and the
    save that sets the flag (``None`` when sevDesk marks the draft as e-invoice already)."""

    facts: list[Fact]
    warnings: list[Said]
    flag_body: JsonObject | None
    kept: JsonObject | None = None  # what the marking save must not change (:data:`KEPT`)


async def prepare_e_invoice(client: SevdeskPort, doc: Document, label: str) -> EInvoiceStep:
    """Run the outgoing preflight on draft invoice ``doc`` (reads only).

    :returns: the facts, warnings and the flagging save.
    :raises PreconditionError: naming the failing rules, if the draft breaks one.
    :raises NotFoundError: if the invoice is gone.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    result, raw = await checked(client, doc.id)
    if not result.ready:
        raise PreconditionError(
            f"{label} cannot be finalized as an e-invoice: it breaks {result.errors} XRechnung "
            f"rule(s): {_listed([f for f in result.findings if f.severity == 'error'])}. Correct "
            "the draft (",
            Action.UPDATE_DRAFT,
            ") or the contact (buyer reference, address), then finalize again. Nothing was "
            "changed.",
            record=label,
        )
    flagged = is_flagged(raw)
    how = (
        say("already marked as e-invoice", "bereits als E-Rechnung gekennzeichnet")
        if flagged
        else say("marked as e-invoice first", "wird zuerst als E-Rechnung gekennzeichnet")
    )
    marked_as = say(
        "yes: {0} (propertyIsEInvoice); its PDF carries the XRechnung XML",
        "ja: {0} (propertyIsEInvoice); ihr PDF trägt das XRechnung-XML",
        how,
    )
    facts = [
        fact("E-invoice", "E-Rechnung", marked_as),
        fact(
            "XRechnung preflight", "XRechnung-Vorprüfung", _passed(result.warnings, result.findings)
        ),
        fact("Not checked", "Nicht geprüft", NOT_CHECKED_SAID),
    ]
    warnings = [BINDING_XML]
    if flagged:
        return EInvoiceStep(facts, warnings, None)
    return EInvoiceStep(facts, warnings, flag_body(doc, raw), kept_fields(raw))


def kept_fields(raw: Mapping[str, JsonValue]) -> JsonObject:
    """:returns: the fields of :data:`KEPT` as ``raw`` holds them (a reference by its id)."""
    return {key: _comparable(raw.get(key)) for key in KEPT}


async def check_kept(client: SevdeskPort, invoice_id: int, before: JsonObject, where: str) -> None:
    """Read the invoice back after the marking save; refuse to go on if it changed more.

    :raises ToolError: naming the changed fields (the invoice is marked; nothing else is sent).
    :raises UpstreamError: if sevDesk cannot be read.
    """
    after = kept_fields(await read_raw(client, "Invoice", invoice_id))
    changed = sorted(key for key in KEPT if after.get(key) != before.get(key))
    if changed:
        raise ToolError(
            f"{where} was marked as e-invoice, but sevDesk also changed {', '.join(changed)} "
            "with it, so it was not finalized. Check the draft in sevDesk, correct it, then "
            "finalize again."
        )


def _comparable(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return str(value.get("id")) if value.get("id") is not None else None
    return None if value in ("", None) else str(value)


async def marked(client: SevdeskPort, invoice_id: int) -> bool:
    """:returns: whether sevDesk marks invoice ``invoice_id`` as e-invoice.

    :raises NotFoundError: if there is no such invoice.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    return is_flagged(await read_raw(client, "Invoice", invoice_id))


def flag_body(doc: Document, raw: Mapping[str, JsonValue]) -> JsonObject:
    """:returns: the ``saveInvoice`` body that marks draft ``doc`` as e-invoice: its required
    fields as sevDesk holds them, ``propertyIsEInvoice``, no position changes."""
    top: JsonObject = {
        "id": doc.id,
        "objectName": "Invoice",
        "mapAll": True,
        "status": 100,
        "invoiceType": doc.invoiceType or "RE",
        "currency": doc.currency or "EUR",
        "propertyIsEInvoice": True,
    }
    day = dates.berlin_date(doc.date())  # the day the human saw, in Europe/Berlin
    if day is not None:
        top["invoiceDate"] = dates.dotted(day)
    for key in _REFS:
        value = raw.get(key)
        if isinstance(value, dict) and value.get("id") and value.get("objectName"):
            top[key] = ref(int(str(value["id"])), str(value["objectName"]))
    return {"invoice": top, "invoicePosSave": None, "invoicePosDelete": None}


def _listed(findings: list[Finding]) -> str:
    shown = "; ".join(f"{f.rule} ({f.message.rstrip('.')})" for f in findings[:_SHOWN])
    more = len(findings) - _SHOWN
    return shown + (f"; and {more} more (see the preflight)" if more > 0 else "")


def _passed(warnings: int, findings: list[Finding]) -> Said:
    if not warnings:
        return say("passed, no warnings", "bestanden, keine Warnungen")
    return say(
        "passed with {0} warning(s): {1}",
        "bestanden mit {0} Warnung(en): {1}",
        warnings,
        _listed_said(findings),
    )


def _listed_said(findings: list[Finding]) -> Said:
    """:returns: the first findings by rule, each with its message (the rule's English text,
    quoted), and how many more there are."""
    shown = findings[:_SHOWN]
    marks = "; ".join(f"{{{2 * i}}} ({{{2 * i + 1}}})" for i in range(len(shown)))
    pieces = [p for f in shown for p in (Plain(f.rule), quoted(f.message.rstrip(".")))]
    more = len(findings) - _SHOWN
    if more > 0:
        tail = len(pieces)
        pieces.append(Plain(str(more)))
        return say(
            f"{marks}; and {{{tail}}} more (see the preflight)",
            f"{marks}; und {{{tail}}} weitere (siehe die Vorprüfung)",
            *pieces,
        )
    return say(marks, marks, *pieces)
