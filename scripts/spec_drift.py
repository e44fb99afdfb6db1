"""Compare sevDesk's OpenAPI file with what this server uses (issue 42).

``python scripts/spec_drift.py PATH_TO_OPENAPI [--register spec/DEVIATIONS.md] [--json]``

What the server uses comes from the code, not from a list kept here:

- the endpoints the client sends to, their body fields, the query parameters that matter and
  the wire schemas that read each answer: :data:`sevdesk_mcp.sevdesk.endpoints.ENDPOINTS`;
- the response fields read: the fields of those msgspec schemas (by their wire names);
- the enum values the code tells apart: the status codes of ``domain/lifecycle_table.py`` and
  the invoice types and account statuses the domain modules compare with;
- the fake's routes: ``sevdesk_mcp.fake.routes.ROUTER``.

Each is looked up in the file (path templates normalised: ``{invoiceId}`` is ``{id}``). The
table says, per item, ``present``, ``gone`` (error: an endpoint, a body field, a whole request
body or a query parameter the file lacks), ``type`` (error: the file's type can no longer be
read by the schema), ``enum`` (error: a value the code compares with is no longer listed; a
warning when the file drops the enum entirely), ``new`` (info: answer fields the code does not
read) and ``fake-only`` (error: a route of the fake the file lacks). An item the register
explains is ``known: D-0xx`` instead and does not fail: :data:`KNOWN` maps each such item to
its register row, and every row it names must exist in the register. Exit status: 0 clean,
1 drift, 2 a usage error (a file missing or unreadable).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402 - after the checkout is on the path
import msgspec.inspect as mi  # noqa: E402

from sevdesk_mcp.domain.banking.accounts import ACCOUNT_STATUSES  # noqa: E402
from sevdesk_mcp.domain.banking.payments import CLOSING, FULL_PAYMENT, PARTIAL  # noqa: E402
from sevdesk_mcp.domain.documents.actions import SEND_TYPES  # noqa: E402
from sevdesk_mcp.domain.documents.reminders import DUNNABLE  # noqa: E402
from sevdesk_mcp.domain.lifecycle_table import STATUSES  # noqa: E402
from sevdesk_mcp.domain.reports.books import NOT_BOOKED_INVOICE_TYPES  # noqa: E402
from sevdesk_mcp.fake.routes import ROUTER  # noqa: E402
from sevdesk_mcp.sevdesk.endpoints import ENDPOINTS, Endpoint  # noqa: E402

DEFAULT_REGISTER: Final = ROOT / "spec" / "DEVIATIONS.md"
GET_IT: Final = (
    "sevDesk publishes the file with its API documentation (https://api.sevdesk.de/openapi.yaml); "
    "download it and pass its path"
)
_PARAM: Final = re.compile(r"\{[^}]*\}")
_ROW_ID: Final = re.compile(r"^(?:\|\s*|-\s+)([A-Z]-\d{3})\b", re.MULTILINE)
_METHODS: Final = ("get", "post", "put", "delete", "patch")
_NUMERIC: Final = frozenset({"string", "integer", "number", "boolean"})  # Q4: all as strings

# (endpoint, field) -> the values the code tells apart; checked against the file's enum
ENUMS: Final[Mapping[tuple[str, str], frozenset[str]]] = {
    ("GET /Invoice", "status"): frozenset(map(str, STATUSES["invoice"])),
    ("GET /CreditNote", "status"): frozenset(map(str, STATUSES["credit_note"])),
    ("GET /Order", "status"): frozenset(map(str, STATUSES["order"])),
    ("GET /Voucher", "status"): frozenset(map(str, STATUSES["voucher"])),
    ("GET /Invoice", "invoiceType"): frozenset({*DUNNABLE, *NOT_BOOKED_INVOICE_TYPES, "SR"}),
    ("GET /CheckAccount", "status"): frozenset(map(str, ACCOUNT_STATUSES)),
}
_BOOKED_AS: Final = frozenset({FULL_PAYMENT, PARTIAL, *CLOSING})
_SENT_AS: Final = frozenset({*SEND_TYPES.values(), "VPDF"})  # VPDF: marked sent, downloaded
_BOOKS: Final = ("Invoice", "CreditNote", "Voucher")
_SENDS: Final = ("Invoice", "CreditNote", "Order")
# (endpoint, body field) -> the values the code sends; checked against the file's enum
BODY_ENUMS: Final[Mapping[tuple[str, str], frozenset[str]]] = {
    **{(f"PUT /{word}/{{id}}/bookAmount", "type"): _BOOKED_AS for word in _BOOKS},
    **{(f"PUT /{word}/{{id}}/sendBy", "sendType"): _SENT_AS for word in _SENDS},
}

# what the official file lacks or says otherwise, by the register row that explains it
KNOWN: Final[Mapping[str, str]] = {
    "GET /SevClient": "D-049",
    "GET /SevUser": "D-090",
    "GET /Unity": "D-090",
    "GET /StaticCountry": "D-090",
    "GET /PaymentMethod": "D-090",
    "fake GET /Category": "D-090",
    "GET /CreditNote/{id}/getPositions": "D-090",
    "GET /TaxRule": "D-090",
    "GET /AccountDatev": "D-090",
    "GET /AccountDatev/{id}": "D-090",
    "GET /AccountingType": "D-052",
    "GET /AccountingType/{id}": "D-052",
    "GET /SevSequence/Factory/getByType": "D-066",
    "GET /CheckAccountTransactionLog": "D-090",
    "GET /Document/{id}": "D-083",
    "GET /Document/{id}/download": "D-083",
    "DELETE /Invoice/{id}": "D-090",
    "DELETE /Voucher/{id}": "D-090",
    "fake PUT /Invoice/{id}/changeStatus": "D-026",
    "fake PUT /CreditNote/{id}/changeStatus": "D-026",
    "PdfFile.mimetype": "D-003",
    "PdfFile.base64Encoded": "D-003",
    "GET /Voucher status 150": "D-091",
    "GET /Voucher status 750": "D-091",
    "Document.creditNoteType": "D-091",
    "Document.refSrcInvoice": "D-091",
    "TaxDocument.creditNoteType": "D-091",
    "TaxDocument.refSrcInvoice": "D-091",
    "TaxPosition.sumNet": "D-091",
    "TaxPosition.sumTax": "D-091",
    "TaxPosition.sumGross": "D-091",
    "Voucher.supplierNameAtSave": "D-091",
    "POST /CreditNote/{id}/sendViaEmail body sendXml": "D-092",
    "POST /Order/{id}/sendViaEmail body sendXml": "D-092",
    **{f"GET /{word} query updateAfter": "D-053" for word in ("Contact", "Invoice", "Order")},
    "GET /Voucher query updateAfter": "D-053",
    "GET /Invoice query showWkr": "F-003",
    "GET /Invoice query invoiceType": "D-090",
}


@dataclass(frozen=True)
class Finding:
    """One line of the table: ``level`` is ok, info, warning or error."""

    level: str
    kind: str
    subject: str
    detail: str = ""
    known: str | None = None


class UsageError(Exception):
    """A file is missing or cannot be read; the message says which and what to do."""


def norm(template: str) -> str:
    """:returns: ``template`` with every path parameter written ``{id}``."""
    return _PARAM.sub("{id}", template)


def load_yaml(path: Path) -> dict[str, Any]:
    """:returns: the OpenAPI file as a mapping.

    :raises UsageError: if it is missing, pyyaml is not installed or it is no OpenAPI file.
    """
    if not path.is_file():
        raise UsageError(f"the OpenAPI file {path} does not exist; {GET_IT}")
    try:
        import yaml  # noqa: PLC0415 - a maintainer tool: pyyaml is a test extra
    except ImportError:
        raise UsageError(
            "pyyaml is missing; install the test extra: "
            ".venv/bin/python -m pip install -e '.[test]'"
        ) from None
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{path} is no readable YAML file ({type(exc).__name__}); {GET_IT}"
        ) from None
    if not isinstance(spec, dict) or not isinstance(spec.get("paths"), dict):
        raise UsageError(f"{path} has no `paths`: it is no OpenAPI file; {GET_IT}")
    return spec


class Spec:
    """The parts of an OpenAPI file the check reads."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self._schemas: Mapping[str, Any] = raw.get("components", {}).get("schemas", {})
        self._parameters: Mapping[str, Any] = raw.get("components", {}).get("parameters", {})
        self.operations: dict[str, Mapping[str, Any]] = {}
        for path, item in raw["paths"].items():
            for method in _METHODS:
                if isinstance(item, dict) and method in item:
                    self.operations[f"{method.upper()} {norm(path)}"] = item[method]

    def resolve(self, schema: Any, depth: int = 0) -> Mapping[str, Any]:
        """:returns: ``schema`` with its ``$ref`` followed (``{}`` for what cannot be)."""
        while isinstance(schema, dict) and "$ref" in schema and depth < 20:
            schema = self._schemas.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
            depth += 1
        return schema if isinstance(schema, dict) else {}

    def properties(self, schema: Any, depth: int = 0) -> dict[str, Mapping[str, Any]]:
        """:returns: the fields of the objects ``schema`` describes: through ``$ref``, list
        ``items``, ``allOf``/``oneOf``/``anyOf`` and the envelope's ``objects``."""
        found = self.resolve(schema)
        if depth > 8 or not found:
            return {}
        out: dict[str, Mapping[str, Any]] = {}
        for key in ("allOf", "oneOf", "anyOf"):
            for part in found.get(key, []):
                out.update(self.properties(part, depth + 1))
        if "items" in found:
            out.update(self.properties(found["items"], depth + 1))
        props = found.get("properties", {})
        if set(props) == {"objects"} or (depth == 0 and "objects" in props):
            out.update(self.properties(props["objects"], depth + 1))
        elif isinstance(props, dict):
            out.update({k: self.resolve(v) or v for k, v in props.items()})
        return out

    def answer_fields(self, key: str) -> dict[str, Mapping[str, Any]]:
        """:returns: the fields of the success answers of operation ``key``."""
        out: dict[str, Mapping[str, Any]] = {}
        for status, answer in self.operations[key].get("responses", {}).items():
            if str(status).startswith("2"):
                for media in self.resolve(answer).get("content", {}).values():
                    out.update(self.properties(media.get("schema")))
        return out

    def query_parameters(self, key: str) -> set[str]:
        """:returns: the names of operation ``key``'s query parameters (``$ref`` followed)."""
        found = (self.resolve_parameter(p) for p in self.operations[key].get("parameters", []))
        return {str(p["name"]) for p in found if p.get("in") == "query" and "name" in p}

    def resolve_parameter(self, parameter: Any) -> Mapping[str, Any]:
        """:returns: ``parameter`` with a ``#/components/parameters`` reference followed."""
        if isinstance(parameter, dict) and "$ref" in parameter:
            name = str(parameter["$ref"]).rsplit("/", 1)[-1]
            found = self._parameters.get(name, {})
            return found if isinstance(found, dict) else {}
        return parameter if isinstance(parameter, dict) else {}

    def body_fields(self, key: str) -> dict[str, Mapping[str, Any]]:
        """:returns: the top-level fields of operation ``key``'s request body."""
        body = self.resolve(self.operations[key].get("requestBody"))
        found: dict[str, Mapping[str, Any]] = {}
        for media in body.get("content", {}).values():
            found.update(self.properties(media.get("schema")))
        return found


def _key(endpoint: Endpoint) -> str:
    return f"{endpoint.method} {norm(endpoint.template)}"


def _spec_kinds(prop: Mapping[str, Any]) -> set[str]:
    kind = prop.get("type")
    if isinstance(kind, list):
        return {str(k) for k in kind if k != "null"}
    if kind is None and "properties" in prop:
        return {"object"}
    return {str(kind)} if kind else set()


_READS: Final[tuple[tuple[tuple[type[mi.Type], ...], frozenset[str]], ...]] = (
    ((mi.StructType, mi.DictType), frozenset({"object"})),
    ((mi.ListType, mi.TupleType, mi.VarTupleType), frozenset({"array"})),
    ((mi.StrType,), frozenset({"string"})),
    ((mi.DateTimeType, mi.DateType), frozenset({"string", "integer"})),
    ((mi.IntType, mi.FloatType, mi.DecimalType, mi.BoolType), _NUMERIC),
)


def _readable(info: mi.Type) -> set[str] | None:
    """:returns: the OpenAPI types a field of msgspec type ``info`` reads; ``None``: any."""
    if isinstance(info, mi.Metadata):
        return _readable(info.type)
    if not isinstance(info, mi.UnionType):
        return next((set(kinds) for types, kinds in _READS if isinstance(info, types)), None)
    found: set[str] = set()
    for member in info.types:
        inner = set() if isinstance(member, mi.NoneType) else _readable(member)
        if inner is None:
            return None
        found |= inner
    return found


def _schema_fields(kind: type[msgspec.Struct]) -> Iterator[tuple[str, set[str] | None]]:
    for field in msgspec.structs.fields(kind):
        yield field.encode_name, _readable(mi.type_info(field.type))


def check_endpoints(spec: Spec) -> Iterator[Finding]:
    """The endpoints the client sends to, and the body fields it sends."""
    for endpoint in ENDPOINTS:
        key = _key(endpoint)
        if key not in spec.operations:
            yield Finding("error", "gone", key, "the client sends it; the file has no such path")
            continue
        yield Finding("ok", "present", key)
        yield from _body(spec, key, endpoint)
        documented = spec.query_parameters(key)
        for name in endpoint.query:
            if name not in documented:
                detail = "sent as a query parameter; the file does not list it"
                yield Finding("error", "gone", f"{key} query {name}", detail)


def _body(spec: Spec, key: str, endpoint: Endpoint) -> Iterator[Finding]:
    documented = spec.body_fields(key)
    if endpoint.sends and not documented:
        detail = f"sends {', '.join(endpoint.sends)}; the file documents no request body"
        yield Finding("error", "gone", f"{key} body", detail)
        return
    for name in endpoint.sends:
        if name not in documented:
            yield Finding("error", "gone", f"{key} body {name}", "sent, not documented")


def _reading(spec: Spec) -> dict[type[msgspec.Struct], tuple[list[str], list[str]]]:
    """:returns: per wire schema, the endpoints whose answers it reads: those in the file, and
    those the file lacks."""
    out: dict[type[msgspec.Struct], tuple[list[str], list[str]]] = {}
    for endpoint in ENDPOINTS:
        for kind in endpoint.reads:
            inside, outside = out.setdefault(kind, ([], []))
            (inside if _key(endpoint) in spec.operations else outside).append(_key(endpoint))
    return out


def check_answers(spec: Spec) -> Iterator[Finding]:
    """The fields each wire schema reads, in the answers of the endpoints it reads. A field
    none of them has is gone, unless the schema also reads an endpoint the file lacks (that
    endpoint's finding says so): the field may come from there, which the file cannot tell."""
    for kind, (keys, undocumented) in _reading(spec).items():
        if not keys:
            continue  # its endpoints are gone or known; reported there
        documented: dict[str, Mapping[str, Any]] = {}
        for key in keys:
            documented.update(spec.answer_fields(key))
        for name, readable in _schema_fields(kind):
            prop = documented.get(name)
            subject = f"{kind.__name__}.{name}"
            if prop is None and undocumented:
                yield Finding(
                    "info", "elsewhere", subject, f"not in the file; read from {undocumented[0]}"
                )
            else:
                yield from _field(subject, prop, readable)


def _field(
    subject: str, prop: Mapping[str, Any] | None, readable: set[str] | None
) -> Iterator[Finding]:
    if prop is None:
        yield Finding(
            "error", "gone", subject, "read by the code; no answer of its endpoints has it"
        )
        return
    kinds = _spec_kinds(prop)
    if readable is not None and kinds and not kinds & readable:
        said, read = "/".join(sorted(kinds)), "/".join(sorted(readable))
        detail = f"the file says {said}; the schema reads {read}"
        yield Finding("error", "type", subject, detail)


def check_unread(spec: Spec) -> Iterator[Finding]:
    """Answer fields of the endpoints the code reads that no schema reads (information)."""
    for endpoint in ENDPOINTS:
        key = _key(endpoint)
        if not endpoint.reads or key not in spec.operations:
            continue
        read = {name for kind in endpoint.reads for name, _ in _schema_fields(kind)}
        unread = sorted(set(spec.answer_fields(key)) - read)
        if unread:
            yield Finding(
                "info", "new", key, f"{len(unread)} answer fields not read: {', '.join(unread)}"
            )


def check_enums(spec: Spec) -> Iterator[Finding]:
    """The values the code compares with or sends, against the file's enums."""
    for (key, name), values in ENUMS.items():
        prop = spec.answer_fields(key).get(name) if key in spec.operations else None
        yield from _enum(f"{key} {name}", prop, values, "the code knows it")
    for (key, name), values in BODY_ENUMS.items():
        prop = spec.body_fields(key).get(name) if key in spec.operations else None
        yield from _enum(f"{key} body {name}", prop, values, "the code sends it")


def _enum(
    subject: str, prop: Mapping[str, Any] | None, values: frozenset[str], what: str
) -> Iterator[Finding]:
    if prop is None:
        return  # a gone field is reported elsewhere
    listed = prop.get("enum")
    if not isinstance(listed, list):
        detail = f"the file lists no values any more; {what}, {len(values)} values unchecked"
        yield Finding("warning", "enum", subject, detail)
        return
    documented = {str(v) for v in listed if v is not None}
    for value in sorted(values - documented):
        yield Finding("error", "enum", f"{subject} {value}", f"{what}; the file does not list it")


def check_fake(spec: Spec) -> Iterator[Finding]:
    """The fake's routes the client table does not name, against the file."""
    used = {_key(e) for e in ENDPOINTS}
    for route in ROUTER.routes:
        key = f"{route.method} {norm(route.template)}"
        served = (k.split(" ", 1) for k in spec.operations)  # a fake parameter is any word
        if key in used or any(m == route.method and route.pattern.fullmatch(p) for m, p in served):
            continue
        if key not in spec.operations:
            yield Finding(
                "error", "fake-only", f"fake {key}", "the fake serves it; the file has no such path"
            )


def register_ids(text: str) -> set[str]:
    """:returns: the row ids of the register (``| D-001 |`` and ``- T-001`` rows)."""
    return set(_ROW_ID.findall(text))


def _with_known(findings: Iterable[Finding], ids: set[str]) -> Iterator[Finding]:
    seen: set[str] = set()
    for finding in findings:
        row = KNOWN.get(finding.subject)
        if finding.level == "error" and row is not None:
            seen.add(finding.subject)
            if row in ids:
                yield Finding("ok", "known", finding.subject, finding.detail, row)
            else:
                yield Finding("error", "register", finding.subject, f"{row} is not in the register")
        else:
            yield finding
    for subject in sorted(set(KNOWN) - seen):
        yield Finding(
            "warning",
            "stale",
            subject,
            f"{KNOWN[subject]} no longer explains a gap; drop it from KNOWN",
        )


def check(raw: Mapping[str, Any], register_text: str) -> list[Finding]:
    """:returns: every finding for the OpenAPI file ``raw`` (parsed) and the register's text."""
    spec = Spec(raw)
    found = [
        *check_endpoints(spec),
        *check_answers(spec),
        *check_enums(spec),
        *check_fake(spec),
        *check_unread(spec),
    ]
    return list(_with_known(found, register_ids(register_text)))


def _table(findings: list[Finding]) -> str:
    lines = ["level   | item                                             | detail"]
    for f in findings:
        what = f"known: {f.known}" if f.known else f.kind
        lines.append(f"{f.level:<7} | {what:<11} {f.subject:<36} | {f.detail}")
    errors = sum(f.level == "error" for f in findings)
    lines.append(f"{len(findings)} items, {errors} errors")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """:returns: 0 clean, 1 drift, 2 a usage error (its one-line reason on stderr)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("openapi", type=Path, help="sevDesk's OpenAPI file (YAML)")
    parser.add_argument("--register", type=Path, default=DEFAULT_REGISTER)
    parser.add_argument("--json", action="store_true", help="the findings as JSON")
    args = parser.parse_args(argv)
    try:
        raw = load_yaml(args.openapi)
        if not args.register.is_file():
            raise UsageError(f"the register {args.register} does not exist; pass --register")
        findings = check(raw, args.register.read_text(encoding="utf-8"))
    except UsageError as exc:
        print(f"spec_drift: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([asdict(f) for f in findings], indent=1))
    else:
        print(_table(findings))
    return 1 if any(f.level == "error" for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
