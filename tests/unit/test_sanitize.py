"""The recorder's sanitizer and scan, on answers of the fake sevDesk with planted personal data.

The fake's demo company is served on 127.0.0.1 with :data:`live.planted.PLANTED` in its first
contact, person, address, e-mail, phone number, invoice and bank transaction; the recorder
reads it through its GET-only session. Nothing planted may survive, replacements must be
consistent across files, ids/amounts/dates must stay, and the scan must catch what slips past
the replacement.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import record_fixtures
from live.planted import FIRST_INVOICE, PLANTED, planted_demo
from live.recording import Recording, chosen, record, unique
from live.sanitize import SENSITIVE, Sanitizer, iban_valid, scan
from live.session import LiveSession, LiveSettings

from sevdesk_mcp.fake import serve_fake

WANTED = ("Contact", "ContactAddress", "CommunicationWay", "Invoice", "CheckAccountTransaction")


@pytest.fixture(scope="module")
def raw_and_sanitized() -> tuple[dict[str, Any], Recording]:
    """The raw answers of the planted demo and the recorder's sanitized recording of them."""
    fake = planted_demo()
    with serve_fake(fake) as url, LiveSession(LiveSettings(url=url, token=fake.token)) as session:
        recording = record(session, chosen(WANTED))
        files: dict[str, Any] = recording.files
        raw = {
            name: session.get(r["request"]["path"], r["request"]["query"]).body
            for name, r in files.items()
        }
    return raw, recording


def objects(recording: Recording, name: str) -> list[dict[str, Any]]:
    files: dict[str, Any] = recording.files
    found: list[dict[str, Any]] = files[name]["body"]["objects"]
    return found


def kept_leaves(value: Any, key: str | None = None) -> Iterator[tuple[str | None, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from kept_leaves(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from kept_leaves(v, key)
    elif key not in SENSITIVE:
        yield key, value


def test_nothing_planted_remains_and_the_scan_passes(
    raw_and_sanitized: tuple[dict[str, Any], Recording],
) -> None:
    raw, recording = raw_and_sanitized
    assert set(recording.files) >= {"contact.json", "invoice-id.json", "communicationway.json"}
    planted_raw = json.dumps(raw, ensure_ascii=False)
    assert all(value in planted_raw for value in PLANTED.values())  # the fake really sent them
    text = json.dumps(recording.files, ensure_ascii=False)
    assert [v for v in PLANTED.values() if v in text] == []
    assert "Vogelsang" not in text and "@" not in text
    assert recording.findings() == []


def test_replacements_are_consistent_across_files(
    raw_and_sanitized: tuple[dict[str, Any], Recording],
) -> None:
    _, recording = raw_and_sanitized
    company = objects(recording, "contact.json")[0]["name"]
    assert company.startswith("NAME-")
    assert objects(recording, "contact-id.json")[0]["name"] == company
    assert objects(recording, "contactaddress.json")[0]["name"] == company
    invoice = objects(recording, "invoice-id.json")[0]
    assert invoice["addressName"] == company
    iban = objects(recording, "contact.json")[0]["bankAccount"]
    assert objects(recording, "checkaccounttransaction.json")[0]["payeePayerAcctNo"] == iban
    street = objects(recording, "contactaddress.json")[0]["street"]
    assert invoice["addressStreet"] == street != iban
    ways = objects(recording, "communicationway.json")
    assert ways[0]["value"].startswith("CONTACTWAY-") and ways[0]["type"] == "EMAIL"
    assert ways[1]["value"] != ways[0]["value"] and ways[1]["type"] == "PHONE"


def test_ids_amounts_dates_and_enums_are_unchanged(
    raw_and_sanitized: tuple[dict[str, Any], Recording],
) -> None:
    raw, recording = raw_and_sanitized
    for name, record_ in recording.files.items():
        assert list(kept_leaves(record_["body"])) == list(kept_leaves(raw[name])), name
    invoice = objects(recording, "invoice-id.json")[0]
    assert invoice["id"] == str(FIRST_INVOICE) and invoice["objectName"] == "Invoice"
    assert (invoice["sumNet"], invoice["sumGross"], invoice["status"]) == (
        "3262",
        "3881.78",
        "1000",
    )
    assert invoice["invoiceDate"] == "2026-01-07T00:00:00+01:00"
    assert invoice["taxRule"] == {"id": "1", "objectName": "TaxRule"}
    person = objects(recording, "contact.json")[1]
    assert person["birthday"] == "1900-01-01"
    assert person["gender"].startswith("NAME-")  # personal: replaced like the salutation


def test_the_scan_catches_a_leak_that_bypassed_the_replacement(
    raw_and_sanitized: tuple[dict[str, Any], Recording],
) -> None:
    _, recording = raw_and_sanitized
    leaky = json.loads(json.dumps(recording.files["invoice-id.json"]))
    leaky["body"]["objects"][0]["headText"] = "Bitte an buchhaltung@kunde-beispiel.de antworten"
    leaky["body"]["objects"][0]["note"] = f"Konto {PLANTED['iban']}"
    leaky["body"]["objects"][0]["customField"] = "Rückruf unter 0761 4711 0815"
    found = [str(f) for f in scan(leaky, recording.sanitizer.originals)]
    assert "$.body.objects[0].headText: an e-mail address" in found
    assert (
        "$.body.objects[0].headText: the sensitive field 'headText' holds no replacement" in found
    )
    assert "$.body.objects[0].note: an IBAN" in found
    assert "$.body.objects[0].note: a value the sanitizer replaced elsewhere" in found
    assert "$.body.objects[0].customField: a phone number" in found


def test_the_scan_catches_an_original_value_and_the_token() -> None:
    sanitizer = Sanitizer(secrets=["0123456789abcdef0123456789abcdef"])
    clean = sanitizer.sanitize({"objects": [{"name": "Feldberg Ferien GmbH", "id": "7"}]})
    assert scan(clean, sanitizer.originals, sanitizer.secrets) == []
    leak: dict[str, Any] = {
        "objects": [
            {"customerNumber": "Feldberg Ferien GmbH", "x": "0123456789abcdef0123456789abcdef"}
        ]
    }
    found = [str(f) for f in scan(leak, sanitizer.originals, sanitizer.secrets)]
    assert found == [
        "$.objects[0].customerNumber: a value the sanitizer replaced elsewhere",
        "$.objects[0].x: the API token",
        "$.objects[0].x: a text in 'x', a field neither sanitized nor listed as kept",
    ]


def test_patterns_inside_unknown_fields_are_replaced_and_plain_values_kept() -> None:
    sanitizer = Sanitizer(secrets=["0123456789abcdef0123456789abcdef"])
    out = sanitizer.sanitize(
        {
            "remark": f"Mail {PLANTED['email']} Tel. {PLANTED['phone']} IBAN {PLANTED['iban']}",
            "link": "https://files.example/x?token=0123456789abcdef0123456789abcdef",
            "other": "see https://files.example/y?token=0123456789abcdef0123456789abcdef",
            "amount": "-1391.18",
            "valueDate": "2026-08-15T12:00:00+02:00",
            "status": "1000",
            "paidAmount": 87.49,
        }
    )
    assert out == {
        "remark": "Mail EMAIL-0001 Tel. PHONE-0001 IBAN IBAN-0001",
        "link": "CONTENT-0001",
        "other": "see URL-0001",
        "amount": "-1391.18",
        "valueDate": "2026-08-15T12:00:00+02:00",
        "status": "1000",
        "paidAmount": 87.49,
    }
    found = [str(f) for f in scan(out, sanitizer.originals, sanitizer.secrets)]
    assert found == [  # a text in a field without a rule is refused even when it looks clean
        "$.remark: a text in 'remark', a field neither sanitized nor listed as kept",
        "$.other: a text in 'other', a field neither sanitized nor listed as kept",
    ]


def test_reference_data_keeps_sevdesks_own_names() -> None:
    sanitizer = Sanitizer()
    rule: dict[str, Any] = {
        "id": "9",
        "objectName": "TaxRule",
        "name": "Vorsteuerabziehbare Aufwendungen",
    }
    assert sanitizer.sanitize({"objects": [rule]}) == {"objects": [rule]}
    assert scan({"objects": [rule]}) == []


def test_the_iban_checksum() -> None:
    assert iban_valid(PLANTED["iban"]) and iban_valid("DE89 3704 0044 0532 0130 00")
    assert not iban_valid("DE00680500000000101001") and not iban_valid("DE89370400440532013001")


def test_the_recorder_refuses_to_write_when_the_scan_finds_something(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = planted_demo()
    fake.store.contacts.get(410001).customerNumber = PLANTED["company"]  # no rule for this field
    with serve_fake(fake) as url:
        env = {"SEVDESK_LIVE_TOKEN": fake.token, "SEVDESK_LIVE_URL": url}
        code = record_fixtures.main([str(tmp_path / "out"), "--endpoints", "Contact"], env)
    err = capsys.readouterr().err
    assert code == 1
    assert (
        "Refused to write the recording: contact.json $.body.objects[0].customerNumber: "
        "a value the sanitizer replaced elsewhere"
    ) in err
    assert not (tmp_path / "out").exists()


def test_the_recorder_writes_a_clean_recording(tmp_path: Path) -> None:
    fake = planted_demo()
    with serve_fake(fake) as url:
        env = {"SEVDESK_LIVE_TOKEN": fake.token, "SEVDESK_LIVE_URL": url}
        assert record_fixtures.main([str(tmp_path), "--endpoints", "Invoice,SevClient"], env) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "invoice-id-getpositions.json",
        "invoice-id.json",
        "invoice.json",
        "sevclient.json",
    ]
    saved = json.loads((tmp_path / "invoice.json").read_text(encoding="utf-8"))
    assert saved["request"] == {
        "method": "GET",
        "path": "/Invoice",
        "query": {"limit": "3", "countAll": "true"},
    }
    assert saved["status"] == 200 and saved["headers"] == {"content-type": "application/json"}
    assert saved["provenance"]["bookkeeping_system"] == "2.0"
    assert saved["provenance"]["recorded_at"].endswith(("+01:00", "+02:00"))
    company = json.loads((tmp_path / "sevclient.json").read_text(encoding="utf-8"))
    assert company["body"]["objects"][0]["name"].startswith("NAME-")


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["out"], {}, "SEVDESK_LIVE_TOKEN is not set: export the API token"),
        (
            ["out"],
            {"SEVDESK_LIVE_TOKEN": "t", "SEVDESK_LIVE_URL": "http://example.org/api/v1"},
            "use an https URL",
        ),
        (
            ["out", "--endpoints", "Nope"],
            {"SEVDESK_LIVE_TOKEN": "t"},
            "Unknown endpoint Nope; choose from:",
        ),
        (["out", "--limit", "0"], {"SEVDESK_LIVE_TOKEN": "t"}, "--limit 0 is refused"),
        (
            ["out"],
            {"SEVDESK_LIVE_TOKEN": "wrong", "SEVDESK_LIVE_URL": "FAKE"},
            "sevDesk refused the token (HTTP 401)",
        ),
    ],
)
def test_the_recorder_refuses_a_bad_setup_in_one_line(
    argv: list[str], env: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = planted_demo()
    with serve_fake(fake) as url:
        env = {k: url if v == "FAKE" else v for k, v in env.items()}
        assert record_fixtures.main(argv, env) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_numbers_in_sensitive_fields_are_replaced_as_strings_consistently() -> None:
    sanitizer = Sanitizer()
    out = sanitizer.sanitize(
        {
            "objects": [
                {"zip": 10115, "bankNumber": 10010010, "mobile": 4915112345678, "id": 5},
                {"zip": "10115", "sumNet": 12.5, "bankNumber": None},
            ]
        }
    )
    assert out == {
        "objects": [
            {
                "zip": "ADDRESS-0001",
                "bankNumber": "BANK-0001",
                "mobile": "CONTACTWAY-0001",
                "id": 5,
            },
            {"zip": "ADDRESS-0001", "sumNet": 12.5, "bankNumber": None},
        ]
    }
    assert scan(out, sanitizer.originals) == []


def test_the_scan_flags_a_number_left_in_a_sensitive_field() -> None:
    found = [str(f) for f in scan({"zip": 10115, "bankNumber": None, "iban": True, "id": 7})]
    assert found == [
        "$.zip: the sensitive field 'zip' holds a value of type int",
        "$.iban: the sensitive field 'iban' holds a value of type bool",
    ]


@pytest.mark.parametrize(
    "key",
    [
        "addressParentName",
        "addressGender",
        "salutation",
        "deliveryAddress",
        "bankAccountNumber",
        "ownerName",
    ],
)
def test_names_in_the_fields_the_review_found_are_replaced(key: str) -> None:
    sanitizer = Sanitizer()
    out = sanitizer.sanitize({"objects": [{key: "Annegret Vogelsang"}]})
    assert "Vogelsang" not in json.dumps(out)
    assert scan(out, sanitizer.originals) == []
    assert [str(f) for f in scan({key: "Annegret Vogelsang"})] == [
        f"$.{key}: the sensitive field {key!r} holds no replacement"
    ]


def test_the_scan_flags_a_name_in_a_field_it_does_not_know() -> None:
    record: dict[str, Any] = {
        "objects": [{"objectName": "Invoice", "invoiceType": "RE", "newPerson": "Anne"}]
    }
    assert [str(f) for f in scan(record)] == [
        "$.objects[0].newPerson: a text in 'newPerson', a field neither sanitized nor listed "
        "as kept"
    ]
    assert scan({"objects": [{"newDate": "2026-01-07T00:00:00+01:00", "newSum": "1.5"}]}) == []


@pytest.mark.parametrize("object_name", ["PaymentMethod", "Category", "AccountDatev", "Unity"])
def test_rows_an_account_can_create_are_sanitized(object_name: str) -> None:
    sanitizer = Sanitizer()
    row: dict[str, Any] = {"id": "3", "objectName": object_name, "name": "Vogelsang privat"}
    out = sanitizer.sanitize({"objects": [row]})
    assert out == {"objects": [{**row, "name": "NAME-0001"}]}
    assert [str(f) for f in scan({"objects": [row]})] == [
        "$.objects[0].name: the sensitive field 'name' holds no replacement"
    ]


def test_the_recorder_refuses_a_folder_that_is_not_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "old-endpoint.json").write_text("{}", encoding="utf-8")
    (tmp_path / "README.txt").write_text("keep me", encoding="utf-8")
    fake = planted_demo()
    with serve_fake(fake) as url:
        env = {"SEVDESK_LIVE_TOKEN": fake.token, "SEVDESK_LIVE_URL": url}
        assert record_fixtures.main([str(tmp_path), "--endpoints", "SevClient"], env) == 2
        assert "is not empty: choose an empty folder, or pass --replace" in capsys.readouterr().err
        assert (tmp_path / "old-endpoint.json").exists()
        argv = [str(tmp_path), "--endpoints", "SevClient", "--replace"]
        assert record_fixtures.main(argv, env) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.txt", "sevclient.json"]


def test_two_requests_of_one_file_name_get_two_files() -> None:
    assert unique("invoice-id.json", []) == "invoice-id.json"
    taken = ["invoice-id.json", "invoice-id-2.json"]
    assert unique("invoice-id.json", taken) == "invoice-id-3.json"
