"""Sanitizing recorded sevDesk answers, and the scan that proves nothing personal is left.

:class:`Sanitizer` replaces, field by field, names and company names, street/zip/city and
whole addresses, e-mails, phone numbers, IBAN/BIC and bank account numbers, VAT ids, tax
numbers and tax offices, free texts (descriptions, notes, header/head/foot texts, payment
purposes, position texts), birthdays, file contents, URLs and the token. The same original
always gets the same replacement within one sanitizer (one recording), so references between
files still match; ids, amounts, dates, status codes, enums and ``objectName`` are kept, and
every replacement is a string where a string was (the shape of the answer stays).

Strings in fields it has no rule for are searched for e-mails, IBANs (with a valid checksum),
phone numbers, URLs and the token, which are replaced inside the text.

:func:`scan` then looks at the sanitized result for anything that still looks personal: an
e-mail, a checksum-valid IBAN or a phone number anywhere, an original value the sanitizer
replaced, the token, or a sensitive field that does not hold a replacement. A recording is
written only when the scan finds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from sevdesk_mcp.jsontypes import JsonValue

NAMES: Final = frozenset(
    {
        "name",
        "name2",
        "name3",
        "name4",
        "surename",
        "familyname",
        "titel",
        "academicTitle",
        "firstName",
        "lastName",
        "fullname",
        "username",
        "addressName",
        "supplierName",
        "supplierNameAtSave",
        "payeePayerName",
        "bankName",
        "addressParentName",
        "addressGender",
        "gender",
        "salutation",
        "ownerName",
        "contactPersonName",
    }
)
ADDRESSES: Final = frozenset(
    {
        "street",
        "zip",
        "city",
        "address",
        "addressStreet",
        "addressZip",
        "addressCity",
        "deliveryAddress",
    }
)
# ``value``: a CommunicationWay's e-mail, phone or web address, whatever its type
CONTACT_WAYS: Final = frozenset({"value", "email", "toEmail", "phone", "mobile", "fax", "website"})
BANK: Final = frozenset(
    {
        "iban",
        "bic",
        "bankAccount",
        "bankNumber",
        "bankAccountNumber",
        "payeePayerAcctNo",
        "payeePayerBankCode",
        "mandateReference",
    }
)
TAX_IDS: Final = frozenset({"vatNumber", "taxNumber", "taxOffice", "buyerReference"})
FREE_TEXTS: Final = frozenset(
    {
        "description",
        "descriptionLike",
        "paymtPurpose",
        "header",
        "headText",
        "footText",
        "text",
        "comment",
        "customerInternalNote",
        "note",
        "notes",
        "internalComment",
        "entryText",
        "additionalInformation",
        "subject",
        "filename",
    }
)
CONTENTS: Final = frozenset({"content", "link", "pdf", "xml"})
DATES_OF_PEOPLE: Final = frozenset({"birthday"})
BIRTHDAY: Final = "1900-01-01"
CATEGORIES: Final = (
    (NAMES, "NAME"),
    (ADDRESSES, "ADDRESS"),
    (CONTACT_WAYS, "CONTACTWAY"),
    (BANK, "BANK"),
    (TAX_IDS, "TAXID"),
    (FREE_TEXTS, "TEXT"),
    (CONTENTS, "CONTENT"),
)
SENSITIVE: Final = frozenset().union(*(keys for keys, _ in CATEGORIES), DATES_OF_PEOPLE)
# system-defined reference rows: lists sevDesk itself fills, which no account can add rows to
# (tax rules, countries, the kinds of communication ways). Rows an account creates itself
# (payment methods, categories, DATEV accounts, units, tax sets, accounting types) are
# sanitized like any other object.
REFERENCE_OBJECTS: Final = frozenset({"TaxRule", "StaticCountry", "CommunicationWayKey"})
REFERENCE_KEYS: Final = frozenset({"allowedTaxRules"})
# keys whose texts are kept as they are: sevDesk's enums and codes, object names, currencies,
# document numbers, tax labels, and the recording's own provenance, request and headers.
# A text with letters under any other key that is not sanitized makes the scan refuse.
KEPT_KEYS: Final = frozenset(
    {
        "objectName",
        "type",
        "status",
        "currency",
        "invoiceType",
        "creditNoteType",
        "orderType",
        "voucherType",
        "sendType",
        "creditDebit",
        "importType",
        "bookingCategory",
        "taxType",
        "taxText",
        "translationCode",
        "uneceTradeUnitCode",
        "unitySystem",
        "recurringInterval",
        "recurringIntervall",
        "version",
        "invoiceNumber",
        "creditNoteNumber",
        "orderNumber",
        "customerNumber",
        # the recording's provenance, request and kept headers
        "recorded_at",
        "api_root",
        "x_version",
        "bookkeeping_system",
        "tool_version",
        "recorder",
        "method",
        "path",
        "limit",
        "depth",
        "countAll",
        "content-type",
        "x-version",
        "retry-after",
    }
)  # ReceiptGuidance: sevDesk's texts
KEPT_VALUES: Final = frozenset({"", "-"})
REPLACEMENT: Final = re.compile(r"^[A-Z]+-\d{4}$")
EMAIL: Final = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
IBAN: Final = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
PHONE: Final = re.compile(
    r"(?<![\w.:-])(?:\+|00)\d{1,3}(?:[ /-]?\(0\))?(?:[ /-]?\d{2,}){2,5}(?![\w.:])"
    r"|(?<![\w.:-])0\d{2,5}[ /-]\d{2,}(?:[ /-]?\d{2,}){0,4}(?![\w.:])"
)
URL: Final = re.compile(r"https?://[^\s\"'<>]+")
PLAIN: Final = re.compile(
    r"^-?\d+(?:\.\d+)?$|^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?)?$"
)
MIN_ORIGINAL: Final = 4  # shorter originals ("Dr.", "m") would match everywhere
MIN_PHONE_DIGITS: Final = 7


def iban_valid(candidate: str) -> bool:
    """:returns: whether ``candidate`` (spaces allowed) passes the IBAN mod-97 checksum."""
    text = candidate.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", text):
        return False
    digits = "".join(str(int(c, 36)) for c in text[4:] + text[:4])
    return int(digits) % 97 == 1


class Sanitizer:
    """Replaces personal data consistently across every answer of one recording.

    :param secrets: values that must never appear (the token).
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = tuple(s for s in secrets if s)
        self._replacements: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    @property
    def originals(self) -> frozenset[str]:
        """:returns: every value this sanitizer replaced."""
        return frozenset(self._replacements)

    def replacement(self, original: str, kind: str) -> str:
        """:returns: the replacement of ``original``: the same for the same original, whatever
        field it came from (``NAME-0001``, ``TEXT-0007``)."""
        found = self._replacements.get(original)
        if found is None:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            found = self._replacements[original] = f"{kind}-{self._counts[kind]:04d}"
        return found

    def sanitize(self, value: JsonValue) -> JsonValue:
        """:returns: a sanitized copy of ``value`` (an answer body or any part of one)."""
        return self._value(value, key=None, reference=False)

    def _value(self, value: JsonValue, *, key: str | None, reference: bool) -> JsonValue:
        if isinstance(value, dict):
            inner = reference or value.get("objectName") in REFERENCE_OBJECTS
            return {k: self._field(k, v, reference=inner) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(v, key=key, reference=reference) for v in value]
        if isinstance(value, str):
            return self._text(value)
        return value

    def _field(self, key: str, value: JsonValue, *, reference: bool) -> JsonValue:
        if key in REFERENCE_KEYS:
            return self._value(value, key=key, reference=True)
        text = _scalar_text(value)
        if text is not None and text not in KEPT_VALUES:
            kind = None if reference and key in NAMES | FREE_TEXTS else _kind_of(key)
            if kind == "DATE":
                self._replacements.setdefault(text, BIRTHDAY)
                return BIRTHDAY
            if kind is not None:  # a number (a zip, a bank code) becomes a string too
                return self.replacement(text, kind)
        return self._value(value, key=key, reference=reference)

    def _text(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "TOKEN-REDACTED")
        text = URL.sub(lambda m: self.replacement(m.group(), "URL"), text)
        text = EMAIL.sub(lambda m: self.replacement(m.group(), "EMAIL"), text)
        text = IBAN.sub(
            lambda m: self.replacement(m.group(), "IBAN") if iban_valid(m.group()) else m.group(),
            text,
        )
        if PLAIN.match(text):
            return text
        return PHONE.sub(lambda m: self._phone(m.group()), text)

    def _phone(self, found: str) -> str:
        digits = sum(c.isdigit() for c in found)
        return self.replacement(found, "PHONE") if digits >= MIN_PHONE_DIGITS else found


def _scalar_text(value: JsonValue) -> str | None:
    """:returns: a string or number as text (``None`` for null, booleans, objects, lists)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, int | float) else None


def _kind_of(key: str) -> str | None:
    if key in DATES_OF_PEOPLE:
        return "DATE"
    for keys, kind in CATEGORIES:
        if key in keys:
            return kind
    return None


@dataclass(frozen=True, slots=True)
class Finding:
    """Something that still looks personal: where it is and what it looks like."""

    path: str
    what: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


def scan(
    value: JsonValue, originals: Iterable[str] = (), secrets: Iterable[str] = ()
) -> list[Finding]:
    """:returns: everything in ``value`` that still looks personal (empty when clean): an
    e-mail, a checksum-valid IBAN or a phone number in any string, one of ``originals`` (the
    values the sanitizer replaced) or ``secrets`` inside any string, a sensitive field (a
    name, address, bank, tax id, free text...) that holds anything but a replacement (a
    number too), or a text with letters under a key that is neither sanitized nor one of
    :data:`KEPT_KEYS`."""
    scanner = _Scanner.of(originals, secrets)
    findings: list[Finding] = []
    for path, key, leaf in _leaves(value, "$", None, reference=False):
        if isinstance(leaf, str):
            findings += scanner.look(path, key, leaf)
        elif _sensitive(*key):
            kind = type(leaf).__name__  # never the value: findings are printed
            said = f"the sensitive field {key[0]!r} holds a value of type {kind}"
            findings.append(Finding(path, said))
    return findings


@dataclass(frozen=True, slots=True)
class _Scanner:
    long_originals: tuple[str, ...]  # searched inside every string
    exact_originals: frozenset[str]  # short or numeric ones: only as a whole value
    hidden: tuple[str, ...]

    @classmethod
    def of(cls, originals: Iterable[str], secrets: Iterable[str]) -> _Scanner:
        known = frozenset(o for o in originals if o != BIRTHDAY)
        long = tuple(o for o in known if len(o) >= MIN_ORIGINAL and not PLAIN.match(o))
        return cls(long, known - frozenset(long), tuple(s for s in secrets if s))

    def look(self, path: str, key: tuple[str | None, bool], text: str) -> Iterator[Finding]:
        name, reference = key
        if any(s in text for s in self.hidden):
            yield Finding(path, "the API token")
        if EMAIL.search(text):
            yield Finding(path, "an e-mail address")
        if any(iban_valid(m.group()) for m in IBAN.finditer(text)):
            yield Finding(path, "an IBAN")
        if not PLAIN.match(text) and any(
            sum(c.isdigit() for c in m.group()) >= MIN_PHONE_DIGITS for m in PHONE.finditer(text)
        ):
            yield Finding(path, "a phone number")
        if text in self.exact_originals or any(o in text for o in self.long_originals):
            yield Finding(path, "a value the sanitizer replaced elsewhere")
        if _unreplaced(name, reference, text):
            yield Finding(path, f"the sensitive field {name!r} holds no replacement")
        elif _unlisted(name, reference, text):
            yield Finding(path, f"a text in {name!r}, a field neither sanitized nor listed as kept")


def _sensitive(name: str | None, reference: bool) -> bool:
    if name is None or name not in SENSITIVE:
        return False
    return not (reference and name in NAMES | FREE_TEXTS)


def _unreplaced(name: str | None, reference: bool, text: str) -> bool:
    if not _sensitive(name, reference) or text in KEPT_VALUES:
        return False
    if name in DATES_OF_PEOPLE:
        return text != BIRTHDAY
    return not REPLACEMENT.match(text)


def _unlisted(name: str | None, reference: bool, text: str) -> bool:
    if reference or name in SENSITIVE or name in KEPT_KEYS or PLAIN.match(text):
        return False
    return any(c.isalpha() for c in text) and not REPLACEMENT.match(text)


Leaf = str | int | float | bool


def _leaves(
    value: JsonValue, path: str, key: str | None, *, reference: bool
) -> Iterator[tuple[str, tuple[str | None, bool], Leaf]]:
    if isinstance(value, dict):
        inner = reference or value.get("objectName") in REFERENCE_OBJECTS
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}", k, reference=inner or k in REFERENCE_KEYS)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]", key, reference=reference)
    elif value is not None:
        yield path, (key, reference), value
