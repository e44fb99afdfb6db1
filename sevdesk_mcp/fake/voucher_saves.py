"""Receipt writes of the fake: uploaded temp files, ``saveVoucher`` and deleting a draft
(``docs/sevdesk-api.md`` §2.7, §5.3, Q16, Q25, Q32, Q34).

Rules, each in ``spec/DEVIATIONS.md``:

- ``uploadTempFile`` takes multipart field ``file`` (PDF, JPEG, PNG, XML by content) and answers
  201 with a generated ``filename`` that only ``saveVoucher`` understands; ``contentHash`` is
  the SHA-256 of the bytes.
- ``saveVoucher`` creates with status 50 or 100 only; it updates **drafts** only (else 400
  code 90400); the voucher's sums are those of **this call's** positions (positions neither
  sent nor deleted stay stored, uncounted); ``voucherPosDelete`` must be a list of refs.
- A draft takes any account x tax rule x rate; saving with status 100 checks every position
  against the receipt guidance and answers 422 for a combination it does not allow.
- On bookkeeping 1.0 the receipt takes ``taxType`` (required on create, one of
  :data:`~sevdesk_mcp.fake.receipts.LEGACY_TAX_RATES`, else 400) and every position an
  ``accountingType`` (400 without); ``taxRule`` and ``accountDatev`` are dropped, as 2.0 drops
  ``taxType`` (Q16). Saving with status 100 answers 422 for an unknown accounting type or a rate
  the tax type does not allow.
- ``DELETE /Voucher/{id}`` deletes a draft; otherwise 409 code 159.
- The file a voucher got from ``filename`` is its ``document``: ``GET /Document/{id}`` names it
  (``filename``, ``extension``, ``filesize``) and ``GET /Document/{id}/download`` gives its bytes
  in base64 (the routes in ``routes/vouchers.py``); :func:`replace_document` stands for a file
  replaced in sevDesk behind the same document id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from email.parser import BytesParser
from email.policy import HTTP
from typing import Final
from weakref import WeakKeyDictionary

from sevdesk_mcp.fake import accounts, legacy
from sevdesk_mcp.fake.coerce import parse_datetime, parse_decimal, parse_int, parse_ref
from sevdesk_mcp.fake.documents import VOUCHER_DRAFT
from sevdesk_mcp.fake.receipts import LEGACY_TAX_RATES, Voucher, VoucherPos
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import CODE_NOT_DELETABLE, CODE_NOT_FOUND, EPOCH, FakeError, Ref
from sevdesk_mcp.jsontypes import JsonObject

CODE_NOT_DRAFT: Final = 90400
UNPAID: Final = 100
_RATE_WORDS: Final = {Decimal(0): "ZERO", Decimal(7): "SEVEN", Decimal(19): "NINETEEN"}
_TYPES: Final = (
    (b"%PDF-", "application/pdf", ".pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png", ".png"),
    (b"\xff\xd8\xff", "image/jpeg", ".jpg"),
    (b"<?xml", "application/xml", ".xml"),
)


@dataclass(frozen=True, slots=True)
class TempFile:
    """An uploaded file, waiting for ``saveVoucher`` (then a voucher's document): sevDesk's
    ``filename``, the type by content, the SHA-256 and size of ``data``, the name it was
    uploaded with and when it was stored."""

    filename: str
    media_type: str
    sha256: str
    size: int
    name: str = ""
    data: bytes = b""
    stored: datetime = EPOCH


@dataclass(slots=True)
class Files:
    """The uploaded files of one store and the documents vouchers got from them."""

    temp: dict[str, TempFile] = field(default_factory=dict)
    documents: dict[int, TempFile] = field(default_factory=dict)
    next_document: int = 990001


_FILES: WeakKeyDictionary[Store, Files] = WeakKeyDictionary()


def files_of(store: Store) -> Files:
    """:returns: the uploaded files of ``store``."""
    return _FILES.setdefault(store, Files())


def upload(store: Store, body: bytes, content_type: str) -> JsonObject:
    """Keep an uploaded file (multipart field ``file``).

    :returns: the answer's object (§5.3).
    :raises FakeError: 400 without a ``file`` field or for a type sevDesk does not take.
    """
    data, given = _file_field(body, content_type)
    kind = _kind(data)
    files = files_of(store)
    digest = hashlib.sha256(data).hexdigest()
    name = hashlib.md5(f"{digest}{len(files.temp)}".encode(), usedforsecurity=False).hexdigest()
    temp = TempFile(
        f"{name}{kind[2]}", kind[1], digest, len(data), given or f"{name}{kind[2]}", data,
        store.now(),
    )  # fmt: skip
    files.temp[temp.filename] = temp
    store.touch()
    return {
        "pages": 1,
        "mimeType": "image/jpg",
        "originMimeType": kind[1],
        "filename": temp.filename,
        "contentHash": digest,
        "content": [],
        "isEInvoice": False,
    }


def _kind(data: bytes) -> tuple[bytes, str, str]:
    kind = next((t for t in _TYPES if data.lstrip(b"\xef\xbb\xbf").startswith(t[0])), None)
    if kind is None:
        raise FakeError(400, "Only PDF, JPG, PNG and XML files can be uploaded")
    return kind


def _file_field(body: bytes, content_type: str) -> tuple[bytes, str | None]:
    if not content_type.lower().startswith("multipart/form-data"):
        raise FakeError(400, "Upload a file as multipart/form-data in the field 'file'")
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes) and payload:
                return payload, part.get_filename()
    raise FakeError(400, "No file was uploaded in the field 'file'")


def document_file(store: Store, ident: int) -> TempFile:
    """:returns: the file of the document ``ident`` (a voucher's ``document``).

    :raises FakeError: 404 code 151 for an unknown document.
    """
    found = files_of(store).documents.get(ident)
    if found is None:
        raise FakeError(
            404, f"No Model_Document with the id {ident} was found", code=CODE_NOT_FOUND
        )
    return found


def replace_document(store: Store, ident: int, data: bytes) -> TempFile:
    """Replace the bytes of the document ``ident`` in place (same id; the voucher is not
    touched): a file replaced in sevDesk after a preview showed it.

    :returns: the document's new file.
    :raises FakeError: 404 code 151 for an unknown document, 400 for a type sevDesk refuses.
    """
    old = document_file(store, ident)
    kind = _kind(data)
    new = replace(
        old, media_type=kind[1], sha256=hashlib.sha256(data).hexdigest(), size=len(data),
        data=data, stored=store.now(),
    )  # fmt: skip
    files_of(store).documents[ident] = new
    store.touch()
    return new


@dataclass(frozen=True, slots=True)
class Saved:
    """What ``saveVoucher`` answers with: the voucher, this call's positions, the file name."""

    voucher: Voucher
    positions: list[VoucherPos]
    filename: str | None


def save_voucher(store: Store, body: Mapping[str, object]) -> Saved:
    """Create or update a voucher with its positions.

    :returns: the voucher and this call's positions (the route renders them).
    :raises FakeError: 400 for a malformed body, 400 code 90400 for a non-draft, 404 code 151
        for an unknown voucher, contact or position, 422 for a finalize the guidance refuses.
    """
    head = body.get("voucher")
    if not isinstance(head, dict):
        raise FakeError(400, "voucher expected array with 'objectName'. null given")
    status = parse_int(head.get("status", VOUCHER_DRAFT), "status")
    if status not in (VOUCHER_DRAFT, UNPAID):
        raise FakeError(400, "status must be 50 (draft) or 100 (open)")
    voucher = _target(store, head)
    _apply_head(store, voucher, head, status)
    saved = _positions(store, voucher, body)
    if status == UNPAID and store.version == "2.0":
        _check_guidance(voucher, saved, store)
    elif status == UNPAID:
        _check_legacy(voucher, saved, store)
    voucher.set_sums(saved)  # Q: the total comes from this call's positions only
    _attach(store, voucher, body.get("filename"))
    if voucher.id:
        store.save(voucher)
    else:
        store.add(store.vouchers, voucher)
        for position in saved:
            position.voucher = voucher.ref()
    for position in saved:
        if position.id:
            store.save(position)
        else:
            store.add(store.voucher_positions, position)
    filename = body.get("filename")
    return Saved(voucher, saved, None if filename in (None, "") else str(filename))


def _target(store: Store, head: Mapping[str, object]) -> Voucher:
    if head.get("id") in (None, "", 0):
        tax = "taxRule" if store.version == "2.0" else "taxType"
        for name in ("voucherDate", "creditDebit", "voucherType", tax):
            if head.get(name) in (None, ""):
                raise FakeError(400, f"The field '{name}' is required")
        return Voucher(voucherDate=parse_datetime(head["voucherDate"], "voucherDate"))
    voucher = store.vouchers.get(parse_int(head["id"], "id"))
    if voucher.status != VOUCHER_DRAFT or voucher.enshrined is not None:
        raise FakeError(
            400,
            f"Voucher {voucher.id} is not a draft. Use resetToDraft first.",
            code=CODE_NOT_DRAFT,
        )
    return voucher


def _apply_head(store: Store, voucher: Voucher, head: Mapping[str, object], status: int) -> None:
    if head.get("voucherDate") not in (None, ""):
        voucher.voucherDate = parse_datetime(head["voucherDate"], "voucherDate")
    for name in ("deliveryDate", "paymentDeadline"):
        if head.get(name) not in (None, ""):
            setattr(voucher, name, parse_datetime(head[name], name))
    if head.get("creditDebit") not in (None, ""):
        if head["creditDebit"] not in ("C", "D"):
            raise FakeError(400, "creditDebit must be C or D")
        voucher.creditDebit = str(head["creditDebit"])
    _apply_tax(store, voucher, head)
    if head.get("supplier") is not None:
        contact = store.contacts.get(parse_ref(head["supplier"], "supplier").id)
        voucher.supplier, voucher.supplierName = contact.ref(), contact.name
    elif head.get("supplierName") not in (None, ""):
        voucher.supplier, voucher.supplierName = None, str(head["supplierName"])
    voucher.supplierNameAtSave = voucher.supplierName
    if "description" in head:
        voucher.description = None if head["description"] is None else str(head["description"])
    voucher.status = status


def _apply_tax(store: Store, voucher: Voucher, head: Mapping[str, object]) -> None:
    if store.version == "2.0":  # taxType is dropped (Q16)
        if head.get("taxRule") is not None:
            voucher.taxRule = parse_ref(head["taxRule"], "taxRule")
        return
    value = head.get("taxType")  # 1.0: taxRule is dropped
    if value in (None, ""):
        return
    if value not in LEGACY_TAX_RATES:
        raise FakeError(400, f"taxType must be one of {', '.join(LEGACY_TAX_RATES)}")
    voucher.taxType, voucher.taxRule = str(value), None


def _positions(store: Store, voucher: Voucher, body: Mapping[str, object]) -> list[VoucherPos]:
    deletes = body.get("voucherPosDelete")
    if deletes is not None:
        if not isinstance(deletes, list):
            raise FakeError(400, "voucherPosDelete expected array or null")
        for item in deletes:
            position = store.voucher_positions.get(parse_ref(item, "voucherPosDelete").id)
            store.remove(store.voucher_positions, position)
    rows = body.get("voucherPosSave")
    if not isinstance(rows, list) or not rows:
        raise FakeError(422, "The given document must have at least one position")
    return [_position(store, voucher, row) for row in rows]


def _position(store: Store, voucher: Voucher, row: object) -> VoucherPos:
    if not isinstance(row, dict):
        raise FakeError(400, "voucherPosSave expected array with 'objectName'")
    if row.get("id") not in (None, "", 0):
        position = store.voucher_positions.get(parse_int(row["id"], "id"))
    else:
        position = VoucherPos(voucher=voucher.ref() if voucher.id else Ref("Voucher", 0))
    field = "accountDatev" if store.version == "2.0" else "accountingType"
    if row.get(field) is None:
        raise FakeError(400, f"{field} expected array with 'id' and 'objectName'. null given")
    if field == "accountDatev":
        position.accountDatev = parse_ref(row[field], field)
    else:  # 1.0: accountDatev is dropped
        position.accountingType, position.accountDatev = parse_ref(row[field], field), None
    position.taxRate = parse_decimal(row.get("taxRate", 0), "taxRate")
    if row.get("sumNet") not in (None, ""):
        position.sumNet = parse_decimal(row["sumNet"], "sumNet")
    elif row.get("sumGross") not in (None, ""):  # Q16: net:false and a gross alone, read as net
        position.sumNet = parse_decimal(row["sumGross"], "sumGross")
    else:
        raise FakeError(400, "sumNet or sumGross is required")
    position.comment = None if row.get("comment") is None else str(row["comment"])
    position.compute()
    return position


def _check_guidance(voucher: Voucher, positions: list[VoucherPos], store: Store) -> None:
    rule = voucher.taxRule.id if voucher.taxRule else 0
    receipt_type = accounts.EXPENSE if voucher.creditDebit == "C" else accounts.REVENUE
    for position in positions:
        ident = position.accountDatev.id if position.accountDatev else 0
        account = accounts.account_by_id(ident, store.chart, store.own_accounts)
        rates = dict(account.rules).get(rule, ()) if account else ()
        if (
            account is None
            or receipt_type not in account.receipt_types
            or _RATE_WORDS.get(position.taxRate) not in rates
        ):
            raise FakeError(
                422,
                f"The combination of account {position.accountDatev}, tax rule {rule} and tax "
                f"rate {position.taxRate} is not allowed",
            )


def _check_legacy(voucher: Voucher, positions: list[VoucherPos], store: Store) -> None:
    if voucher.taxType not in LEGACY_TAX_RATES:
        raise FakeError(422, "The voucher needs a taxType (bookkeeping 1.0)")
    rates = LEGACY_TAX_RATES[voucher.taxType]
    for position in positions:
        ident = position.accountingType.id if position.accountingType else 0
        known = legacy.accounting_type_by_id(ident, store.own_accounting_types) is not None
        if not known or (rates is not None and position.taxRate not in rates):
            raise FakeError(
                422,
                f"The combination of accounting type {ident}, tax type {voucher.taxType} and "
                f"tax rate {position.taxRate} is not allowed",
            )


def _attach(store: Store, voucher: Voucher, filename: object) -> None:
    if filename in (None, ""):
        return
    files = files_of(store)
    temp = files.temp.pop(str(filename), None)
    if temp is None:
        raise FakeError(400, f"The file {filename} was not found; upload it first")
    files.documents[files.next_document] = replace(temp, stored=store.now())
    voucher.document = Ref("Document", files.next_document)
    files.next_document += 1


def delete_voucher(store: Store, ident: int) -> None:
    """Delete a draft voucher and its positions.

    :raises FakeError: 404 code 151 for an unknown id; 409 code 159 unless it is a draft.
    """
    voucher = store.vouchers.get(ident)
    if voucher.status != VOUCHER_DRAFT or voucher.enshrined is not None:
        raise FakeError(409, f"Voucher {ident} can not be deleted", code=CODE_NOT_DELETABLE)
    for position in store.voucher_positions_of(voucher):
        store.remove(store.voucher_positions, position)
    store.remove(store.vouchers, voucher)
