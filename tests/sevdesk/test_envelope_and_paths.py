"""Envelope shapes, error codes as strings, and path building."""

from __future__ import annotations

import pytest

from sevdesk_mcp.errors import MalformedResponseError, NotFoundError, WriteRefusedError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.envelope import classify, many, one, unwrap
from sevdesk_mcp.sevdesk.paths import api_path, minimum_tier


def test_one_takes_the_single_object_of_an_array_of_one_or_a_bare_object() -> None:
    assert one([{"id": "1"}]) == {"id": "1"}
    assert one({"id": "2"}) == {"id": "2"}
    with pytest.raises(NotFoundError):
        one([])
    with pytest.raises(MalformedResponseError):
        one("-1391.18")
    with pytest.raises(MalformedResponseError, match="2 entries where one was expected"):
        one([{"id": "1"}, {"id": "2"}])  # never act on the first of several records


def test_many_accepts_lists_and_a_bare_object_but_not_null() -> None:
    assert many([{"id": "1"}, {"id": "2"}]) == [{"id": "1"}, {"id": "2"}]
    assert many({"id": "1"}) == [{"id": "1"}]  # forAccountNumber answers a bare object (Q6)
    assert many([]) == []
    with pytest.raises(MalformedResponseError, match="`objects` is null"):
        many(None)  # S06: null only comes with an error, never as an empty list
    with pytest.raises(MalformedResponseError):
        many([{"id": "1"}, 5])
    with pytest.raises(MalformedResponseError):
        many("x")


def test_error_codes_may_be_strings() -> None:
    body = b'{"error":{"message":"gone","code":"151"},"objects":null}'
    with pytest.raises(NotFoundError) as info:
        unwrap(400, body)
    assert info.value.code == 151
    odd = b'{"error":{"message":"odd","code":"x1"},"objects":null}'
    with pytest.raises(Exception, match="HTTP 418") as other:
        unwrap(418, odd)
    assert getattr(other.value, "code", "missing") is None


def test_classify_without_a_body() -> None:
    assert "HTTP 409" in str(classify(409, None))


def test_api_path_builds_from_words_and_ids() -> None:
    assert api_path("Invoice", 5, "getPositions") == "/Invoice/5/getPositions"
    for bad in (0, -1, 10**15, True, "a/b", "..", "", 1.5):
        with pytest.raises(WriteRefusedError):
            api_path("Contact", bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "path", "query", "tier"),
    [
        ("GET", "/Contact", {}, None),
        ("GET", "/Invoice/5/getPdf", {"preventSendBy": "1"}, None),
        ("GET", "/Invoice/5/getPdf", {}, Tier.COMMIT),
        ("GET", "/Export/createDatevCsvZipExportJob", {"enshrineDocuments": "false"}, None),
        ("GET", "/Export/datevCSV", {"enshrine": "true"}, Tier.COMMIT),
        ("GET", "/Export/datevCSV", {"enshrine": "false"}, None),
        ("GET", "/Invoice/5/getpdf", {}, Tier.COMMIT),
        ("GET", "/Export/createdatevcsvzipexportjob", {"enshrineDocuments": "1"}, Tier.COMMIT),
        ("PUT", "/Invoice/5/SENDBY", {}, Tier.COMMIT),
        ("POST", "/Voucher/Factory/savevoucher", {}, Tier.COMMIT),
        ("POST", "/Contact", {}, Tier.WRITE),
        ("DELETE", "/CheckAccountTransaction/9", {}, Tier.COMMIT),
        ("POST", "/CheckAccountTransaction", {}, Tier.WRITE),
        ("PUT", "/Voucher/5/enshrine", {}, Tier.COMMIT),
        ("POST", "/CreditNote/5/sendViaEmail", {}, Tier.EXTERNAL),
        ("GET", "/Export/createDatevCsvZipExportJob", {"enshrineDocuments": "yes"}, Tier.COMMIT),
        ("GET", "/Export/createDatevCsvZipExportJob", {"enshrineDocuments[]": "1"}, Tier.COMMIT),
        ("GET", "/Export/createDatevCsvZipExportJob", {"enshrineDocuments": "0"}, None),
        ("GET", "/Export/createDatevCsvZipExportJob", {}, None),
        ("GET", "/Export/datevCSV", {"enshrine": "on"}, Tier.COMMIT),
        ("GET", "/Export/datevCSV", {"enshrine": "FALSE"}, Tier.COMMIT),
        ("GET", "/Invoice/7/sendBy", {}, Tier.COMMIT),
        ("GET", "/Invoice/7/resetToOpen", {}, Tier.COMMIT),
        ("GET", "/Invoice/7/sendViaEmail", {}, Tier.EXTERNAL),
    ],
)
def test_minimum_tiers(method: str, path: str, query: dict, tier: Tier | None) -> None:
    assert minimum_tier(method, path, query) is tier


def test_the_generation_of_an_object_follows_what_it_carries() -> None:
    from sevdesk_mcp.sevdesk.version import object_system

    assert object_system({"taxRule": {"id": "1"}, "taxType": None}, "1.0") == "2.0"
    assert object_system({"taxType": "default", "taxRule": None}, "2.0") == "1.0"
    assert object_system({"accountingType": {"id": "5"}}, "2.0") == "1.0"
    assert object_system({"accountDatev": {"id": "5"}}, "1.0") == "2.0"
    assert object_system({"taxType": ""}, "2.0") == "2.0"
