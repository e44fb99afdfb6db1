"""The sevDesk endpoints this server sends requests to, as data: method, path template, the
top-level body fields it sends, the query parameters that matter (side effects such as
``preventSendBy``, and the list filters the product sends) and the wire schemas
(:mod:`wire`, :mod:`wire_documents`, :mod:`wire_finance`, :mod:`wire_tags`, :mod:`wire_tax`)
that read the answer.

``scripts/spec_drift.py`` compares this table with sevDesk's OpenAPI file. Tests keep it true:
every request the read tools send to the demo books matches an entry, every entry is a route of
the fake, and every public schema of the wire modules reads at least one entry. Path parameters
are written ``{id}``; the OpenAPI file's names (``{invoiceId}``) are normalised away.
"""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk import wire_documents as docs
from sevdesk_mcp.sevdesk import wire_finance as fin
from sevdesk_mcp.sevdesk import wire_tags as tags
from sevdesk_mcp.sevdesk import wire_tax as tax

Schema = type[msgspec.Struct]


class Endpoint(msgspec.Struct, frozen=True):
    """One request the server sends: ``reads`` decode its answer, ``sends`` are its body's
    top-level fields (none for a GET), ``query`` the query parameters that matter (paging
    ``limit``/``offset``/``countAll`` is left out: sevDesk's file documents it per list)."""

    method: str
    template: str
    reads: tuple[Schema, ...] = ()
    sends: tuple[str, ...] = ()
    query: tuple[str, ...] = ()


_DOCUMENT: Final = (docs.Document, docs.OpenDocument, tax.TaxDocument, tags.Tagged)
_SAVE: Final = ("PosSave", "PosDelete")
_BOOK: Final = ("amount", "date", "type", "checkAccount", "checkAccountTransaction")
_SEND_BY: Final = ("sendType", "sendDraft")
_CONTACT: Final = (
    "name", "surename", "familyname", "customerNumber", "vatNumber", "taxNumber", "status"
)  # fmt: skip
_ADDRESS: Final = ("street", "zip", "city", "country")
_PART: Final = ("name", "price", "priceNet", "priceGross", "taxRate", "stock", "status")
_CSV: Final = ("invoiceCsv", "creditNoteCsv", "voucherListCsv", "transactionsCsv")
_EMAIL: Final = ("toEmail", "subject", "text", "copy", "sendXml", "ccEmail")
_DATES: Final = ("startDate", "endDate")
_FILTERS: Final = {  # the list filters the product sends, per document kind
    "Invoice": ("status", *_DATES, "invoiceType", "showWkr", "updateAfter"),
    "CreditNote": ("status", *_DATES, "creditNoteNumber"),
    "Order": ("status", "updateAfter"),
}
_DATEV: Final = (
    *_DATES,
    "scope",
    "exportByPaydate",
    "includeEnshrined",
    "enshrineDocuments",
    "includeDocumentImages",
)


def _get(template: str, *reads: Schema, query: tuple[str, ...] = ()) -> Endpoint:
    return Endpoint("GET", template, reads, query=query)


def _put(template: str, *sends: str) -> Endpoint:
    return Endpoint("PUT", template, (), sends)


def _kinds(word: str, key: str) -> tuple[Endpoint, ...]:
    """:returns: the endpoints invoices, credit notes and orders share, for ``word``."""
    return (
        _get(f"/{word}", *_DOCUMENT, query=_FILTERS[word]),
        _get(f"/{word}/{{id}}", *_DOCUMENT),
        _get(f"/{word}/{{id}}/getPositions", docs.Position),
        _get(f"/{word}/{{id}}/getPdf", docs.PdfFile, query=("preventSendBy",)),
        Endpoint("POST", f"/{word}/Factory/save{word}", (), (key, *(key + s for s in _SAVE))),
        Endpoint("POST", f"/{word}/{{id}}/sendViaEmail", (), _EMAIL),
        _put(f"/{word}/{{id}}/sendBy", *_SEND_BY),
        Endpoint("DELETE", f"/{word}/{{id}}"),
    )


ENDPOINTS: Final[tuple[Endpoint, ...]] = (
    _get("/Tools/bookkeepingSystemVersion"),
    _get("/SevClient", wire.Named),
    _get("/SevUser", wire.Named),
    _get("/TaxRule", wire.TaxRule),
    _get("/AccountDatev", wire.AccountDatev),
    _get("/AccountDatev/{id}", wire.AccountDatev),
    _get("/AccountingType", fin.AccountingType),
    _get("/AccountingType/{id}", fin.AccountingType),
    _get("/ReceiptGuidance/forAllAccounts", wire.ReceiptGuidance),
    _get("/ReceiptGuidance/forAccountNumber", wire.ReceiptGuidance, query=("accountNumber",)),
    _get("/Unity", wire.Named),
    _get("/StaticCountry", wire.Named, tax.Country),
    _get("/PaymentMethod", wire.Named),
    _get("/CommunicationWayKey", wire.Named),
    _get("/Contact", wire.Contact, wire.ContactName, query=("depth", "updateAfter")),
    _get("/Contact/{id}", wire.Contact, wire.ContactName),
    _get("/Contact/Factory/getNextCustomerNumber"),
    _get("/Contact/Mapper/checkCustomerNumberAvailability"),
    Endpoint("POST", "/Contact", (), (*_CONTACT, "category", "parent")),
    _put("/Contact/{id}", *_CONTACT, "buyerReference"),
    _get("/ContactAddress", wire.ContactAddress),
    _get("/ContactAddress/{id}", wire.ContactAddress),
    Endpoint("POST", "/ContactAddress", (), (*_ADDRESS, "name", "category", "contact")),
    _put("/ContactAddress/{id}", *_ADDRESS),
    _get("/CommunicationWay", wire.CommunicationWay),
    _get("/CommunicationWay/{id}", wire.CommunicationWay),
    Endpoint("POST", "/CommunicationWay", (), ("type", "value", "key", "main", "contact")),
    _put("/CommunicationWay/{id}", "value"),
    *_kinds("Invoice", "invoice"),
    *_kinds("CreditNote", "creditNote"),
    *_kinds("Order", "order"),
    _get("/InvoicePos", tax.TaxPosition),
    _get("/CreditNotePos", tax.TaxPosition),
    _get("/OrderPos", docs.Position),
    _put("/Invoice/{id}/enshrine"),
    _put("/CreditNote/{id}/enshrine"),
    _put("/Invoice/{id}/resetToDraft"),
    _put("/CreditNote/{id}/resetToDraft"),
    _put("/Voucher/{id}/resetToDraft"),
    _put("/Invoice/{id}/resetToOpen"),
    _put("/CreditNote/{id}/resetToOpen"),
    _put("/Voucher/{id}/resetToOpen"),
    _put("/Invoice/{id}/bookAmount", *_BOOK),
    _put("/CreditNote/{id}/bookAmount", *_BOOK),
    _put("/Voucher/{id}/bookAmount", *_BOOK),
    Endpoint("POST", "/Invoice/{id}/cancelInvoice"),
    Endpoint("POST", "/Invoice/Factory/createInvoiceReminder"),
    Endpoint("POST", "/Invoice/Factory/createInvoiceFromOrder", (), ("order",)),
    Endpoint("POST", "/CreditNote/Factory/createFromInvoice", (), ("invoice",)),
    _get("/SevSequence/Factory/getByType", query=("objectType", "type", "useNextNumber")),
    _get(
        "/Voucher",
        fin.Voucher,
        tags.Tagged,
        query=("status", "creditDebit", *_DATES, "updateAfter"),
    ),
    _get("/Voucher/{id}", fin.Voucher, tags.Tagged),
    _get("/VoucherPos", fin.VoucherPos, query=("voucher[id]", "voucher[objectName]")),
    Endpoint(
        "POST",
        "/Voucher/Factory/saveVoucher",
        (),
        ("voucher", "voucherPosSave", "voucherPosDelete", "filename"),
    ),
    Endpoint("POST", "/Voucher/Factory/uploadTempFile", (), ("file",)),
    Endpoint("DELETE", "/Voucher/{id}"),
    _get("/Document/{id}"),
    _get("/Document/{id}/download"),
    _get("/Part", fin.Part),
    _get("/Part/{id}", fin.Part),
    _get("/Part/{id}/getStock"),
    Endpoint("POST", "/Part", (), (*_PART, "partNumber", "unity", "stockEnabled", "text")),
    _put("/Part/{id}", *_PART),
    _get("/CheckAccount", fin.CheckAccount),
    _get("/CheckAccount/{id}", fin.CheckAccount),
    _get("/CheckAccount/{id}/getBalanceAtDate", query=("date",)),
    _get("/CheckAccountTransaction", fin.CheckAccountTransaction),
    _get("/CheckAccountTransaction/{id}", fin.CheckAccountTransaction),
    _put("/CheckAccountTransaction/{id}", "status"),
    _get("/CheckAccountTransactionLog", fin.CheckAccountTransactionLog, tax.Payment),
    _get("/Tag", tags.Tag),
    _get("/Tag/{id}", tags.Tag),
    _get("/TagRelation", tags.TagRelation),
    Endpoint("POST", "/Tag/Factory/create", (tags.TagRelation,), ("name", "object")),
    _put("/Tag/{id}", "name"),
    Endpoint("DELETE", "/Tag/{id}"),
    _get("/Export/createDatevCsvZipExportJob", query=_DATEV),
    *(_get(f"/Export/{name}") for name in _CSV),
    _get("/Progress/generateDownloadHash", query=("jobId",)),
    _get("/Progress/getProgress", query=("hash",)),
    _get("/ExportJob/jobDownloadInfo", query=("jobId",)),
)


def find(method: str, path: str) -> Endpoint | None:
    """:returns: the entry a request with ``method`` and ``path`` (numeric ids in it) is sent
    to, or ``None`` when the table has none."""
    segments = path.strip("/").split("/")
    for entry in ENDPOINTS:
        words = entry.template.strip("/").split("/")
        if entry.method != method or len(words) != len(segments):
            continue
        if all(_fits(word, segment) for word, segment in zip(words, segments, strict=True)):
            return entry
    return None


def _fits(word: str, segment: str) -> bool:
    return segment.isdigit() if word == "{id}" else word == segment
