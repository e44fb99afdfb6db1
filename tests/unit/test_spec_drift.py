"""The spec-drift check (``scripts/spec_drift.py``, issue 42) and the endpoint table it reads.

The OpenAPI file is ``../shared/spec/sevdesk-openapi.yaml`` beside the checkout, or the file
``SEVDESK_OPENAPI_FILE`` names; without it the tests that read it skip.

The check runs against the official OpenAPI file beside the checkout and must be clean; drifts
planted in a copy of the file (held in memory) are each caught with their line and exit 1. The
endpoint table (``sevdesk_mcp/sevdesk/endpoints.py``) is kept true here: every request the read
tools send to the demo books is in it, every entry is a route of the fake, every wire schema
reads an entry.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import json
import os
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import anyio
import msgspec
import pytest
import yaml

from sevdesk_mcp.domain.contacts.updates import ContactField
from sevdesk_mcp.domain.lifecycle_table import STATUSES
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.routes import ROUTER
from sevdesk_mcp.fake.wire import FakeError
from sevdesk_mcp.sevdesk import wire, wire_documents, wire_finance, wire_tags, wire_tax
from sevdesk_mcp.sevdesk.endpoints import ENDPOINTS, find
from tests.contract.test_request_counts import CASES, _ids
from tests.demo_account import demo_app
from tests.fake.helpers import api, objects
from tests.wire import open_wire

ROOT = Path(__file__).resolve().parents[2]
# beside the checkout; CI, which tests a clone elsewhere, names the original's file instead
SPEC_PATH = Path(
    os.environ.get("SEVDESK_OPENAPI_FILE")
    or ROOT.parent / "shared" / "spec" / "sevdesk-openapi.yaml"
)
REGISTER = ROOT / "spec" / "DEVIATIONS.md"
ABSENT = "the sevDesk OpenAPI file is not beside the checkout (../shared/spec/sevdesk-openapi.yaml)"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("spec_drift", ROOT / "scripts" / "spec_drift.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["spec_drift"] = module
    spec.loader.exec_module(module)
    return module


drift = _script()


@pytest.fixture(scope="module")
def official() -> dict[str, Any]:
    if not SPEC_PATH.is_file():
        pytest.skip(ABSENT)
    return dict(drift.load_yaml(SPEC_PATH))


def _errors(raw: dict[str, Any]) -> dict[str, Any]:
    findings = drift.check(raw, REGISTER.read_text(encoding="utf-8"))
    return {f.subject: f for f in findings if f.level == "error"}


def test_the_shared_file_is_clean_with_the_known_gaps_named(
    official: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert drift.main([str(SPEC_PATH), "--register", str(REGISTER)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(", 0 errors")
    findings = drift.check(official, REGISTER.read_text(encoding="utf-8"))
    known = {f.subject: f.known for f in findings if f.kind == "known"}
    assert known["GET /TaxRule"] == "D-090"  # the row of the endpoints the file lacks
    assert known["GET /AccountDatev"] == known["DELETE /Voucher/{id}"] == "D-090"
    assert known["GET /Invoice query updateAfter"] == "D-053"
    assert known["GET /Voucher status 150"] == "D-091"
    assert known["POST /CreditNote/{id}/sendViaEmail body sendXml"] == "D-092"
    assert known["PdfFile.mimetype"] == "D-003"
    assert "known: D-090" in out
    assert not [f for f in findings if f.level == "warning"]  # no stale entry in KNOWN


def test_json_lists_every_finding(
    official: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert drift.main([str(SPEC_PATH), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"level", "kind", "subject", "detail", "known"} == set(rows[0])
    assert {r["known"] for r in rows if r["subject"] == "GET /TaxRule"} == {"D-090"}


def test_a_removed_path_the_client_calls_is_drift(
    official: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy.deepcopy(official)
    del raw["paths"]["/Invoice/{invoiceId}/getPositions"]
    assert _errors(raw)["GET /Invoice/{id}/getPositions"].kind == "gone"
    planted = tmp_path / "openapi.yaml"
    planted.write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert drift.main([str(planted)]) == 1
    line = next(x for x in capsys.readouterr().out.splitlines() if "getPositions" in x)
    assert line.startswith("error") and "gone" in line and "GET /Invoice/{id}/getPositions" in line


def test_a_removed_answer_field_the_code_reads_is_drift(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    del raw["components"]["schemas"]["Model_VoucherResponse"]["properties"]["paymentDeadline"]
    errors = _errors(raw)
    assert errors["Voucher.paymentDeadline"].kind == "gone"
    assert set(errors) == {"Voucher.paymentDeadline"}


def test_a_dropped_enum_value_is_drift(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    status = raw["components"]["schemas"]["Model_InvoiceResponse"]["properties"]["status"]
    status["enum"] = [v for v in status["enum"] if v != "750"]
    assert set(_errors(raw)) == {"GET /Invoice status 750"}


def test_a_dropped_value_the_code_sends_is_drift(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    body = raw["paths"]["/Voucher/{voucherId}/bookAmount"]["put"]["requestBody"]
    kind = body["content"]["application/json"]["schema"]["properties"]["type"]
    kind["enum"] = [v for v in kind["enum"] if v != "N"]
    assert set(_errors(raw)) == {"PUT /Voucher/{id}/bookAmount body type N"}


def test_a_changed_field_type_is_drift(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    props = raw["components"]["schemas"]["Model_ContactResponse"]["properties"]
    props["category"] = {"type": "string"}
    finding = _errors(raw)["Contact.category"]
    assert finding.kind == "type" and "string" in finding.detail and "object" in finding.detail


def test_a_body_field_the_file_no_longer_takes_is_drift(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    body = raw["paths"]["/Invoice/{invoiceId}/sendBy"]["put"]["requestBody"]
    del body["content"]["application/json"]["schema"]["properties"]["sendDraft"]
    assert set(_errors(raw)) == {"PUT /Invoice/{id}/sendBy body sendDraft"}


def test_a_dropped_request_body_is_drift(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    del raw["paths"]["/Invoice/{invoiceId}/sendBy"]["put"]["requestBody"]
    errors = _errors(raw)
    assert set(errors) == {"PUT /Invoice/{id}/sendBy body"}
    assert "sendType, sendDraft" in errors["PUT /Invoice/{id}/sendBy body"].detail


@pytest.mark.parametrize(
    ("path", "name", "subject"),
    [
        ("/Invoice/{invoiceId}/getPdf", "preventSendBy", "GET /Invoice/{id}/getPdf"),
        (
            "/Export/createDatevCsvZipExportJob",
            "enshrineDocuments",
            "GET /Export/createDatevCsvZipExportJob",
        ),
        ("/Voucher", "creditDebit", "GET /Voucher"),
    ],
)
def test_a_dropped_query_parameter_is_drift(
    official: dict[str, Any], path: str, name: str, subject: str
) -> None:
    raw = copy.deepcopy(official)
    operation = raw["paths"][path]["get"]
    operation["parameters"] = [p for p in operation["parameters"] if p.get("name") != name]
    errors = _errors(raw)
    assert set(errors) == {f"{subject} query {name}"}
    assert errors[f"{subject} query {name}"].kind == "gone"


def test_the_table_holds_the_parameters_with_side_effects() -> None:
    table = {(e.method, e.template): set(e.query) for e in ENDPOINTS}
    assert "preventSendBy" in table["GET", "/Invoice/{id}/getPdf"]
    assert "useNextNumber" in table["GET", "/SevSequence/Factory/getByType"]
    assert "enshrineDocuments" in table["GET", "/Export/createDatevCsvZipExportJob"]


def test_an_enum_the_file_drops_entirely_is_a_warning(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    del raw["components"]["schemas"]["Model_InvoiceResponse"]["properties"]["status"]["enum"]
    findings = drift.check(raw, REGISTER.read_text(encoding="utf-8"))
    warnings = [f for f in findings if f.level == "warning"]
    assert [(f.kind, f.subject) for f in warnings] == [("enum", "GET /Invoice status")]
    assert "lists no values any more" in warnings[0].detail
    assert not [f for f in findings if f.level == "error"]


def test_the_contact_update_sends_what_the_table_says() -> None:
    table = {(e.method, e.template): set(e.sends) for e in ENDPOINTS}
    assert set(get_args(ContactField)) <= table["PUT", "/Contact/{id}"]


def test_a_fake_route_the_file_lost_is_drift(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    del raw["paths"]["/ReceiptGuidance/forExpense"]
    assert _errors(raw)["fake GET /ReceiptGuidance/forExpense"].kind == "fake-only"


def test_a_known_gap_needs_its_register_row(official: dict[str, Any]) -> None:
    register = REGISTER.read_text(encoding="utf-8").replace("| D-090 |", "| D-09x |")
    errors = {f.subject: f for f in drift.check(official, register) if f.level == "error"}
    assert errors["GET /TaxRule"].kind == "register"
    assert "D-090" in errors["GET /TaxRule"].detail


def test_a_gap_that_closed_is_named_stale(official: dict[str, Any]) -> None:
    raw = copy.deepcopy(official)
    raw["paths"]["/TaxRule"] = {"get": {"responses": {}}}
    findings = drift.check(raw, REGISTER.read_text(encoding="utf-8"))
    assert [f.subject for f in findings if f.kind == "stale"] == ["GET /TaxRule"]


def test_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.yaml"
    assert drift.main([str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(missing) in err and "sevDesk publishes" in err


def _route_of(method: str, template: str) -> bool:
    try:
        ROUTER.match(method, template.replace("{id}", "1"))
    except FakeError:
        return False
    return True


def test_every_endpoint_of_the_table_is_a_route_of_the_fake() -> None:
    assert [e for e in ENDPOINTS if not _route_of(e.method, e.template)] == []
    keys = Counter((e.method, e.template) for e in ENDPOINTS)
    assert [k for k, n in keys.items() if n > 1] == []


def test_every_wire_schema_reads_an_endpoint() -> None:
    read = {kind for e in ENDPOINTS for kind in e.reads}
    nested = {wire.Ref, wire.GuidanceRule}  # parts of other schemas, never a whole answer
    modules = (wire, wire_documents, wire_finance, wire_tags, wire_tax)
    schemas = {
        obj
        for module in modules
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, msgspec.Struct)
        and obj.__module__ == module.__name__
    }
    assert schemas - nested - read == set()


@pytest.mark.anyio
async def test_every_request_of_the_read_tools_is_in_the_table() -> None:
    fake = build_demo()
    ids = _ids(fake)
    async with open_wire(demo_app(fake=fake)) as wire_:
        for tool, arguments, _, _ in CASES:
            args = {k: ids[v] if k.endswith("_id") else v for k, v in arguments.items()}
            answer = await wire_.modern("tools/call", {"name": tool, "arguments": args})
            assert not answer["result"].get("isError"), answer
    sent = {(r.method, r.path) for r in fake.requests}
    assert len(sent) > 20
    assert sorted(s for s in sent if find(*s) is None) == []


def test_the_fake_serves_what_the_file_lacks() -> None:
    fake = build_demo()
    credit_note = next(iter(fake.store.credit_notes)).id

    async def read() -> dict[str, Any]:
        async with api(fake) as client:
            return {
                "categories": await objects(client, "/Category"),
                "positions": await objects(client, f"/CreditNote/{credit_note}/getPositions"),
                "invoice_pos": await objects(client, "/InvoicePos", limit=1),
                "notes": await objects(client, "/CreditNote", limit=1),
                "vouchers": await objects(client, "/Voucher", limit=1),
            }

    got = anyio.run(read)
    assert got["categories"] and all(c["objectName"] == "Category" for c in got["categories"])
    assert got["positions"] and {"sumNet", "sumTax", "sumGross"} <= set(got["positions"][0])
    assert {"sumNet", "sumTax", "sumGross"} <= set(got["invoice_pos"][0])
    assert got["notes"][0]["creditNoteType"] == "CN" and "refSrcInvoice" in got["notes"][0]
    assert "supplierNameAtSave" in got["vouchers"][0]
    assert {150, 750} <= set(STATUSES["voucher"])
